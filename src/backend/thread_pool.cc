#include "backend/thread_pool.h"

#include <atomic>
#include <condition_variable>
#include <cstdlib>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include <pthread.h>

#include "base/error_util.h"
#include "memory/guard_call.h"
#include "base/last_error.h"

namespace aotrt {
namespace {

constexpr int kMaxTasks = kMaxParallelTasks;
constexpr int kSpinIterations = 20000;

inline void CpuRelax() {
#if defined(__x86_64__) || defined(__i386__)
  __builtin_ia32_pause();
#elif defined(__aarch64__)
  asm volatile("yield");
#endif
}

thread_local bool t_in_task = false;

// Which thread runs a launch now and from where in the model it was launched (the profiler's
// attribution of the launch's wall time to its operator); written under the launch lock.
std::atomic<uintptr_t> g_launch_owner{0};
std::atomic<uintptr_t> g_launch_caller{0};

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
    for (int spins = 0; generation.load(std::memory_order_acquire) == gen; ++spins) {
      if (spins < kSpinIterations) {
        CpuRelax();
      } else {
        std::this_thread::yield();
      }
    }
  }
};

class Pool {
 public:
  ~Pool() {
    {
      std::lock_guard<std::mutex> lock(wake_mu_);
      shutdown_ = true;
    }
    wake_cv_.notify_all();
    for (auto& t : threads_) t.join();
  }

  int Launch(FTVMParallelLambda f, void* cdata, int num_task, const void* caller_pc) {
    if (t_in_task) {
      SetLastError(ErrorCode::kInvalidArgument, "TVMBackendParallelLaunch: nested parallel launch from inside a task");
      return -1;
    }
    if (num_task == 0) num_task = DefaultNumThreads();
    if (num_task < 0 || num_task > kMaxTasks) {
      SetLastError(ErrorCode::kInvalidArgument,
                   StrCat("TVMBackendParallelLaunch: num_task ", num_task, " not in [0, ", kMaxTasks, "]"));
      return -1;
    }
    std::lock_guard<std::mutex> launch_lock(launch_mu_);
    LaunchMark mark(caller_pc);
    try {
      EnsureWorkers(num_task - 1);
    } catch (const std::exception& e) {
      SetLastError(ErrorCode::kOutOfMemory, StrCat("TVMBackendParallelLaunch: cannot start worker threads: ", e.what()));
      return -1;
    }
    f_ = f;
    cdata_ = cdata;
    num_task_ = num_task;
    barrier_.num_task = num_task;
    for (int i = 0; i < num_task; ++i) results_[i] = 0;
    pending_.store(static_cast<int>(threads_.size()), std::memory_order_relaxed);
    {
      std::lock_guard<std::mutex> lock(wake_mu_);
      generation_.fetch_add(1, std::memory_order_release);
    }
    wake_cv_.notify_all();
    RunTask(0);
    for (int spins = 0; pending_.load(std::memory_order_acquire) != 0; ++spins) {
      if (spins < kSpinIterations) {
        CpuRelax();
      } else {
        std::unique_lock<std::mutex> lock(done_mu_);
        done_cv_.wait(lock, [&] { return pending_.load(std::memory_order_acquire) == 0; });
      }
    }
    // The launch fails with the first failed task's code (kModelError when it set none).
    std::string errors;
    ErrorCode code = ErrorCode::kOk;
    for (int i = 0; i < num_task; ++i) {
      if (results_[i] == 0) continue;
      if (code == ErrorCode::kOk) code = codes_[i];
      errors += StrCat(errors.empty() ? "" : "\n", "Task ", i, " error: ", messages_[i]);
    }
    if (code == ErrorCode::kOk) return 0;
    SetLastError(code, errors);
    return -1;
  }

 private:
  // Publishes (this thread, caller_pc) for the launch's duration.
  struct LaunchMark {
    explicit LaunchMark(const void* caller_pc) {
      g_launch_caller.store(reinterpret_cast<uintptr_t>(caller_pc), std::memory_order_relaxed);
      g_launch_owner.store(static_cast<uintptr_t>(pthread_self()), std::memory_order_relaxed);
    }
    ~LaunchMark() { g_launch_owner.store(0, std::memory_order_relaxed); }
  };

