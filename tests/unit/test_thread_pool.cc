#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <cstdlib>
#include <mutex>
#include <new>
#include <stdexcept>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include <sys/wait.h>
#include <unistd.h>

#include <tvm/runtime/c_backend_api.h>

#include "aotrt/c_api.h"
#include "aotrt/error.h"
#include "backend/thread_pool.h"

namespace {

struct Record {
  std::mutex mu;
  std::set<int> ids;
  std::set<std::thread::id> threads;
  int num_task = -1;
};

int RecordTask(int task_id, TVMParallelGroupEnv* env, void* cdata) {
  auto* r = static_cast<Record*>(cdata);
  std::lock_guard<std::mutex> lock(r->mu);
  r->ids.insert(task_id);
  r->threads.insert(std::this_thread::get_id());
  r->num_task = env->num_task;
  return 0;
}

// Waits until `flag` is set; false after 30 s (a launch that should run at the same time did not:
// the test fails instead of hanging).
bool WaitFor(const std::atomic<bool>& flag) {
  for (int i = 0; i < 30000 && !flag.load(); ++i) std::this_thread::sleep_for(std::chrono::milliseconds(1));
  return flag.load();
}

}  // namespace

TEST(ThreadPool, RunsEveryTaskConcurrentlyWithCallerAsTaskZero) {
  Record r;
  ASSERT_EQ(TVMBackendParallelLaunch(RecordTask, &r, 4), 0) << TVMGetLastError();
  EXPECT_EQ(r.ids, (std::set<int>{0, 1, 2, 3}));
  EXPECT_EQ(r.num_task, 4);
  EXPECT_EQ(r.threads.size(), 4u);
  EXPECT_TRUE(r.threads.count(std::this_thread::get_id()));
}

TEST(ThreadPool, ZeroMeansDefaultThreadCount) {
  Record r;
  ASSERT_EQ(TVMBackendParallelLaunch(RecordTask, &r, 0), 0);
  EXPECT_EQ(r.num_task, aotrt::DefaultNumThreads());
  EXPECT_EQ(static_cast<int>(r.ids.size()), aotrt::DefaultNumThreads());
}

TEST(ThreadPool, BarrierSeparatesPhases) {
  struct Phases {
    std::atomic<int> first{0};
    std::atomic<int> violations{0};
  } p;
  auto task = [](int task_id, TVMParallelGroupEnv* env, void* cdata) {
    auto* ph = static_cast<Phases*>(cdata);
    for (int round = 0; round < 50; ++round) {
      ph->first.fetch_add(1);
      if (TVMBackendParallelBarrier(task_id, env) != 0) return -1;
      if (ph->first.load() != (round + 1) * env->num_task) ph->violations.fetch_add(1);
      if (TVMBackendParallelBarrier(task_id, env) != 0) return -1;
    }
    return 0;
  };
  ASSERT_EQ(TVMBackendParallelLaunch(task, &p, 3), 0) << TVMGetLastError();
  EXPECT_EQ(p.violations.load(), 0);
  EXPECT_EQ(p.first.load(), 150);
}

TEST(ThreadPool, TaskErrorsAreReportedPerTask) {
  auto task = [](int task_id, TVMParallelGroupEnv*, void*) {
    if (task_id == 1) {
      TVMAPISetLastError("task one broke");
      return -1;
    }
    return 0;
  };
  EXPECT_EQ(TVMBackendParallelLaunch(task, nullptr, 2), -1);
  EXPECT_STREQ(TVMGetLastError(), "Task 1 error: task one broke");
  // The pool keeps working afterwards.
  Record r;
  EXPECT_EQ(TVMBackendParallelLaunch(RecordTask, &r, 2), 0);
}

TEST(ThreadPool, NestedLaunchIsAnErrorNotADeadlock) {
  auto outer = [](int, TVMParallelGroupEnv*, void*) {
    Record r;
    return TVMBackendParallelLaunch(RecordTask, &r, 2);
  };
  EXPECT_EQ(TVMBackendParallelLaunch(outer, nullptr, 2), -1);
  EXPECT_NE(std::string(TVMGetLastError()).find("nested parallel launch"), std::string::npos);
}

TEST(ThreadPool, LaunchesFromSeveralThreadsAllComplete) {
  std::atomic<int> failures{0};
  std::vector<std::thread> threads;
  for (int t = 0; t < 3; ++t) {
    threads.emplace_back([&] {
      for (int i = 0; i < 100; ++i) {
        Record r;
        if (TVMBackendParallelLaunch(RecordTask, &r, 2) != 0 || r.ids.size() != 2) failures++;
      }
    });
  }
  for (auto& t : threads) t.join();
  EXPECT_EQ(failures.load(), 0);
}

