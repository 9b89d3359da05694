// Profiling: statistics (pure), TVM's time evaluator contract (ABI.md 9) with fake packed
// functions, Benchmark(), and the globals runtime.RPCTimeEvaluator, cache_flush_cpu_non_first_arg
// and aotrt.profiling.Benchmark.
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <climits>
#include <cmath>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include <nlohmann/json.hpp>

#include "aotrt/error.h"
#include "aotrt/model.h"
#include "aotrt/module.h"
#include "aotrt/ndarray.h"
#include "aotrt/profiling.h"
#include "profiling/internal.h"

using namespace aotrt;

namespace {

const DLDevice kCpu{kDLCPU, 0};
const TVMArgs kNoArgs(nullptr, nullptr, 0);

// A packed function counting its calls, optionally sleeping in each.
struct Counter {
  std::shared_ptr<std::atomic<int>> calls = std::make_shared<std::atomic<int>>(0);
  PackedFunc Func(std::chrono::microseconds sleep = std::chrono::microseconds(0)) const {
    auto c = calls;
    return PackedFunc([c, sleep](TVMArgs, TVMRetValue*) {
      ++*c;
      if (sleep.count() > 0) std::this_thread::sleep_for(sleep);
    });
  }
  int Take() { return calls->exchange(0); }
};

ErrorCode CodeOf(const std::function<void()>& f, std::string* message = nullptr) {
  try {
    f();
  } catch (const Error& e) {
    if (message) *message = e.what();
    return e.code();
  }
  return ErrorCode::kOk;
}

std::vector<double> CallTimer(const PackedFunc& timer, TVMArgs args = kNoArgs) {
  TVMRetValue rv;
  timer.CallPacked(args, &rv);
  EXPECT_EQ(rv.type_code(), kTVMBytes);
  return ParseTimes(rv.str());
}

TimeEvaluatorOptions Opt(int number, int repeat, int min_repeat_ms = 0) {
  TimeEvaluatorOptions o;
  o.number = number;
  o.repeat = repeat;
  o.min_repeat_ms = min_repeat_ms;
  return o;
}

}  // namespace

// ---------------------------------------------------------------------------------------------
// Statistics

TEST(ProfilingStats, PercentileInterpolatesLinearlyLikeNumpy) {
  std::vector<double> s{1, 2, 3, 4};
  EXPECT_DOUBLE_EQ(PercentileSorted(s, 0), 1.0);
  EXPECT_DOUBLE_EQ(PercentileSorted(s, 100), 4.0);
  EXPECT_DOUBLE_EQ(PercentileSorted(s, 50), 2.5);   // np.percentile([1,2,3,4], 50)
  EXPECT_DOUBLE_EQ(PercentileSorted(s, 90), 3.7);   // pos 2.7
  EXPECT_DOUBLE_EQ(PercentileSorted(s, 25), 1.75);  // pos 0.75
  EXPECT_DOUBLE_EQ(PercentileSorted({7.0}, 99.9), 7.0);
  EXPECT_EQ(CodeOf([] { PercentileSorted({}, 50); }), ErrorCode::kInvalidArgument);
  EXPECT_EQ(CodeOf([] { PercentileSorted({1.0}, 100.5); }), ErrorCode::kInvalidArgument);
  EXPECT_EQ(CodeOf([] { PercentileSorted({1.0}, -1); }), ErrorCode::kInvalidArgument);
}

TEST(ProfilingStats, ComputeStatsMatchesHandComputedValues) {
  BenchmarkStats s;
  s.samples = {4, 1, 3, 2, 10};  // sorted: 1 2 3 4 10, mean 4
  ComputeStats(&s);
  EXPECT_DOUBLE_EQ(s.min, 1);
  EXPECT_DOUBLE_EQ(s.max, 10);
  EXPECT_DOUBLE_EQ(s.mean, 4);
  EXPECT_DOUBLE_EQ(s.median, 3);
  EXPECT_DOUBLE_EQ(s.p50, 3);
  EXPECT_DOUBLE_EQ(s.std, std::sqrt(10.0));  // population: (9+4+1+0+36)/5 = 10
  EXPECT_NEAR(s.p90, 7.6, 1e-12);           // pos 3.6: 4 + 0.6*6
  EXPECT_NEAR(s.p99, 9.76, 1e-12);          // pos 3.96
  EXPECT_NEAR(s.p999, 9.976, 1e-12);        // pos 3.996
  EXPECT_EQ(s.samples, (std::vector<double>{4, 1, 3, 2, 10}));  // order kept
}

