#include "backend/thread_pool.h"

#include <algorithm>
#include <atomic>
#include <condition_variable>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include <unistd.h>

#include "base/error_util.h"
#include "memory/guard_call.h"
#include "base/last_error.h"

namespace aotrt {
namespace {

constexpr int kPauseSpins = 2000;  // tens of microseconds: the tasks of a launch end close together
constexpr int kYields = 20000;     // milliseconds on an idle machine: the gap between two operators

// Waits on this core until done(): spins briefly, then gives the core away at each try (on a
// loaded machine the thread waited for may need this very core: spinning would keep it from
// running). False when still not done after kYields tries: the caller may then sleep.
template <typename Done>
bool SpinThenYield(Done done) {
  for (int i = 0; i < kPauseSpins; ++i) {
    if (done()) return true;
#if defined(__x86_64__) || defined(__i386__)
    __builtin_ia32_pause();
#elif defined(__aarch64__)
    asm volatile("yield");
#endif
  }
  for (int i = 0; i < kYields; ++i) {
    if (done()) return true;
    std::this_thread::yield();
  }
  return done();
}

thread_local bool t_in_task = false;
std::atomic<int> g_running_requests{0};  // requests counted and not yet ended

// Where in the model this thread's launch in flight was launched from, or 0 (the profiler's
// attribution of a launch's wall time to its operator). Initial-exec: a plain load for the
// profiler's signal handler, which reads it on this thread.
__thread uintptr_t t_launch_caller __attribute__((tls_model("initial-exec"))) = 0;

// Sense-reversing barrier for the tasks of one launch.
struct Barrier {
  std::atomic<int> arrived{0};
  std::atomic<int> generation{0};
  int num_task = 0;
  void Wait() {
    int gen = generation.load(std::memory_order_acquire);
    if (arrived.fetch_add(1, std::memory_order_acq_rel) + 1 == num_task) {
      arrived.store(0, std::memory_order_relaxed);
      generation.fetch_add(1, std::memory_order_release);
      return;
    }
    while (!SpinThenYield([&] { return generation.load(std::memory_order_acquire) != gen; })) {
    }
  }
};

// One launch in flight, on its launching thread's stack. Nothing is allocated unless a task fails.
struct Launch {
  struct TaskError {
    int task;
    ErrorCode code;
    std::string message;
  };
  FTVMParallelLambda f = nullptr;
  void* cdata = nullptr;
  Barrier barrier;             // barrier.num_task: the launch's task count
  std::atomic<int> pending{0};  // tasks given to workers and not finished
  std::mutex errors_mu;
  std::vector<TaskError> errors;  // failed tasks, in completion order
  bool error_lost = false;        // a failed task's error could not be stored (out of memory)

  // Runs on workers too: nothing may escape it (an exception would end the thread, and the
  // process with it). A task that throws fails with its exception as the task's error.
  void RunTask(int task_id) noexcept {
    TVMParallelGroupEnv env{&barrier, barrier.num_task};
    t_in_task = true;
    uint64_t before = LastErrorSequence();
    int rc = GuardBackendCall(-1, "parallel task", [&] { return f(task_id, &env, cdata); });
    t_in_task = false;
    if (rc == 0) return;
    ErrorCode code = LastErrorRecordedSince(before) ? LastErrorCode() : ErrorCode::kModelError;
    std::lock_guard<std::mutex> lock(errors_mu);
    try {
      const char* msg = LastErrorMessageSince(before);
      errors.push_back(TaskError{task_id, code, msg ? msg : StrCat("returned ", rc)});
    } catch (...) {
      error_lost = true;
    }
  }

