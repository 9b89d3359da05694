// The modules a walk of an import tree has visited: a vector searched in order (a tree holds a few
// modules).
#pragma once

#include <algorithm>
#include <vector>

namespace aotrt {

class ModuleNode;

class VisitedModules {
 public:
  // True the first time `m` is given, false after.
  bool Insert(const ModuleNode* m) {
    if (std::find(visited_.begin(), visited_.end(), m) != visited_.end()) return false;
    visited_.push_back(m);
    return true;
  }

 private:
  std::vector<const ModuleNode*> visited_;
};

}  // namespace aotrt
