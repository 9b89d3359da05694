// Executors on different threads run concurrently without locks (run this under TSan too).
#include <gtest/gtest.h>

#include <atomic>
#include <thread>

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
