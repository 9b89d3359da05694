// Unbounded waits (issue 12 item 5): absurd timing options are refused naming the option and the
// bound; an interrupt request stops a time evaluator (kInterrupted) or a benchmark (partial
// results) between calls and during cooldown. A broken interrupt shows as a test timeout.
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <memory>
#include <thread>

#include "aotrt/c_api.h"
#include "aotrt/profiling.h"
#include "common/expect_error.h"

using namespace aotrt;

namespace {

const DLDevice kCpu{kDLCPU, 0};
const TVMArgs kNoArgs(nullptr, nullptr, 0);

// A function that requests an interrupt on its `at`-th call.
PackedFunc InterruptAt(int at, std::shared_ptr<int> calls = std::make_shared<int>(0)) {
  return PackedFunc([at, calls](TVMArgs, TVMRetValue*) {
    if (++*calls == at) RequestInterrupt();
  });
}

struct InterruptTest : ::testing::Test {
  void SetUp() override { ClearInterrupt(); }
  void TearDown() override { ClearInterrupt(); }
};

TEST_F(InterruptTest, AbsurdOptionsAreRefusedNamingTheBound) {
  TimeEvaluatorOptions t;
  t.min_repeat_ms = kMaxTimingMs + 1;
  EXPECT_AOTRT_ERROR(ValidateTimeEvaluatorOptions(t), ErrorCode::kInvalidArgument,
                     {"time evaluator: min_repeat_ms must be <= 3600000, got 3600001"});
  t = TimeEvaluatorOptions();
  t.cooldown_interval_ms = 1 << 30;
  EXPECT_AOTRT_ERROR(ValidateTimeEvaluatorOptions(t), ErrorCode::kInvalidArgument, {"cooldown_interval_ms must be <= 3600000"});
  t = TimeEvaluatorOptions();
  t.number = kMaxTimingNumber + 1;
  EXPECT_AOTRT_ERROR(ValidateTimeEvaluatorOptions(t), ErrorCode::kInvalidArgument, {"number must be <= 1073741824"});
  t = TimeEvaluatorOptions();
  t.repeat = kMaxTimingRepeat + 1;
  EXPECT_AOTRT_ERROR(ValidateTimeEvaluatorOptions(t), ErrorCode::kInvalidArgument, {"repeat must be <= 1048576"});
  BenchmarkOptions b;
  b.cooldown_interval_ms = kMaxTimingMs + 1;
  EXPECT_AOTRT_ERROR(ValidateBenchmarkOptions(b), ErrorCode::kInvalidArgument,
                     {"benchmark: cooldown_interval_ms must be <= 3600000"});
  // WrapTimeEvaluator validates too (TVM's global goes through it: python_stubs/tests/test_misuse.py).
  t = TimeEvaluatorOptions();
  t.min_repeat_ms = 1 << 30;
  EXPECT_AOTRT_ERROR(WrapTimeEvaluator(PackedFunc([](TVMArgs, TVMRetValue*) {}), kCpu, t), ErrorCode::kInvalidArgument,
                     {"min_repeat_ms must be <= 3600000"});
}

TEST_F(InterruptTest, TimeEvaluatorGrowingForAnHourStopsOnRequest) {
  TimeEvaluatorOptions o;
  o.number = 1;
  o.repeat = 3;
  o.min_repeat_ms = kMaxTimingMs;  // number would grow for an hour per repeat
  PackedFunc timer = WrapTimeEvaluator(InterruptAt(1000), kCpu, o);
  EXPECT_AOTRT_ERROR(timer(), ErrorCode::kInterrupted, {"time evaluator: interrupted after 0 of 3 repeats"});
}

TEST_F(InterruptTest, TimeEvaluatorCooldownIsInterruptible) {
  TimeEvaluatorOptions o;
  o.number = 1;
  o.repeat = 2;
  o.cooldown_interval_ms = kMaxTimingMs;
  PackedFunc timer = WrapTimeEvaluator(PackedFunc([](TVMArgs, TVMRetValue*) {}), kCpu, o);
  std::thread ctrl_c([] {
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
    AOTRTSetInterrupt(1);  // as a SIGINT handler would
  });
  EXPECT_AOTRT_ERROR(timer(), ErrorCode::kInterrupted, {"interrupted after 1 of 2 repeats"});
  ctrl_c.join();
  AOTRTSetInterrupt(0);
  EXPECT_FALSE(InterruptRequested());
}

TEST_F(InterruptTest, BenchmarkReturnsTheRepeatsCompletedBeforeTheRequest) {
  BenchmarkOptions o;
  o.warmup = 0;
  o.number = 10;
  o.repeat = 1000;
  o.cooldown_interval_ms = 1;
  BenchmarkStats s = Benchmark(InterruptAt(25), kNoArgs, o);
  EXPECT_TRUE(s.interrupted);
  EXPECT_EQ(s.repeat, 2);  // the third repeat was cut short and is dropped
  EXPECT_EQ(s.samples.size(), 20u);
  EXPECT_EQ(s.repeats.size(), 2u);
  EXPECT_GT(s.max, 0.0);
  ClearInterrupt();
  s = Benchmark(InterruptAt(-1), kNoArgs, o);  // the request is withdrawn: a full run
  EXPECT_FALSE(s.interrupted);
  EXPECT_EQ(s.repeat, 1000);
}

}  // namespace