// A task is a C function pointer, but C++ can stand behind it: its exception must fail the
// launch with the exception's code, on the caller's thread and on a worker, never end a thread.
TEST(ThreadPool, TaskThatThrowsFailsTheLaunchInsteadOfEndingTheThread) {
  auto task = [](int task_id, TVMParallelGroupEnv*, void*) -> int {
    if (task_id == 1) throw std::bad_alloc();
    if (task_id == 2) throw aotrt::Error(aotrt::ErrorCode::kShapeMismatch, "task two shape");
    return 0;
  };
  ASSERT_EQ(TVMBackendParallelLaunch(task, nullptr, 3), -1);
  EXPECT_EQ(AOTRTGetLastErrorCode(), static_cast<int>(aotrt::ErrorCode::kOutOfMemory));
  std::string msg = TVMGetLastError();
  EXPECT_NE(msg.find("Task 1 error: parallel task: out of memory"), std::string::npos) << msg;
  EXPECT_NE(msg.find("Task 2 error: task two shape"), std::string::npos) << msg;
  auto task0 = [](int task_id, TVMParallelGroupEnv*, void*) -> int {
    if (task_id == 0) throw std::runtime_error("caller's task");
    return 0;
  };
  ASSERT_EQ(TVMBackendParallelLaunch(task0, nullptr, 2), -1);
  EXPECT_EQ(AOTRTGetLastErrorCode(), static_cast<int>(aotrt::ErrorCode::kInternal));
  EXPECT_NE(std::string(TVMGetLastError()).find("caller's task"), std::string::npos);
  Record r;
  EXPECT_EQ(TVMBackendParallelLaunch(RecordTask, &r, 3), 0) << TVMGetLastError();
}

TEST(ThreadPool, BadArguments) {
  EXPECT_EQ(TVMBackendParallelLaunch(nullptr, nullptr, 2), -1);
  EXPECT_EQ(TVMBackendParallelLaunch(RecordTask, nullptr, -3), -1);
  EXPECT_EQ(TVMBackendParallelBarrier(0, nullptr), -1);
}

// Two launches with a barrier, from two threads, each of whose tasks waits for the other launch to
// have started: they can only finish if the launches run at the same time.
TEST(ThreadPool, LaunchesFromTwoThreadsRunConcurrently) {
  struct Shared {
    std::atomic<bool> started[2] = {{false}, {false}};
    std::atomic<int> failures{0};
  } shared;
  struct Arg {
    Shared* shared;
    int self;
  };
  auto task = [](int task_id, TVMParallelGroupEnv* env, void* cdata) {
    auto* a = static_cast<Arg*>(cdata);
    a->shared->started[a->self] = true;
    if (!WaitFor(a->shared->started[1 - a->self])) a->shared->failures++;
    return TVMBackendParallelBarrier(task_id, env);
  };
  Arg args[2] = {{&shared, 0}, {&shared, 1}};
  int rc[2] = {-1, -1};
  std::thread other([&] { rc[1] = TVMBackendParallelLaunch(task, &args[1], 2); });
  rc[0] = TVMBackendParallelLaunch(task, &args[0], 2);
  other.join();
  EXPECT_EQ(rc[0], 0);
  EXPECT_EQ(rc[1], 0);
  EXPECT_EQ(shared.failures.load(), 0);
}

// Thread B's launch cannot finish before thread A's has: A's must not wait for B's.
TEST(ThreadPool, LaunchDoesNotWaitForAnotherThreadsLaunch) {
  static std::atomic<bool> b_running{false}, a_done{false};
  static std::atomic<int> b_failures{0};
  b_running = a_done = false;
  auto slow = [](int, TVMParallelGroupEnv*, void*) {
    b_running = true;
    if (!WaitFor(a_done)) b_failures++;
    return 0;
  };
  int b_rc = -1;
  std::thread b([&] { b_rc = TVMBackendParallelLaunch(slow, nullptr, 2); });
  ASSERT_TRUE(WaitFor(b_running));
  Record r0, r2;
  EXPECT_EQ(TVMBackendParallelLaunch(RecordTask, &r0, 0), 0) << TVMGetLastError();
  EXPECT_EQ(TVMBackendParallelLaunch(RecordTask, &r2, 2), 0) << TVMGetLastError();
  a_done = true;
  b.join();
  EXPECT_EQ(b_rc, 0);
  EXPECT_EQ(b_failures.load(), 0);
  EXPECT_GE(r0.ids.size(), 1u);  // num_task 0: what the idle workers can serve, at least the caller
  EXPECT_EQ(r2.ids, (std::set<int>{0, 1}));
}

