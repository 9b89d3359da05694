// The thread pool behind TVMBackendParallelLaunch / TVMBackendParallelBarrier.
//
// One process-wide pool; the launching thread runs task 0 and workers run the others, all
// concurrently (workers are added when a launch asks for more tasks than the pool has, because
// tasks may wait for each other at a barrier). Launches from different threads are serialised;
// a launch from inside a task is refused with an error instead of deadlocking.
#pragma once

#include <tvm/runtime/c_backend_api.h>

namespace aotrt {

// 0, or -1 with a last error ("Task i error: ..." per failed task).
int ParallelLaunch(FTVMParallelLambda f, void* cdata, int num_task);
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