TEST(ProfilingStats, EmptySamplesGiveZeros) {
  BenchmarkStats s;
  s.min = 5;
  ComputeStats(&s);
  EXPECT_EQ(s.min, 0);
  EXPECT_EQ(s.p999, 0);
}

TEST(ProfilingStats, JsonHasTheKeysThePythonPackageReads) {
  BenchmarkStats s;
  s.samples = {0.001, 0.003};
  s.repeats = {0.002};
  s.number = 2;
  s.repeat = 1;
  ComputeStats(&s);
  nlohmann::json j = nlohmann::json::parse(BenchmarkStatsToJson(s));
  for (const char* key : {"samples", "repeats", "min", "max", "mean", "median", "std", "p50", "p90", "p99", "p999",
                          "number", "repeat"}) {
    EXPECT_TRUE(j.contains(key)) << key;
  }
  EXPECT_EQ(j["samples"].get<std::vector<double>>(), s.samples);  // %.17g round-trips
  EXPECT_DOUBLE_EQ(j["mean"].get<double>(), 0.002);
  EXPECT_EQ(j["number"].get<int>(), 2);
  EXPECT_EQ(j["repeat"].get<int>(), 1);
}

TEST(ProfilingStats, GrowNumberFollowsTvm) {
  using profiling_internal::GrowNumber;
  EXPECT_EQ(GrowNumber(1, 20, 1.0), 21);     // max(20/1 + 1, 1.618)
  EXPECT_EQ(GrowNumber(10, 0, 5.0), 16);     // max(1, 16.18)
  EXPECT_EQ(GrowNumber(4, 100, 2.0), 201);   // max(100/0.5 + 1, 6.47)
  EXPECT_EQ(GrowNumber(INT_MAX / 2, 1000000, 1e-9), INT_MAX);  // saturates instead of overflowing
}

// ---------------------------------------------------------------------------------------------
// Time evaluator

TEST(TimeEvaluator, WarmUpThenNumberTimesRepeatCalls) {
  Counter c;
  PackedFunc timer = WrapTimeEvaluator(c.Func(), kCpu, Opt(3, 4));
  std::vector<double> times = CallTimer(timer);
  EXPECT_EQ(c.Take(), 1 + 3 * 4);
  ASSERT_EQ(times.size(), 4u);
  for (double t : times) EXPECT_GE(t, 0.0);
}

TEST(TimeEvaluator, ResultIsEightBytesPerRepeat) {
  Counter c;
  for (int repeat : {0, 1, 7}) {
    TVMRetValue rv;
    WrapTimeEvaluator(c.Func(), kCpu, Opt(1, repeat)).CallPacked(kNoArgs, &rv);
    EXPECT_EQ(rv.type_code(), kTVMBytes);
    EXPECT_EQ(rv.str().size(), 8u * repeat);
  }
  EXPECT_EQ(CodeOf([] { ParseTimes(std::string(9, '\0')); }), ErrorCode::kFormatError);
}

TEST(TimeEvaluator, ArgumentsArePassedThrough) {
  auto seen = std::make_shared<std::vector<int64_t>>();
  PackedFunc f([seen](TVMArgs args, TVMRetValue*) { seen->push_back(args[0].AsInt()); });
  TVMValue v;
  v.v_int64 = 42;
  int code = kTVMArgInt;
  CallTimer(WrapTimeEvaluator(f, kCpu, Opt(2, 1)), TVMArgs(&v, &code, 1));
  EXPECT_EQ(*seen, (std::vector<int64_t>{42, 42, 42}));
}