  // 0, or -1 with the failed tasks' errors by task id; the code is the first one's (kModelError
  // when it set none).
  int Report() {
    if (errors.empty() && !error_lost) return 0;
    std::sort(errors.begin(), errors.end(), [](const TaskError& a, const TaskError& b) { return a.task < b.task; });
    std::string text;
    for (const TaskError& e : errors) text += StrCat(text.empty() ? "" : "\n", "Task ", e.task, " error: ", e.message);
    if (error_lost) text += StrCat(text.empty() ? "" : "\n", "a task failed: out of memory to record its error");
    SetLastError(errors.empty() ? ErrorCode::kOutOfMemory : errors.front().code, text);
    return -1;
  }
};

// A worker thread and its mailbox: the launch whose task it runs next, set only while it is idle.
struct Worker {
  std::mutex mu;
  std::condition_variable cv;
  std::atomic<Launch*> launch{nullptr};
  int task_id = 0;        // written before `launch`
  bool shutdown = false;  // under mu
  std::thread thread;
};

class Pool {
 public:
  // Joins the workers; in a forked child, which has none of them (only the forking thread is
  // copied), their objects are left alone: joining a parent's thread there faults.
  ~Pool() {
    if (getpid() != pid_) {
      for (auto& w : workers_) w.release();
      return;
    }
    for (auto& w : workers_) {
      {
        std::lock_guard<std::mutex> lock(w->mu);
        w->shutdown = true;
      }
      w->cv.notify_one();
      w->thread.join();
    }
  }

  int Run(FTVMParallelLambda f, void* cdata, int num_task, const void* caller_pc) {
    auto invalid = [](auto... why) {
      SetLastError(ErrorCode::kInvalidArgument, StrCat("TVMBackendParallelLaunch: ", why...));
      return -1;
    };
    if (!f) return invalid("null task function");
    if (t_in_task) return invalid("nested parallel launch from inside a task");
    if (num_task < 0 || num_task > kMaxParallelTasks) {
      return invalid("num_task ", num_task, " not in [0, ", kMaxParallelTasks, "]");
    }
    t_launch_caller = reinterpret_cast<uintptr_t>(caller_pc);  // all of the launch is the operator's
    Launch launch;
    launch.f = f;
    launch.cdata = cdata;
    int rc = -1;
    if (Start(&launch, num_task)) {
      launch.RunTask(0);
      Wait(launch);
      rc = launch.Report();
    }
    t_launch_caller = 0;
    return rc;
  }

 private:
  // Chooses the task count, reserves its workers and hands them their tasks; false (with the
  // last error) when the workers an explicit count needs cannot be started.
  bool Start(Launch* launch, int num_task) {
    std::lock_guard<std::mutex> lock(mu_);
    int n = num_task;
    if (n == 0) {
      ThreadRequest& r = t_thread_request;
      if (r.open && !r.counted) {
        r.counted = true;
        g_running_requests.fetch_add(1, std::memory_order_relaxed);
      }
      int want = r.limit > 0 ? r.limit : DefaultNumThreads();
      AddWorkers(want - 1 - static_cast<int>(workers_.size()));  // the pool's size; fewer if they cannot start
      if (r.limit == 0) want = std::max(1, want / std::max(1, g_running_requests.load(std::memory_order_relaxed)));
      n = std::min(want, static_cast<int>(idle_.size()) + 1);
    } else if (!AddWorkers(n - 1 - static_cast<int>(idle_.size()))) {
      SetLastError(ErrorCode::kOutOfMemory, StrCat("TVMBackendParallelLaunch: cannot start ", n - 1,
                                                   " worker threads: ", start_error_));
      return false;
    }
    launch->barrier.num_task = n;
    launch->pending.store(n - 1, std::memory_order_relaxed);
    for (int task = 1; task < n; ++task) {
      Worker* w = idle_.back();
      idle_.pop_back();
      w->task_id = task;
      {
        std::lock_guard<std::mutex> wl(w->mu);
        w->launch.store(launch, std::memory_order_release);
      }
      w->cv.notify_one();
    }
    return true;
  }

