// Cost of the tail slack and of the bounds-checking mode (issue 10; ExecutorOptions::check_bounds).
//  - BM_Run/<model>/<mode>: Executor::Run with check_bounds off and on, on the digits sample
//    (USMP: one workspace pool), mlp_compute (USMP, bigger work), multi_io_c (5 workspace blocks
//    per run, no pools), and the overrunning models, where checking mode throws on every run (the
//    figure includes building and catching that error).
//  - BM_PoolCanaryCheck/<bytes>: the per-pool part of the check alone (compare the slack, intact),
//    for the digits pool and the 5,233,328-byte MobileNet pool of the issue (1,360 bytes of slack).
//  - Counters: slack_bytes = tail slack one executor adds (Model::SlackBytes()).
#include <benchmark/benchmark.h>

#include <string>

#include "aot/pool_buffer.h"
#include "aotrt/model.h"
#include "bench_common.h"

namespace {

std::string SampleModel(const std::string& name) { return std::string(AOTRT_SAMPLES_DIR) + "/" + name + ".so"; }

void BM_Run(benchmark::State& state, std::string path, bool check) {
  aotrt::Model model = aotrt::Model::Load(path);
  aotrt::ExecutorOptions options;
  options.check_bounds = check;
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
                      {"overrun_ws_llvm", BenchModel("overrun_ws_llvm")}};
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