TEST(TimeEvaluator, NumberGrowsUntilMinRepeatMsAndPersistsAcrossCalls) {
  Counter c;
  // Each call sleeps 2 ms; a measurement must last >= 10 ms. First call: warm-up, one attempt of
  // 1 call, then number = int(10 / t + 1) (5 when t < 2.5 ms) for both repeats.
  PackedFunc timer = WrapTimeEvaluator(c.Func(std::chrono::microseconds(2000)), kCpu, Opt(1, 2, 10));
  std::vector<double> first = CallTimer(timer);
  ASSERT_EQ(first.size(), 2u);
  for (double t : first) EXPECT_GE(t, 1.9e-3);  // a mean per call (sleep_for lasts at least 2 ms)
  int first_calls = c.Take();
  // The counts below follow from number = int(10 / t + 1) with t just over 2 ms. On an overloaded
  // machine sleep_for overshoots, t grows past 2.5 ms and the counts are no longer determined.
  if (first[0] > 2.5e-3 || first[1] > 2.5e-3) {
    GTEST_SKIP() << "sleep_for(2 ms) took " << first[0] * 1e3 << " ms: machine too loaded to predict call counts";
  }
  EXPECT_GE(first_calls, 1 + 1 + 2 * 3);
  // Second call: `number` kept its grown value, so no 1-call attempt: fewer calls than the first
  // (TVM captures number by value in a mutable closure).
  CallTimer(timer);
  int second_calls = c.Take();
  EXPECT_LT(second_calls, first_calls);
  EXPECT_GE(second_calls, 1 + 2 * 3);
}

TEST(TimeEvaluator, ZeroTimeLimitEndsTheGrowthLoop) {
  // limit_zero_time_iterations = 0: `zero_count < limit` is false after the first attempt, so a
  // huge min_repeat_ms cannot keep the loop going (TVM's loop condition, ABI.md 9.2 b).
  Counter c;
  TimeEvaluatorOptions o = Opt(2, 3, 1000000);
  o.limit_zero_time_iterations = 0;
  CallTimer(WrapTimeEvaluator(c.Func(), kCpu, o));
  EXPECT_EQ(c.Take(), 1 + 2 * 3);  // one attempt per repeat: the loop did not go on
}

TEST(TimeEvaluator, PreprocIsCalledOncePerRepeatWithTheSameArguments) {
  Counter c;
  auto pre_calls = std::make_shared<std::vector<int64_t>>();
  PackedFunc pre([pre_calls](TVMArgs args, TVMRetValue*) { pre_calls->push_back(args[0].AsInt()); });
  TVMValue v;
  v.v_int64 = 7;
  int code = kTVMArgInt;
  CallTimer(WrapTimeEvaluator(c.Func(), kCpu, Opt(5, 3), pre), TVMArgs(&v, &code, 1));
  EXPECT_EQ(*pre_calls, (std::vector<int64_t>{7, 7, 7}));
  EXPECT_EQ(c.Take(), 1 + 5 * 3);
}

TEST(TimeEvaluator, CooldownSleepsAfterSelectedRepeats) {
  Counter c;
  TimeEvaluatorOptions o = Opt(1, 4);
  o.cooldown_interval_ms = 30;
  o.repeats_to_cooldown = 2;  // sleeps after r = 0 and r = 2
  auto start = std::chrono::steady_clock::now();
  CallTimer(WrapTimeEvaluator(c.Func(), kCpu, o));
  EXPECT_GE(std::chrono::steady_clock::now() - start, std::chrono::milliseconds(60));
}

TEST(TimeEvaluator, CacheFlushBytesStillTimesEveryRepeat) {
  Counter c;
  TimeEvaluatorOptions o = Opt(2, 2);
  o.cache_flush_bytes = 1 << 20;
  EXPECT_EQ(CallTimer(WrapTimeEvaluator(c.Func(), kCpu, o)).size(), 2u);
  EXPECT_EQ(c.Take(), 5);
}

TEST(TimeEvaluator, BadOptionsAndDevicesAreErrors) {
  Counter c;
  std::string msg;
  EXPECT_EQ(CodeOf([&] { WrapTimeEvaluator(c.Func(), kCpu, Opt(-1, 1)); }, &msg), ErrorCode::kInvalidArgument);
  EXPECT_NE(msg.find("number"), std::string::npos);
  EXPECT_EQ(CodeOf([&] { WrapTimeEvaluator(c.Func(), kCpu, Opt(0, 1)); }), ErrorCode::kInvalidArgument);
  EXPECT_EQ(CodeOf([&] { WrapTimeEvaluator(c.Func(), kCpu, Opt(1, -2)); }, &msg), ErrorCode::kInvalidArgument);
  EXPECT_NE(msg.find("repeat"), std::string::npos);
  EXPECT_EQ(CodeOf([&] { WrapTimeEvaluator(c.Func(), kCpu, Opt(1, 1, -5)); }), ErrorCode::kInvalidArgument);
  TimeEvaluatorOptions o = Opt(1, 2);
  o.cooldown_interval_ms = 1;
  o.repeats_to_cooldown = 0;  // TVM divides by zero here
  EXPECT_EQ(CodeOf([&] { WrapTimeEvaluator(c.Func(), kCpu, o); }, &msg), ErrorCode::kInvalidArgument);
  EXPECT_NE(msg.find("repeats_to_cooldown"), std::string::npos);
  o.cooldown_interval_ms = 0;  // no cooldown: repeats_to_cooldown is never used, as in TVM
  EXPECT_EQ(CodeOf([&] { WrapTimeEvaluator(c.Func(), kCpu, o); }), ErrorCode::kOk);
  EXPECT_EQ(CodeOf([&] { WrapTimeEvaluator(c.Func(), DLDevice{kDLROCM, 0}, Opt(1, 1)); }, &msg),
            ErrorCode::kInvalidArgument);
  EXPECT_NE(msg.find("no driver for rocm"), std::string::npos);
  EXPECT_EQ(CodeOf([&] { WrapTimeEvaluator(PackedFunc(), kCpu, Opt(1, 1)); }), ErrorCode::kInvalidArgument);
  EXPECT_EQ(c.Take(), 0);
}

