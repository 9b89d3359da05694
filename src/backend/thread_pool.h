// The thread pool behind TVMBackendParallelLaunch / TVMBackendParallelBarrier.
//
// One process-wide set of workers shared by every launch in flight: launches from different
// threads run at the same time. A launch of n tasks runs task 0 on the launching thread and tasks
// 1..n-1 on n-1 idle workers reserved for it alone, so its tasks all run concurrently (they may
// wait for each other at a barrier). num_task 0, what generated code asks for, lets the pool choose
// n: the thread's limit (ScopedThreadLimit) or the default count, split among the requests running
// at the same time, and never more than the idle workers plus the caller: such a launch never
// waits for another and the cores are shared, not oversubscribed. An explicit num_task gets
// exactly that many tasks (workers are added when too few are idle). A launch from inside a task
// is refused with an error instead of deadlocking.
#pragma once

#include <tvm/runtime/c_backend_api.h>

#include <cstdint>

namespace aotrt {

// 0, or -1 with a last error ("Task i error: ..." per failed task). `caller_pc` is the return
// address in the generated operator that launched (TVMBackendParallelLaunch's own), kept for
// CurrentParallelLaunchCaller while the launch runs. Thread-safe.
int ParallelLaunch(FTVMParallelLambda f, void* cdata, int num_task, const void* caller_pc = nullptr);
// The caller_pc of the parallel launch the calling thread is running now, or 0 when it runs none.
// One per-thread load: async-signal-safe, for the operator profiler's signal handler, which runs
// on the interrupted thread (src/profiling/pc_sampler.cc).
uintptr_t CurrentParallelLaunchCaller();
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

// One request (an executor's Run) on this thread, for its lifetime: launches of num_task 0 from
// this thread use at most `num_threads` threads (ExecutorOptions::num_threads), the caller's
// included; 0, or a count outside [1, kMaxParallelTasks], means the default count shared with the
// other requests running (those inside a ScopedThreadLimit on other threads that have launched
// with num_task 0). Nests: the inner scope's count holds until it ends; the outermost is the
// request. Costs a run without such launches no shared write. Not movable; create and destroy on
// one thread.
class ScopedThreadLimit {
 public:
  explicit ScopedThreadLimit(int num_threads);
  ~ScopedThreadLimit();
  ScopedThreadLimit(const ScopedThreadLimit&) = delete;
  ScopedThreadLimit& operator=(const ScopedThreadLimit&) = delete;

 private:
  int previous_limit_;
  bool outermost_;
};

// This thread's request, for the inline scope above (an executor run reads it: initial-exec, as
// backend/workspace.h's per-thread words). `counted`: the pool counts it as running, from its
// first launch of num_task 0 (a run without one pays no shared write).
struct ThreadRequest {
  int limit;  // 0: none
  bool open;
  bool counted;
};
extern __thread ThreadRequest t_thread_request __attribute__((tls_model("initial-exec")));
void EndCountedRequest();  // the counted request of this thread ends

inline ScopedThreadLimit::ScopedThreadLimit(int num_threads)
    : previous_limit_(t_thread_request.limit), outermost_(!t_thread_request.open) {
  t_thread_request.limit = num_threads > 0 && num_threads <= kMaxParallelTasks ? num_threads : 0;
  t_thread_request.open = true;
}

inline ScopedThreadLimit::~ScopedThreadLimit() {
  t_thread_request.limit = previous_limit_;
  if (!outermost_) return;
  if (t_thread_request.counted) EndCountedRequest();
  t_thread_request.open = false;
}

}  // namespace aotrt
