// The process-wide registry of global packed functions: only the mechanism. The built-in globals
// are plain functions listed in compile-time tables, which the top layer (c_api/globals.cc) names
// in kBuiltinGlobalTables; a built-in is wrapped as a PackedFunc only when first looked up.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include "aotrt/packed_func.h"

namespace aotrt {

using GlobalFn = void (*)(TVMArgs args, TVMRetValue* rv);
struct GlobalDef {
  const char* name;
  GlobalFn fn;
};
struct GlobalTable {
  template <size_t N>
  constexpr GlobalTable(const GlobalDef (&table)[N]) : defs(table), size(N) {}
  const GlobalDef* defs;
  size_t size;
};

// Throws kInvalidArgument ("<fn> takes <min>[ to <max>] argument(s), got <n>") unless `args` has
// from `min` to `max` arguments (`max` < 0: exactly `min`).
void RequireArgCount(const char* fn, TVMArgs args, int min, int max = -1);

// Defined by the top layer: every table of built-in globals.
extern const GlobalTable* const kBuiltinGlobalTables[];
extern const size_t kNumBuiltinGlobalTables;

class Registry {
 public:
  // The registry. Thread-safe; never destroyed (functions registered from a host language must not
  // be finalized after that host has shut down).
  static Registry& Global();

  // Throws kInvalidArgument when `name` exists (built-in or registered) and `override` is false.
  void Register(const std::string& name, PackedFunc f, bool override);
  // Empty when absent.
  PackedFunc Get(const std::string& name) const;
  // Only a function registered through Register (a host's), not a built-in; empty when none.
  PackedFunc GetRegistered(const std::string& name) const;
  // False when the name was not registered (not an error).
  bool Remove(const std::string& name);
  std::vector<std::string> ListNames() const;

 private:
  Registry();
  struct Impl;
  Impl* impl_;
};

}  // namespace aotrt
