// Shared helpers of the benchmark suites: model paths and a direct call of a model's entry.
#pragma once

#include <dlfcn.h>

#include <stdexcept>
#include <string>

#include <tvm/runtime/c_backend_api.h>

inline std::string BenchModel(const std::string& name) { return std::string(AOTRT_TEST_MODELS_DIR) + "/" + name + ".so"; }

// The generated entry of a model library, resolved by hand: the baseline every executor call is
// compared with. The handle stays open for the process (benchmarks only).
inline TVMBackendPackedCFunc DirectEntry(const std::string& library, const std::string& symbol) {
  void* h = dlopen(library.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (!h) throw std::runtime_error(dlerror());
  auto f = reinterpret_cast<TVMBackendPackedCFunc>(dlsym(h, symbol.c_str()));
  if (!f) throw std::runtime_error("no " + symbol + " in " + library);
  return f;
}
