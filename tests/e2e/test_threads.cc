// Executors on different threads run concurrently without locks (run this under TSan too).
#include <gtest/gtest.h>

#include <atomic>
#include <thread>

#include "common/expect_error.h"
#include "common/run_case.h"

using namespace aotrt;
using namespace aotrt_test;

TEST(Threads, ExecutorPerThreadOnOneModel) {
  for (const char* name : {"multi_io_c", "usmp_both_llvm", "big_params"}) {
    Case c = GeneratedCase(name);
    Model m = Model::Load(c.library);
    std::atomic<int> mismatches{0};
    std::vector<std::thread> threads;
    for (int t = 0; t < 4; ++t) {
      threads.emplace_back([&] {
        Executor ex = m.CreateExecutor();
        SetCaseInputs(c, ex);
        for (int i = 0; i < 50; ++i) {
          ex.Run();
          for (size_t o = 0; o < c.expected.size(); ++o) {
            if (!BytesEqual(ex.GetOutput(o), c.expected[o])) mismatches++;
          }
        }
      });
    }
    for (auto& t : threads) t.join();
    EXPECT_EQ(mismatches.load(), 0) << name;
  }
}

// A model whose operators launch parallel tasks, run by executors on three threads at once, with
// their own thread counts: the launches overlap (no pool-wide lock) and every output is exact.
TEST(Threads, ParallelOperatorsOfExecutorsOnSeveralThreads) {
  Case c = GeneratedCase("profile_costs_parallel_llvm");
  Model m = Model::Load(c.library);
  std::atomic<int> mismatches{0};
  std::vector<std::thread> threads;
  for (int num_threads : {0, 1, 2}) {
    threads.emplace_back([&, num_threads] {
      ExecutorOptions o;
      o.num_threads = num_threads;
      Executor ex = m.CreateExecutor(DLDevice{kDLCPU, 0}, o);
      SetCaseInputs(c, ex);
      for (int i = 0; i < 50; ++i) {
        ex.Run();
        for (size_t k = 0; k < c.expected.size(); ++k) {
          if (!BytesEqual(ex.GetOutput(k), c.expected[k])) mismatches++;
        }
      }
    });
  }
  for (auto& t : threads) t.join();
  EXPECT_EQ(mismatches.load(), 0);
  ExecutorOptions bad;
  bad.num_threads = -1;
  EXPECT_AOTRT_ERROR(m.CreateExecutor(DLDevice{kDLCPU, 0}, bad), ErrorCode::kInvalidArgument, {"num_threads is -1", "[1, 1024]"});
}

TEST(Threads, LoadAndCreateConcurrently) {
  std::atomic<int> failures{0};
  std::vector<std::thread> threads;
  for (int t = 0; t < 4; ++t) {
    threads.emplace_back([&, t] {
      Case c = GeneratedCase(t % 2 ? "clash_a" : "clash_b");
      for (int i = 0; i < 10; ++i) {
        Executor ex = Model::Load(c.library).CreateExecutor();
        SetCaseInputs(c, ex);
        ex.Run();
        if (!BytesEqual(ex.GetOutput(0), c.expected[0])) failures++;
      }
    });
  }
  for (auto& t : threads) t.join();
  EXPECT_EQ(failures.load(), 0);
}