TEST(TimeEvaluator, ErrorsOfTheTimedFunctionPropagate) {
  PackedFunc f([](TVMArgs, TVMRetValue*) { throw Error(ErrorCode::kModelError, "boom"); });
  std::string msg;
  EXPECT_EQ(CodeOf([&] { CallTimer(WrapTimeEvaluator(f, kCpu, Opt(1, 1))); }, &msg), ErrorCode::kModelError);
  EXPECT_EQ(msg, "boom");
}

TEST(TimeEvaluator, ModuleTimeEvaluatorResolvesGlobalsAndReportsMissingFunctions) {
  Counter c, pre;
  RegisterGlobalFunction("aotrt_test.profiling.f", c.Func(), true);
  RegisterGlobalFunction("aotrt_test.profiling.pre", pre.Func(), true);
  PackedFunc timer = TimeEvaluator(Module(), "aotrt_test.profiling.f", kCpu, 2, 3, 0, 100, 0, 1, 0,
                                            "aotrt_test.profiling.pre");
  EXPECT_EQ(CallTimer(timer).size(), 3u);
  EXPECT_EQ(c.Take(), 7);
  EXPECT_EQ(pre.Take(), 3);
  std::string msg;
  EXPECT_EQ(CodeOf([&] { TimeEvaluator(Module(), "aotrt_test.no_such_function", kCpu); }, &msg),
            ErrorCode::kNotFound);
  EXPECT_EQ(msg, "Cannot find aotrt_test.no_such_function in the module or global registry");
  EXPECT_EQ(CodeOf([&] { TimeEvaluator(Module(), "aotrt_test.profiling.f", kCpu, 1, 1, 0, 100, 0, 1, 0, "nope"); }),
            ErrorCode::kNotFound);
}

TEST(TimeEvaluator, OptionsOverloadTimesWhatTheOptionsSay) {
  Counter c;
  RegisterGlobalFunction("aotrt_test.profiling.opt", c.Func(), true);
  TimeEvaluatorOptions opt;
  opt.number = 4;
  opt.repeat = 5;
  EXPECT_EQ(CallTimer(TimeEvaluator(Module(), "aotrt_test.profiling.opt", kCpu, opt)).size(), 5u);
  EXPECT_EQ(c.Take(), 1 + 4 * 5);  // one warm-up call, then repeat x number
  opt.number = 0;
  EXPECT_EQ(CodeOf([&] { TimeEvaluator(Module(), "aotrt_test.profiling.opt", kCpu, opt); }),
            ErrorCode::kInvalidArgument);
}