  // Runs on workers too: nothing may escape it (an exception would end the thread, and the
  // process with it). A task that throws fails with its exception as the task's error.
  void RunTask(int task_id) noexcept {
    TVMParallelGroupEnv env{&barrier_, num_task_};
    t_in_task = true;
    uint64_t before = LastErrorSequence();
    int rc = GuardBackendCall(-1, "parallel task", [&] { return f_(task_id, &env, cdata_); });
    t_in_task = false;
    results_[task_id] = rc;
    if (rc == 0) return;
    codes_[task_id] = LastErrorRecordedSince(before) ? LastErrorCode() : ErrorCode::kModelError;
    try {
      const char* msg = LastErrorMessageSince(before);
      messages_[task_id] = msg ? msg : StrCat("returned ", rc);
    } catch (...) {
      messages_[task_id].clear();  // no memory for the text: the code still tells what happened
      codes_[task_id] = ErrorCode::kOutOfMemory;
    }
  }

  void EnsureWorkers(int n) {
    if (static_cast<int>(results_.size()) < n + 1) {
      results_.resize(n + 1);
      messages_.resize(n + 1);
      codes_.resize(n + 1);
    }
    while (static_cast<int>(threads_.size()) < n) {
      int index = static_cast<int>(threads_.size()) + 1;
      // The generation is read here, not in the thread, so a late-starting worker still sees the
      // launch that created it as new.
      uint64_t start = generation_.load(std::memory_order_acquire);
      threads_.emplace_back([this, index, start] { WorkerLoop(index, start); });
    }
  }

  void WorkerLoop(int task_id, uint64_t seen) {
    while (true) {
      int spins = 0;
      while (generation_.load(std::memory_order_acquire) == seen && spins < kSpinIterations) {
        CpuRelax();
        ++spins;
      }
      if (generation_.load(std::memory_order_acquire) == seen) {
        std::unique_lock<std::mutex> lock(wake_mu_);
        wake_cv_.wait(lock, [&] { return shutdown_ || generation_.load(std::memory_order_acquire) != seen; });
        if (shutdown_) return;
      }
      seen = generation_.load(std::memory_order_acquire);
      if (task_id < num_task_) RunTask(task_id);
      if (pending_.fetch_sub(1, std::memory_order_acq_rel) == 1) {
        std::lock_guard<std::mutex> lock(done_mu_);
        done_cv_.notify_one();
      }
    }
  }

  std::mutex launch_mu_;
  std::vector<std::thread> threads_;
  std::vector<int> results_;
  std::vector<std::string> messages_;
  std::vector<ErrorCode> codes_;
  FTVMParallelLambda f_ = nullptr;
  void* cdata_ = nullptr;
  int num_task_ = 0;
  Barrier barrier_;
  std::atomic<uint64_t> generation_{0};
  std::atomic<int> pending_{0};
  std::mutex wake_mu_;
  std::condition_variable wake_cv_;
  bool shutdown_ = false;
  std::mutex done_mu_;
  std::condition_variable done_cv_;
};

Pool& GlobalPool() {
  static Pool pool;
  return pool;
}

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

void SetNumThreads(int n) { g_num_threads.store(n > 0 && n <= kMaxTasks ? n : 0, std::memory_order_relaxed); }

void SetEnvironmentNumThreads(int n) {
  g_env_num_threads.store(n > 0 && n <= kMaxTasks ? n : 0, std::memory_order_relaxed);
}

uintptr_t ParallelLaunchCallerOf(uintptr_t self) {
  if (self == 0 || g_launch_owner.load(std::memory_order_relaxed) != self) return 0;
  return g_launch_caller.load(std::memory_order_relaxed);
}

int ParallelLaunch(FTVMParallelLambda f, void* cdata, int num_task, const void* caller_pc) {
  if (!f) {
    SetLastError(ErrorCode::kInvalidArgument, "TVMBackendParallelLaunch: null task function");
    return -1;
  }
  return GlobalPool().Launch(f, cdata, num_task, caller_pc);
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
