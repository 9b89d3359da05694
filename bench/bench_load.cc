// Load and create time of the largest generated model (big_params: 16 MiB of factory params in
// the blob) and of the smallest (add_c): dlopen + blob parsing + metadata, then executor creation.
#include <benchmark/benchmark.h>

#include "aotrt/model.h"
#include "bench_common.h"

namespace {

void BM_Load(benchmark::State& state, const char* name) {
  for (auto _ : state) {
    aotrt::Model m = aotrt::Model::Load(BenchModel(name));
    benchmark::DoNotOptimize(m);
  }
}
BENCHMARK_CAPTURE(BM_Load, big_params, "big_params")->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(BM_Load, add_c, "add_c")->Unit(benchmark::kMicrosecond);

void BM_LoadAndCreate(benchmark::State& state, const char* name) {
  for (auto _ : state) {
    aotrt::Executor ex = aotrt::Model::Load(BenchModel(name)).CreateExecutor();
    benchmark::DoNotOptimize(ex);
  }
}
BENCHMARK_CAPTURE(BM_LoadAndCreate, big_params, "big_params")->Unit(benchmark::kMillisecond);

void BM_CreateExecutor(benchmark::State& state, const char* name) {
  aotrt::Model m = aotrt::Model::Load(BenchModel(name));
  for (auto _ : state) {
    aotrt::Executor ex = m.CreateExecutor();
    benchmark::DoNotOptimize(ex);
  }
}
BENCHMARK_CAPTURE(BM_CreateExecutor, big_params, "big_params")->Unit(benchmark::kMicrosecond);
BENCHMARK_CAPTURE(BM_CreateExecutor, usmp_both_c, "usmp_both_c")->Unit(benchmark::kMicrosecond);

}  // namespace

BENCHMARK_MAIN();
