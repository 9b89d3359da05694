// The process-wide registry of global packed functions.
#pragma once

#include <string>
#include <vector>

#include "aotrt/packed_func.h"

namespace aotrt {

class Registry {
 public:
  // The registry, with aotrt's built-in globals registered on first use. Thread-safe.
  static Registry& Global();

  void Register(const std::string& name, PackedFunc f, bool override);
  PackedFunc Get(const std::string& name) const;
  // False when the name was not registered (not an error).
  bool Remove(const std::string& name);
  std::vector<std::string> ListNames() const;

 private:
  Registry() = default;
  struct Impl;
  Impl* impl_ = nullptr;
};

// Per-layer registration of built-in globals, called once by Registry::Global().
void RegisterFfiGlobals(Registry& r);
void RegisterNDArrayGlobals(Registry& r);
void RegisterModuleGlobals(Registry& r);
void RegisterAotGlobals(Registry& r);
void RegisterProfilingGlobals(Registry& r);
void RegisterContribGlobals(Registry& r);

}  // namespace aotrt
