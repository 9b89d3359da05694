// Requests on threads, and operators on threads.
//  - BM_RunPerThreadExecutor: throughput of N threads, each with its own executor of one
//    compute-bound model (mlp_compute), in runs per second (items_per_second). Target: 2 threads
//    >= 1.9x one thread on two cores.
//  - BM_ParallelRequest/<op threads>: a synthetic request as a graph export's run is: 8 operators
//    in a row, each a TVMBackendParallelLaunch of num_task 0 (as TVM's codegen asks) splitting
//    ~1.6 ms of arithmetic, inside the ScopedThreadLimit an executor's Run puts around it (op
//    threads 0: the default count, shared; n: ExecutorOptions::num_threads = n). One thread: the
//    latency of a lone request; Threads(2): two concurrent requests, aggregate requests/s.
//  - BM_ParallelRequestOversubscribed: the same with each operator asking for exactly 2 tasks,
//    as TVM's per-thread pools of 2 threads would run them: 2 requests then use 4 threads.
// The default count is set to 2 (this 2-core x86 host's default, halved for hyperthreads, is 1).
#include <benchmark/benchmark.h>

#include <algorithm>
#include <cstdlib>
#include <vector>

#include "aotrt/model.h"
#include "backend/thread_pool.h"
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

constexpr int kOperators = 8;
constexpr int kElements = 4096;
constexpr int kSteps = 256;  // dependent multiply-adds per element: ~1.6 ms per operator on one core

struct OperatorData {
  const float* in;
  float* out;
};

int ComputeTask(int task_id, TVMParallelGroupEnv* env, void* cdata) {
  auto* d = static_cast<OperatorData*>(cdata);
  int per = (kElements + env->num_task - 1) / env->num_task;
  int end = std::min(kElements, (task_id + 1) * per);
  for (int i = task_id * per; i < end; ++i) {
    float x = d->in[i];
    for (int s = 0; s < kSteps; ++s) x = x * 0.999f + 0.5f;
    d->out[i] = x;
  }
  return 0;
}

// One request: kOperators launches, each operator's output the next one's input.
void Request(std::vector<float>* a, std::vector<float>* b, int num_task) {
  for (int op = 0; op < kOperators; ++op) {
    OperatorData d{(op % 2 ? b : a)->data(), (op % 2 ? a : b)->data()};
    if (TVMBackendParallelLaunch(ComputeTask, &d, num_task) != 0) std::abort();
  }
}

[[maybe_unused]] const bool kDefaultOfTwo = (aotrt::SetNumThreads(2), true);

void BM_ParallelRequest(benchmark::State& state) {
  std::vector<float> a(kElements, 1.0f), b(kElements);
  for (auto _ : state) {
    aotrt::ScopedThreadLimit request(static_cast<int>(state.range(0)));
    Request(&a, &b, 0);
  }
  benchmark::DoNotOptimize(a.data());
  state.SetItemsProcessed(state.iterations());
}
BENCHMARK(BM_ParallelRequest)->Arg(0)->Arg(1)->Arg(2)->Threads(1)->Threads(2)->UseRealTime()
    ->Unit(benchmark::kMillisecond);

void BM_ParallelRequestOversubscribed(benchmark::State& state) {
  std::vector<float> a(kElements, 1.0f), b(kElements);
  for (auto _ : state) {
    aotrt::ScopedThreadLimit request(0);
    Request(&a, &b, 2);
  }
  benchmark::DoNotOptimize(a.data());
  state.SetItemsProcessed(state.iterations());
}
BENCHMARK(BM_ParallelRequestOversubscribed)->Threads(1)->Threads(2)->UseRealTime()->Unit(benchmark::kMillisecond);

}  // namespace

BENCHMARK_MAIN();
