// Throughput of N threads, each with its own executor of one compute-bound model (mlp_compute),
// in runs per second (items_per_second). Target: 2 threads >= 1.9x one thread on two cores.
#include <benchmark/benchmark.h>

#include "aotrt/model.h"
#include "bench_common.h"

namespace {

const aotrt::Model& SharedModel() {
  static const aotrt::Model model = aotrt::Model::Load(BenchModel("mlp_compute"));
  return model;
}

void BM_RunPerThreadExecutor(benchmark::State& state) {
  aotrt::Executor ex = SharedModel().CreateExecutor();  // one per thread
  for (auto _ : state) ex.Run();
  state.SetItemsProcessed(state.iterations());
}
BENCHMARK(BM_RunPerThreadExecutor)->Threads(1)->Threads(2)->UseRealTime()->Unit(benchmark::kMillisecond);

}  // namespace

BENCHMARK_MAIN();