TEST(TimeEvaluator, RpcTimeEvaluatorGlobalTakesTvmsTwelveArguments) {
  Counter c;
  RegisterGlobalFunction("aotrt_test.profiling.g", c.Func(), true);
  PackedFunc make = GetGlobalFunction("runtime.RPCTimeEvaluator");
  ASSERT_TRUE(static_cast<bool>(make));
  std::vector<TVMValue> v(12);
  std::vector<int> codes(12, kTVMArgInt);
  codes[0] = kTVMNullptr;
  v[0].v_handle = nullptr;
  codes[1] = kTVMStr;
  v[1].v_str = "aotrt_test.profiling.g";
  const int64_t ints[] = {kDLCPU, 0, /*number*/ 4, /*repeat*/ 2, 0, 100, 0, 1, 0};
  for (int i = 0; i < 9; ++i) v[2 + i].v_int64 = ints[i];
  codes[11] = kTVMStr;
  v[11].v_str = "";
  TVMRetValue rv;
  make.CallPacked(TVMArgs(v.data(), codes.data(), 12), &rv);
  ASSERT_EQ(rv.type_code(), kTVMPackedFuncHandle);
  PackedFunc timer(ObjectPtr<PackedFuncObj>(static_cast<PackedFuncObj*>(rv.object())));
  EXPECT_EQ(CallTimer(timer).size(), 2u);
  EXPECT_EQ(c.Take(), 1 + 4 * 2);

  // 10 and 11 arguments are older releases' layouts (test_tvm_releases.cc); 9 is none.
  EXPECT_EQ(CodeOf([&] { make.CallPacked(TVMArgs(v.data(), codes.data(), 9), &rv); }), ErrorCode::kInvalidArgument);
  v[2].v_int64 = kDLCUDA;
  EXPECT_EQ(CodeOf([&] { make.CallPacked(TVMArgs(v.data(), codes.data(), 12), &rv); }), ErrorCode::kInvalidArgument);
}

TEST(TimeEvaluator, CacheFlushGlobalSkipsTheFirstArgumentAndNonTensors) {
  PackedFunc flush = GetGlobalFunction("cache_flush_cpu_non_first_arg");
  ASSERT_TRUE(static_cast<bool>(flush));
  NDArray a = NDArray::Empty({1000}, DLDataType{kDLFloat, 32, 1});
  NDArray b = NDArray::Empty({3, 5}, DLDataType{kDLInt, 8, 1});
  static_cast<float*>(a.data())[999] = 1.5f;
  TVMValue v[4];
  int codes[4] = {kTVMArgInt, kTVMNDArrayHandle, kTVMStr, kTVMDLTensorHandle};
  v[0].v_int64 = 1;
  v[1].v_handle = a.handle();
  v[2].v_str = "not a tensor";
  v[3].v_handle = b.handle();
  TVMRetValue rv;
  flush.CallPacked(TVMArgs(v, codes, 4), &rv);
  EXPECT_EQ(static_cast<float*>(a.data())[999], 1.5f);  // flushing keeps the contents
}

TEST(TimeEvaluator, TimesTheRunFunctionOfARealExecutor) {
  Model model = Model::Load(std::string(AOTRT_TEST_MODELS_DIR) + "/add_llvm.so");
  Executor ex = model.CreateExecutor();
  std::vector<double> times = CallTimer(TimeEvaluator(ex.module(), "run", kCpu, 5, 3));
  ASSERT_EQ(times.size(), 3u);
  for (double t : times) EXPECT_GT(t, 0.0);
  std::string msg;
  EXPECT_EQ(CodeOf([&] { TimeEvaluator(ex.module(), "walk", kCpu); }, &msg), ErrorCode::kNotFound);
  EXPECT_EQ(msg, "Cannot find walk in the module or global registry");
}

// ---------------------------------------------------------------------------------------------
// Benchmark

TEST(Benchmark, KeepsEveryCallAsASample) {
  Counter c;
  BenchmarkOptions o;
  o.warmup = 2;
  o.number = 3;
  o.repeat = 4;
  std::vector<std::pair<int, int>> progress;
  o.progress = [&](int done, int total) { progress.emplace_back(done, total); };
  BenchmarkStats s = Benchmark(c.Func(), kNoArgs, o);
  EXPECT_EQ(c.Take(), 2 + 12);
  EXPECT_EQ(s.samples.size(), 12u);
  EXPECT_EQ(s.repeats.size(), 4u);
  EXPECT_EQ(s.number, 3);
  EXPECT_EQ(s.repeat, 4);
  EXPECT_EQ(progress, (std::vector<std::pair<int, int>>{{1, 4}, {2, 4}, {3, 4}, {4, 4}}));
  for (int r = 0; r < 4; ++r) {
    double mean = (s.samples[3 * r] + s.samples[3 * r + 1] + s.samples[3 * r + 2]) / 3;
    EXPECT_NEAR(s.repeats[r], mean, 1e-15);
  }
  EXPECT_LE(s.min, s.p50);
  EXPECT_LE(s.p50, s.p90);
  EXPECT_LE(s.p99, s.max);
}

