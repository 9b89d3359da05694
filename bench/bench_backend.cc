// What generated code calls.
//  - BM_WorkspaceAllocFree_1MiB: TVMBackendAllocWorkspace + FreeWorkspace of 1 MiB once the
//    pool is warm (target < 50 ns per pair; counter `pool_growth` must stay 0: no malloc).
//  - BM_ParallelLaunch_2Tasks: TVMBackendParallelLaunch of two empty tasks (µs per launch).
//  - BM_ParallelLaunch_Barrier: two tasks that meet at one barrier.
#include <benchmark/benchmark.h>

#include <tvm/runtime/c_backend_api.h>

#include "backend/workspace.h"

namespace {

void BM_WorkspaceAllocFree_1MiB(benchmark::State& state) {
  void* warm = TVMBackendAllocWorkspace(kDLCPU, 0, 1 << 20, kDLFloat, 32);
  TVMBackendFreeWorkspace(kDLCPU, 0, warm);
  size_t held = aotrt::WorkspacePoolBytes();
  for (auto _ : state) {
    void* p = TVMBackendAllocWorkspace(kDLCPU, 0, 1 << 20, kDLFloat, 32);
    benchmark::DoNotOptimize(p);
    TVMBackendFreeWorkspace(kDLCPU, 0, p);
  }
  state.counters["pool_growth"] = static_cast<double>(aotrt::WorkspacePoolBytes() - held);
}
BENCHMARK(BM_WorkspaceAllocFree_1MiB);

int EmptyTask(int, TVMParallelGroupEnv*, void*) { return 0; }

int BarrierTask(int task_id, TVMParallelGroupEnv* env, void*) { return TVMBackendParallelBarrier(task_id, env); }

void BM_ParallelLaunch_2Tasks(benchmark::State& state) {
  for (auto _ : state) TVMBackendParallelLaunch(EmptyTask, nullptr, 2);
}
BENCHMARK(BM_ParallelLaunch_2Tasks)->UseRealTime();

void BM_ParallelLaunch_Barrier(benchmark::State& state) {
  for (auto _ : state) TVMBackendParallelLaunch(BarrierTask, nullptr, 2);
}
BENCHMARK(BM_ParallelLaunch_Barrier)->UseRealTime();

}  // namespace

BENCHMARK_MAIN();
