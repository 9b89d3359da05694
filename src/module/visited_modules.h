// The modules a walk of an import tree has visited: a vector searched in order. A tree holds a few
// modules; a hash set would be a load's first use of libstdc++'s rehash code in a new process
// (aot/name_index.h says what that costs).
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
