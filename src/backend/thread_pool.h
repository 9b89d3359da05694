// The thread pool behind TVMBackendParallelLaunch / TVMBackendParallelBarrier.
//
// One process-wide pool; the launching thread runs task 0 and workers run the others, all
// concurrently (workers are added when a launch asks for more tasks than the pool has, because
// tasks may wait for each other at a barrier). Launches from different threads are serialised;
// a launch from inside a task is refused with an error instead of deadlocking.
#pragma once

#include <tvm/runtime/c_backend_api.h>

#include <cstdint>

namespace aotrt {

// 0, or -1 with a last error ("Task i error: ..." per failed task). `caller_pc` is the return
// address in the generated operator that launched (TVMBackendParallelLaunch's own), kept for
// ParallelLaunchCallerOf while the launch runs.
int ParallelLaunch(FTVMParallelLambda f, void* cdata, int num_task, const void* caller_pc = nullptr);
// The caller_pc of the parallel launch that thread `self` (its pthread_self()) is running now, or
// 0 when it runs none. Two relaxed atomic loads: async-signal-safe, for the operator profiler's
// signal handler, which asks on behalf of the interrupted thread (src/profiling/pc_sampler.cc).
// Exact for that use: only the launching thread, holding the launch lock, sets and clears it.
uintptr_t ParallelLaunchCallerOf(uintptr_t self);
int ParallelBarrier(int task_id, TVMParallelGroupEnv* penv);
// The most tasks one launch may ask for.
constexpr int kMaxParallelTasks = 1024;

// Threads used when num_task is 0: SetNumThreads's count, else the environment's
// (SetEnvironmentNumThreads: TVM_NUM_THREADS, else OMP_NUM_THREADS, set by the top layer when
// libaotrt is loaded), else the hardware's (halved on x86-64, as TVM does, to count physical cores).
// SetNumThreads(n > 0) overrides that count (TVM's config_threadpool); 0 restores it. Both setters
// ignore counts outside [1, kMaxParallelTasks] (they restore the next default). Thread-safe.
int DefaultNumThreads();
void SetNumThreads(int n);
void SetEnvironmentNumThreads(int n);

}  // namespace aotrt
