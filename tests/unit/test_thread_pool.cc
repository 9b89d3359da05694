#include <gtest/gtest.h>

#include <atomic>
#include <cstdlib>
#include <mutex>
#include <new>
#include <stdexcept>
#include <set>
#include <string>
#include <thread>

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

TEST(ThreadPool, LaunchesFromSeveralThreadsAreSerialised) {
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
