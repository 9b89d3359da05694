// Cost of the bounds-checking mode (issues 10, 26; ExecutorOptions::Heap::check_bounds) over the reserve
// after every pool and block (memory/reserve.h).
//  - BM_Run/<model>/<mode>: Executor::Run with check_bounds off and on, on the digits sample
//    (USMP: one workspace pool), mlp_compute (USMP, bigger work), multi_io_c (5 workspace blocks
//    per run, no pools), and the overrunning models, where checking mode throws on every run (the
//    figure includes finding the write, giving the written reserve pages back, which the next run
//    faults in again, and building and catching the error): overrun_reserve_usmp_llvm writes
//    1,247,056 bytes past a 5,218,304-byte pool, overrun_reserve_ws_c 251,658 past a 1 MiB block.
//  - BM_PoolCanaryCheck/<bytes>: the per-pool part of the check alone (nothing written: compare the
//    rest of the last page, mincore over the reserve), for the digits pool and a pool of the
//    5,233,328 bytes of the MobileNet.
//  - Counters: slack_bytes = room one executor has after its pools (Model::SlackBytes(): address
//    space, resident only where written).
#include <benchmark/benchmark.h>

#include <string>

#include "memory/reserve.h"
#include "aotrt/model.h"
#include "bench_common.h"

namespace {

std::string SampleModel(const std::string& name) { return std::string(AOTRT_SAMPLES_DIR) + "/" + name + ".so"; }

void BM_Run(benchmark::State& state, std::string path, bool check) {
  aotrt::Model model = aotrt::Model::Load(path);
  aotrt::ExecutorOptions options;
  options.memory = aotrt::ExecutorOptions::Heap{check, /*huge_pages=*/false};
  aotrt::Executor ex = model.CreateExecutor(DLDevice{kDLCPU, 0}, options);
  int64_t errors = 0;
  for (auto _ : state) {
    try {
      ex.Run();
    } catch (const aotrt::Error&) {
      ++errors;
    }
  }
  state.counters["slack_bytes"] = static_cast<double>(model.SlackBytes());
  state.counters["errors_per_run"] = static_cast<double>(errors) / static_cast<double>(state.iterations());
}

void RegisterRuns() {
  struct M {
    const char* name;
    std::string path;
  };
  const M models[] = {{"digits", SampleModel("digits")},
                      {"mlp_compute", BenchModel("mlp_compute")},
                      {"multi_io_c", BenchModel("multi_io_c")},
                      {"overrun_usmp_llvm", BenchModel("overrun_usmp_llvm")},
                      {"overrun_ws_llvm", BenchModel("overrun_ws_llvm")},
                      {"overrun_reserve_usmp_llvm", BenchModel("overrun_reserve_usmp_llvm")},
                      {"overrun_reserve_ws_c", BenchModel("overrun_reserve_ws_c")}};
  for (const M& m : models) {
    for (bool check : {false, true}) {
      std::string name = std::string("BM_Run/") + m.name + (check ? "/checking" : "/normal");
      benchmark::RegisterBenchmark(name.c_str(), BM_Run, m.path, check);
    }
  }
}
const int kRegistered = (RegisterRuns(), 0);

void BM_PoolCanaryCheck(benchmark::State& state) {
  aotrt::PoolBuffer pool("global_workspace", static_cast<size_t>(state.range(0)));
  for (auto _ : state) benchmark::DoNotOptimize(pool.TakeOverrun());
  state.counters["slack_bytes"] = static_cast<double>(pool.slack());
}
BENCHMARK(BM_PoolCanaryCheck)->Arg(256)->Arg(5233328);

}  // namespace

BENCHMARK_MAIN();