TEST(ThreadPool, ThreadLimitSetsTheCountOfZeroTaskLaunches) {
  for (int limit : {1, 2, 3}) {
    aotrt::ScopedThreadLimit scope(limit);
    Record r;
    ASSERT_EQ(TVMBackendParallelLaunch(RecordTask, &r, 0), 0) << TVMGetLastError();
    EXPECT_EQ(r.num_task, limit);
    EXPECT_EQ(static_cast<int>(r.ids.size()), limit);
    Record explicit_count;  // the code's own count is not limited
    ASSERT_EQ(TVMBackendParallelLaunch(RecordTask, &explicit_count, 4), 0) << TVMGetLastError();
    EXPECT_EQ(explicit_count.ids.size(), 4u);
  }
  {
    aotrt::ScopedThreadLimit outer(3);
    {
      aotrt::ScopedThreadLimit inner(1);
      Record r;
      ASSERT_EQ(TVMBackendParallelLaunch(RecordTask, &r, 0), 0);
      EXPECT_EQ(r.num_task, 1);
    }
    Record r;
    ASSERT_EQ(TVMBackendParallelLaunch(RecordTask, &r, 0), 0);
    EXPECT_EQ(r.num_task, 3);
  }
  Record r;
  ASSERT_EQ(TVMBackendParallelLaunch(RecordTask, &r, 0), 0);
  EXPECT_EQ(r.num_task, aotrt::DefaultNumThreads());
  aotrt::ScopedThreadLimit out_of_range(-2);  // the default
  ASSERT_EQ(TVMBackendParallelLaunch(RecordTask, &r, 0), 0);
  EXPECT_EQ(r.num_task, aotrt::DefaultNumThreads());
}

// Requests running at the same time share the default count: with 4 threads and two requests,
// a launch gets 2. A request counts from its first launch of num_task 0.
TEST(ThreadPool, ConcurrentRequestsShareTheDefaultCount) {
  aotrt::SetNumThreads(4);
  std::atomic<bool> entered{false}, done{false};
  std::thread other([&] {
    aotrt::ScopedThreadLimit request(0);
    Record r;
    EXPECT_EQ(TVMBackendParallelLaunch(RecordTask, &r, 0), 0);
    EXPECT_EQ(r.num_task, 4);  // alone so far
    entered = true;
    WaitFor(done);
  });
  ASSERT_TRUE(WaitFor(entered));
  {
    aotrt::ScopedThreadLimit request(0);
    Record r;
    EXPECT_EQ(TVMBackendParallelLaunch(RecordTask, &r, 0), 0);
    EXPECT_EQ(r.num_task, 2);
  }
  done = true;
  other.join();
  aotrt::ScopedThreadLimit alone(0);
  Record r;
  EXPECT_EQ(TVMBackendParallelLaunch(RecordTask, &r, 0), 0);
  EXPECT_EQ(r.num_task, 4);
  aotrt::SetNumThreads(0);
}

TEST(ThreadPool, NestedLaunchFromAWorkerIsAnError) {
  static std::atomic<int> nested_rc{0};
  auto outer = [](int task_id, TVMParallelGroupEnv*, void*) {
    if (task_id == 1) {
      Record r;
      nested_rc = TVMBackendParallelLaunch(RecordTask, &r, 0);
      return nested_rc.load();
    }
    return 0;
  };
  EXPECT_EQ(TVMBackendParallelLaunch(outer, nullptr, 2), -1);
  EXPECT_EQ(nested_rc.load(), -1);
  EXPECT_NE(std::string(TVMGetLastError()).find("Task 1 error: TVMBackendParallelLaunch: nested parallel launch"),
            std::string::npos)
      << TVMGetLastError();
}

// The pool's workers are the parent's threads: a child forked after launches exits normally
// (exit() runs the pool's destructor, which must not join threads the child does not have).
TEST(ThreadPool, AForkedChildExitsNormallyAfterTheParentLaunched) {
  Record r;
  ASSERT_EQ(TVMBackendParallelLaunch(RecordTask, &r, 4), 0);
  pid_t pid = fork();
  ASSERT_GE(pid, 0);
  if (pid == 0) std::exit(0);
  int status = 0;
  ASSERT_EQ(waitpid(pid, &status, 0), pid);
  EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << "child status " << status;
}