  // Starts `count` idle workers (none when count <= 0); false when they cannot all be started
  // (those that could are kept).
  bool AddWorkers(int count) {
    if (count <= 0) return true;
    try {
      workers_.reserve(workers_.size() + count);
      idle_.reserve(workers_.size() + count);  // a worker going idle never allocates
      for (int i = 0; i < count; ++i) {
        auto w = std::make_unique<Worker>();
        Worker* p = w.get();
        w->thread = std::thread([this, p] { WorkerLoop(p); });
        workers_.push_back(std::move(w));  // reserved: cannot throw with the thread running
        idle_.push_back(p);
      }
      return true;
    } catch (const std::exception& e) {
      start_error_ = e.what();
      return false;
    }
  }

  void WorkerLoop(Worker* w) {
    while (true) {
      Launch* launch = nullptr;
      if (!SpinThenYield([&] { return (launch = w->launch.load(std::memory_order_acquire)) != nullptr; })) {
        std::unique_lock<std::mutex> lock(w->mu);
        w->cv.wait(lock, [&] { return w->shutdown || (launch = w->launch.load(std::memory_order_acquire)); });
        if (!launch) return;
      }
      int task_id = w->task_id;
      w->launch.store(nullptr, std::memory_order_relaxed);
      launch->RunTask(task_id);
      {
        std::lock_guard<std::mutex> lock(mu_);
        idle_.push_back(w);  // idle again before the launch can return: its next launch finds it
      }
      // The last touch of `launch`: its thread may return as soon as pending reaches 0.
      if (launch->pending.fetch_sub(1, std::memory_order_acq_rel) == 1) {
        std::lock_guard<std::mutex> lock(done_mu_);
        done_cv_.notify_all();
      }
    }
  }

  void Wait(const Launch& launch) {
    if (SpinThenYield([&] { return launch.pending.load(std::memory_order_acquire) == 0; })) return;
    std::unique_lock<std::mutex> lock(done_mu_);
    done_cv_.wait(lock, [&] { return launch.pending.load(std::memory_order_acquire) == 0; });
  }

  const pid_t pid_ = getpid();  // the process whose threads the workers are
  std::mutex mu_;
  std::vector<std::unique_ptr<Worker>> workers_;  // under mu_
  std::vector<Worker*> idle_;                     // under mu_; capacity >= workers_.size()
  std::string start_error_;                       // under mu_: why the last workers did not start
  std::mutex done_mu_;
  std::condition_variable done_cv_;
};

}  // namespace

static std::atomic<int> g_num_threads{0};      // 0: the default below
static std::atomic<int> g_env_num_threads{0};  // 0: the hardware's

int DefaultNumThreads() {
  if (int n = g_num_threads.load(std::memory_order_relaxed)) return n;
  if (int n = g_env_num_threads.load(std::memory_order_relaxed)) return n;
  int hw = static_cast<int>(std::thread::hardware_concurrency());
#if defined(__x86_64__)
  hw /= 2;
#endif
  return hw > 0 ? hw : 1;
}

static int CountOrZero(int n) { return n > 0 && n <= kMaxParallelTasks ? n : 0; }
void SetNumThreads(int n) { g_num_threads.store(CountOrZero(n), std::memory_order_relaxed); }
void SetEnvironmentNumThreads(int n) { g_env_num_threads.store(CountOrZero(n), std::memory_order_relaxed); }

__thread ThreadRequest t_thread_request __attribute__((tls_model("initial-exec"))) = {0, false, false};

void EndCountedRequest() {
  t_thread_request.counted = false;
  g_running_requests.fetch_sub(1, std::memory_order_relaxed);
}

uintptr_t CurrentParallelLaunchCaller() { return t_launch_caller; }

int ParallelLaunch(FTVMParallelLambda f, void* cdata, int num_task, const void* caller_pc) {
  static Pool pool;
  return pool.Run(f, cdata, num_task, caller_pc);
}

int ParallelBarrier(int task_id, TVMParallelGroupEnv* penv) {
  if (!penv || !penv->sync_handle || task_id < 0 || task_id >= penv->num_task) {
    SetLastError(ErrorCode::kInvalidArgument, "TVMBackendParallelBarrier: called outside a parallel launch");
    return -1;
  }
  static_cast<Barrier*>(penv->sync_handle)->Wait();
  return 0;
}

}  // namespace aotrt
