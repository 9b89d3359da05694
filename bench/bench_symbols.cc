// Cost of the load-time check that every undefined symbol of a model library resolves
// (src/module/loader/shared_library.h), against the two ways ABI.md 10.3 names: open RTLD_LAZY and look each
// symbol up (what aotrt does), or open RTLD_NOW and let the dynamic linker bind every call at once.
// Each iteration opens and closes the library, so every figure is a cold dlopen of a file in the
// page cache; the difference between LazyAndCheck and Lazy is what the check adds to a load.
#include <benchmark/benchmark.h>
#include <dlfcn.h>

#include <fstream>
#include <iterator>
#include <stdexcept>
#include <string>

#include "bench_common.h"
#include "module/loader/shared_library.h"

namespace {

std::string LibraryPath(const std::string& name) {
  if (name == "many_libm") return std::string(AOTRT_BENCH_MANY_LIBM);
  return BenchModel(name);
}

aotrt::ElfDynamicSymbols Symbols(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::string bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  return aotrt::ReadElfDynamicSymbols(bytes.data(), bytes.size(), path);
}

void* Open(const std::string& path, int mode) {
  void* h = dlopen(path.c_str(), mode | RTLD_LOCAL);
  if (!h) throw std::runtime_error(dlerror());
  return h;
}

void BM_DlopenLazy(benchmark::State& state, const char* name) {
  std::string path = LibraryPath(name);
  for (auto _ : state) dlclose(Open(path, RTLD_LAZY));
}

void BM_DlopenLazyAndCheck(benchmark::State& state, const char* name) {
  std::string path = LibraryPath(name);
  aotrt::ElfDynamicSymbols syms = Symbols(path);  // read at every load anyway (blob, context pointers)
  for (auto _ : state) {
    void* h = Open(path, RTLD_LAZY);
    aotrt::CheckUndefinedSymbolsResolve(h, syms, path);
    dlclose(h);
  }
  state.counters["symbols"] = static_cast<double>(syms.undefined.size());
}

void BM_DlopenNow(benchmark::State& state, const char* name) {
  std::string path = LibraryPath(name);
  for (auto _ : state) dlclose(Open(path, RTLD_NOW));
}

void BM_CheckOnly(benchmark::State& state, const char* name) {
  std::string path = LibraryPath(name);
  aotrt::ElfDynamicSymbols syms = Symbols(path);
  void* h = Open(path, RTLD_LAZY);
  for (auto _ : state) aotrt::CheckUndefinedSymbolsResolve(h, syms, path);
  dlclose(h);
  state.counters["symbols"] = static_cast<double>(syms.undefined.size());
}

#define AOTRT_SYMBOL_BENCHES(name)                                                        \
  BENCHMARK_CAPTURE(BM_DlopenLazy, name, #name)->Unit(benchmark::kMicrosecond);         \
  BENCHMARK_CAPTURE(BM_DlopenLazyAndCheck, name, #name)->Unit(benchmark::kMicrosecond); \
  BENCHMARK_CAPTURE(BM_DlopenNow, name, #name)->Unit(benchmark::kMicrosecond);          \
  BENCHMARK_CAPTURE(BM_CheckOnly, name, #name)->Unit(benchmark::kMicrosecond)

AOTRT_SYMBOL_BENCHES(add_llvm);
AOTRT_SYMBOL_BENCHES(half_llvm);
AOTRT_SYMBOL_BENCHES(multi_io_c);
AOTRT_SYMBOL_BENCHES(many_libm);

}  // namespace

BENCHMARK_MAIN();
