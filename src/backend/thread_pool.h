// The thread pool behind TVMBackendParallelLaunch / TVMBackendParallelBarrier: one process-wide
// set of workers shared by every launch in flight (README "Request threads and operator threads").
// A launch of n tasks runs task 0 on the caller and the rest on n-1 idle workers reserved for it,
// so its tasks run concurrently. An explicit num_task gets exactly n (workers are added); num_task 0
// lets the pool choose n: the thread's ScopedThreadLimit, else the default count split among the
// running requests, at most the idle workers plus the caller. A launch from inside a task is an
// error, not a deadlock.
#pragma once

#include <tvm/runtime/c_backend_api.h>

#include <cstdint>

namespace aotrt {

// 0, or -1 with a last error ("Task i error: ..." per failed task). `caller_pc` is the return
// address in the generated operator that launched (TVMBackendParallelLaunch's own), kept for
// CurrentParallelLaunchCaller while the launch runs. Thread-safe.
int ParallelLaunch(FTVMParallelLambda f, void* cdata, int num_task, const void* caller_pc);
// The caller_pc of the parallel launch the calling thread is running now, or 0 when it runs none.
// One per-thread load: async-signal-safe, for the operator profiler's signal handler, which runs
// on the interrupted thread (src/profiling/op_profile.cc).
uintptr_t CurrentParallelLaunchCaller();
int ParallelBarrier(int task_id, TVMParallelGroupEnv* penv);
// The most tasks one launch may ask for.
constexpr int kMaxParallelTasks = 1024;

// Threads used when num_task is 0: SetNumThreads's count (TVM's config_threadpool), else
// SetEnvironmentNumThreads's (TVM_NUM_THREADS / OMP_NUM_THREADS, from the top layer), else the
// hardware's (halved on x86-64, as TVM does). A setter given 0, or a count outside
// [1, kMaxParallelTasks], restores the next default. Thread-safe.
int DefaultNumThreads();
void SetNumThreads(int n);
void SetEnvironmentNumThreads(int n);

// This thread's request, for ScopedThreadLimit below (an executor run reads it: initial-exec, as
// backend/workspace.h's per-thread words). `counted`: the pool counts it as running, from its
// first launch of num_task 0 (a run without one pays no shared write).
struct ThreadRequest {
  int limit;  // 0: none
  bool open;
  bool counted;
};
extern __thread ThreadRequest t_thread_request __attribute__((tls_model("initial-exec")));
void EndCountedRequest();  // the counted request of this thread ends

// One request (an executor's Run) on this thread, for its lifetime: launches of num_task 0 from
// this thread use at most `num_threads` threads (ExecutorOptions::num_threads), the caller's
// included; 0, or a count outside [1, kMaxParallelTasks], means the default count shared with the
// other running requests. Nests (the outermost is the request). Costs a run without such launches
// no shared write. Create and destroy on one thread.
class ScopedThreadLimit {
 public:
  explicit ScopedThreadLimit(int num_threads)
      : previous_limit_(t_thread_request.limit), outermost_(!t_thread_request.open) {
    t_thread_request.limit = num_threads > 0 && num_threads <= kMaxParallelTasks ? num_threads : 0;
    t_thread_request.open = true;
  }
  ~ScopedThreadLimit() {
    t_thread_request.limit = previous_limit_;
    if (!outermost_) return;
    if (t_thread_request.counted) EndCountedRequest();
    t_thread_request.open = false;
  }
  ScopedThreadLimit(const ScopedThreadLimit&) = delete;
  ScopedThreadLimit& operator=(const ScopedThreadLimit&) = delete;

 private:
  int previous_limit_;
  bool outermost_;
};

}  // namespace aotrt