TEST(Benchmark, SamplesMeasureEachCall) {
  Counter c;
  BenchmarkOptions o;
  o.warmup = 0;
  o.number = 2;
  o.repeat = 2;
  BenchmarkStats s = Benchmark(c.Func(std::chrono::microseconds(2000)), kNoArgs, o);
  for (double t : s.samples) EXPECT_GE(t, 1.9e-3);  // each call on its own: at least its 2 ms sleep
}

TEST(Benchmark, MinRepeatMsGrowsNumber) {
  Counter c;
  BenchmarkOptions o;
  o.warmup = 0;
  o.number = 1;
  o.repeat = 2;
  o.min_repeat_ms = 10;
  BenchmarkStats s = Benchmark(c.Func(std::chrono::microseconds(1000)), kNoArgs, o);
  // Grown past 1 (unless a 1 ms call took 10 ms); the exact value depends on the machine's timing.
  EXPECT_GE(s.number, 2);
  EXPECT_EQ(s.samples.size(), static_cast<size_t>(s.number) * 2);
}

TEST(Benchmark, OptionsAreValidatedAndErrorsPropagate) {
  Counter c;
  BenchmarkOptions o;
  o.number = 0;
  EXPECT_EQ(CodeOf([&] { Benchmark(c.Func(), kNoArgs, o); }), ErrorCode::kInvalidArgument);
  o = BenchmarkOptions();
  o.repeat = -1;
  EXPECT_EQ(CodeOf([&] { Benchmark(c.Func(), kNoArgs, o); }), ErrorCode::kInvalidArgument);
  o = BenchmarkOptions();
  o.number = 1 << 20;
  o.repeat = 1 << 10;  // 2^30 samples: over the cap
  EXPECT_EQ(CodeOf([&] { Benchmark(c.Func(), kNoArgs, o); }), ErrorCode::kInvalidArgument);
  EXPECT_EQ(c.Take(), 0);
  EXPECT_EQ(CodeOf([&] { Benchmark(PackedFunc(), kNoArgs, BenchmarkOptions()); }), ErrorCode::kInvalidArgument);
  PackedFunc bad([](TVMArgs, TVMRetValue*) { throw Error(ErrorCode::kModelError, "bad"); });
  EXPECT_EQ(CodeOf([&] { Benchmark(bad, kNoArgs, BenchmarkOptions()); }), ErrorCode::kModelError);
}

TEST(Benchmark, GlobalReturnsJson) {
  Counter c;
  RegisterGlobalFunction("aotrt_test.profiling.h", c.Func(), true);
  PackedFunc make = GetGlobalFunction("aotrt.profiling.Benchmark");
  ASSERT_TRUE(static_cast<bool>(make));
  TVMValue v[8];
  int codes[8] = {kTVMNullptr, kTVMStr, kTVMArgInt, kTVMArgInt, kTVMArgInt, kTVMArgInt, kTVMArgInt, kTVMArgInt};
  v[0].v_handle = nullptr;
  v[1].v_str = "aotrt_test.profiling.h";
  const int64_t ints[] = {/*warmup*/ 1, /*number*/ 2, /*repeat*/ 5, 0, 0, 0};
  for (int i = 0; i < 6; ++i) v[2 + i].v_int64 = ints[i];
  TVMRetValue rv;
  make.CallPacked(TVMArgs(v, codes, 8), &rv);
  ASSERT_EQ(rv.type_code(), kTVMPackedFuncHandle);
  PackedFunc bench(ObjectPtr<PackedFuncObj>(static_cast<PackedFuncObj*>(rv.object())));
  TVMRetValue out;
  bench.CallPacked(kNoArgs, &out);
  ASSERT_EQ(out.type_code(), kTVMStr);
  nlohmann::json j = nlohmann::json::parse(out.str());
  EXPECT_EQ(j["samples"].size(), 10u);
  EXPECT_EQ(j["repeats"].size(), 5u);
  EXPECT_EQ(j["number"].get<int>(), 2);
  EXPECT_EQ(j["repeat"].get<int>(), 5);
  EXPECT_EQ(c.Take(), 1 + 10);

  v[3].v_int64 = 0;  // number 0: rejected when the benchmark function is made
  EXPECT_EQ(CodeOf([&] { make.CallPacked(TVMArgs(v, codes, 8), &rv); }), ErrorCode::kInvalidArgument);
  v[3].v_int64 = 2;
  v[1].v_str = "aotrt_test.nothing";
  EXPECT_EQ(CodeOf([&] { make.CallPacked(TVMArgs(v, codes, 8), &rv); }), ErrorCode::kNotFound);
}
