// Executors in caller-owned memory (ExecutorOptions::Arena) against executors on the heap:
// creating one (an arena: nothing allocated, buffers cleared in place) and running one (the same
// single call; a model without memory planning takes its TVMBackendAllocWorkspace scratch from the
// arena instead of the thread's pool). Models: add_c (dispatch only), conv_net_llvm (run-time
// scratch), and the real MobileNet without memory planning when ../shared is present.
#include <benchmark/benchmark.h>

#include <cstdlib>
#include <string>

#include "aotrt/model.h"
#include "bench_common.h"

namespace {

std::string ModelFile(const std::string& name) {
  if (name == "mobilenet_llvm_nousmp") return std::string(AOTRT_FIXTURES_DIR) + "/" + name + "/model.so";
  return BenchModel(name);
}

struct ArenaMemory {
  explicit ArenaMemory(size_t bytes) : data(std::aligned_alloc(64, (bytes + 63) / 64 * 64)), bytes(bytes) {}
  ~ArenaMemory() { std::free(data); }
  aotrt::ExecutorOptions Options() const {
    aotrt::ExecutorOptions o;
    o.memory = aotrt::ExecutorOptions::Arena{data, bytes};
    return o;
  }
  void* data;
  size_t bytes;
};

// The model, or an undefined one with the benchmark skipped (no ../shared, say).
aotrt::Model LoadOrSkip(benchmark::State& state, const char* name) {
  try {
    return aotrt::Model::Load(ModelFile(name));
  } catch (const std::exception& e) {
    state.SkipWithError(e.what());
    return aotrt::Model();
  }
}

void BM_Create(benchmark::State& state, const char* name, bool in_arena) {
  aotrt::Model m = LoadOrSkip(state, name);
  if (!m.module().defined()) return;
  ArenaMemory arena(m.ArenaBytes());
  aotrt::ExecutorOptions o = in_arena ? arena.Options() : aotrt::ExecutorOptions();
  for (auto _ : state) {
    aotrt::Executor ex = m.CreateExecutor(DLDevice{kDLCPU, 0}, o);
    benchmark::DoNotOptimize(ex);
  }
  state.counters["arena_bytes"] = static_cast<double>(arena.bytes);
}
BENCHMARK_CAPTURE(BM_Create, add_c_heap, "add_c", false)->Unit(benchmark::kMicrosecond);
BENCHMARK_CAPTURE(BM_Create, add_c_arena, "add_c", true)->Unit(benchmark::kMicrosecond);
BENCHMARK_CAPTURE(BM_Create, conv_net_llvm_heap, "conv_net_llvm", false)->Unit(benchmark::kMicrosecond);
BENCHMARK_CAPTURE(BM_Create, conv_net_llvm_arena, "conv_net_llvm", true)->Unit(benchmark::kMicrosecond);

void BM_Run(benchmark::State& state, const char* name, bool in_arena) {
  aotrt::Model m = LoadOrSkip(state, name);
  if (!m.module().defined()) return;
  ArenaMemory arena(m.ArenaBytes());
  aotrt::Executor ex = m.CreateExecutor(DLDevice{kDLCPU, 0}, in_arena ? arena.Options() : aotrt::ExecutorOptions());
  ex.Run();  // warm
  for (auto _ : state) ex.Run();
}
BENCHMARK_CAPTURE(BM_Run, add_c_heap, "add_c", false)->Unit(benchmark::kNanosecond);
BENCHMARK_CAPTURE(BM_Run, add_c_arena, "add_c", true)->Unit(benchmark::kNanosecond);
BENCHMARK_CAPTURE(BM_Run, conv_net_llvm_heap, "conv_net_llvm", false)->Unit(benchmark::kMicrosecond);
BENCHMARK_CAPTURE(BM_Run, conv_net_llvm_arena, "conv_net_llvm", true)->Unit(benchmark::kMicrosecond);
BENCHMARK_CAPTURE(BM_Run, mobilenet_llvm_nousmp_heap, "mobilenet_llvm_nousmp", false)->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(BM_Run, mobilenet_llvm_nousmp_arena, "mobilenet_llvm_nousmp", true)->Unit(benchmark::kMillisecond);

}  // namespace

BENCHMARK_MAIN();
