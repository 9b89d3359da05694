// Resident memory of 8 executors of one model with 16 MiB of params (big_params): the params
// must be counted once. Reports the growth of RSS (MiB) after loading, and per executor.
#include <benchmark/benchmark.h>

#include <unistd.h>

#include <cstdio>
#include <vector>

#include "aotrt/model.h"
#include "bench_common.h"

namespace {

double RssMiB() {
  long pages = 0, resident = 0;
  if (FILE* f = std::fopen("/proc/self/statm", "r")) {
    if (std::fscanf(f, "%ld %ld", &pages, &resident) != 2) resident = 0;
    std::fclose(f);
  }
  return static_cast<double>(resident) * static_cast<double>(sysconf(_SC_PAGESIZE)) / (1 << 20);
}

void BM_EightExecutorsRss(benchmark::State& state) {
  for (auto _ : state) {
    double base = RssMiB();
    aotrt::Model m = aotrt::Model::Load(BenchModel("big_params"));
    double loaded = RssMiB();
    std::vector<aotrt::Executor> executors;
    for (int i = 0; i < 8; ++i) {
      executors.push_back(m.CreateExecutor());
      executors.back().Run();  // touch every page an executor really uses
    }
    double with_executors = RssMiB();
    state.counters["params_MiB"] = static_cast<double>(m.ParamBytes()) / (1 << 20);
    state.counters["load_rss_MiB"] = loaded - base;
    state.counters["rss_per_executor_MiB"] = (with_executors - loaded) / 8;
    state.counters["total_rss_MiB"] = with_executors - base;
  }
}
BENCHMARK(BM_EightExecutorsRss)->Iterations(1)->Unit(benchmark::kMillisecond);

}  // namespace

BENCHMARK_MAIN();
