// TVM's time evaluator (ABI.md 9): WrapTimeEvaluator, Module::TimeEvaluator, result parsing.
#include <algorithm>
#include <chrono>
#include <climits>
#include <cstring>

#include "aotrt/module.h"
#include "aotrt/ndarray.h"
#include "aotrt/profiling.h"
#include "base/error_util.h"
#include "profiling/internal.h"

namespace aotrt {

void ValidateTimeEvaluatorOptions(const TimeEvaluatorOptions& o) {
  using profiling_internal::RequireAtMost;
  AOTRT_REQUIRE(o.number >= 1, kInvalidArgument, "time evaluator: number must be >= 1, got ", o.number);
  RequireAtMost("time evaluator", "number", o.number, kMaxTimingNumber);
  RequireAtMost("time evaluator", "repeat", o.repeat, kMaxTimingRepeat);
  RequireAtMost("time evaluator", "min_repeat_ms", o.min_repeat_ms, kMaxTimingMs);
  RequireAtMost("time evaluator", "cooldown_interval_ms", o.cooldown_interval_ms, kMaxTimingMs);
  AOTRT_REQUIRE(o.repeat >= 0, kInvalidArgument, "time evaluator: repeat must be >= 0, got ", o.repeat);
  AOTRT_REQUIRE(o.min_repeat_ms >= 0, kInvalidArgument, "time evaluator: min_repeat_ms must be >= 0, got ",
                o.min_repeat_ms);
  AOTRT_REQUIRE(o.limit_zero_time_iterations >= 0, kInvalidArgument,
                "time evaluator: limit_zero_time_iterations must be >= 0, got ", o.limit_zero_time_iterations);
  AOTRT_REQUIRE(o.cooldown_interval_ms >= 0, kInvalidArgument,
                "time evaluator: cooldown_interval_ms must be >= 0, got ", o.cooldown_interval_ms);
  AOTRT_REQUIRE(o.cooldown_interval_ms == 0 || o.repeats_to_cooldown >= 1, kInvalidArgument,
                "time evaluator: repeats_to_cooldown must be >= 1 when cooldown_interval_ms > 0, got ",
                o.repeats_to_cooldown);
  AOTRT_REQUIRE(o.cache_flush_bytes >= 0, kInvalidArgument, "time evaluator: cache_flush_bytes must be >= 0, got ",
                o.cache_flush_bytes);
}

namespace profiling_internal {

void RequireAtMost(const char* what, const char* name, int64_t value, int64_t limit) {
  AOTRT_REQUIRE(value <= limit, kInvalidArgument, what, ": ", name, " must be <= ", limit, ", got ", value);
}

void RequireCpu(DLDevice dev, const char* what) {
  AOTRT_REQUIRE(DeviceTypeOf(dev) == kDLCPU, kInvalidArgument, what, ": only CPU devices (device_type ",
                static_cast<int>(kDLCPU), ") are supported, got device_type ", DeviceTypeOf(dev));
}

int GrowNumber(int number, int min_repeat_ms, double duration_ms) {
  constexpr double kGoldenRatio = 1.618;
  double grown = std::max(min_repeat_ms / (duration_ms / number) + 1, number * kGoldenRatio);
  // TVM casts unchecked; a cast of a double beyond INT_MAX is undefined, so saturate.
  return grown >= static_cast<double>(INT_MAX) ? INT_MAX : static_cast<int>(grown);
}

CacheFlusher::CacheFlusher(int bytes) {
  if (bytes <= 0) return;
  std::vector<int64_t> shape{bytes / 4};
  DLDataType i32{kDLInt, 32, 1};
  a_ = NDArray::Empty(shape, i32);
  b_ = NDArray::Empty(shape, i32);
}

void CacheFlusher::Flush() {
  if (a_.defined()) a_.CopyFrom(b_.tensor());
}

}  // namespace profiling_internal

namespace {

[[noreturn]] void Interrupted(int done, int repeat) {
  AOTRT_THROW(kInterrupted, "time evaluator: interrupted after ", done, " of ", repeat, " repeats");
}

}  // namespace

using profiling_internal::CacheFlusher;
using profiling_internal::GrowNumber;

PackedFunc WrapTimeEvaluator(PackedFunc f, DLDevice dev, const TimeEvaluatorOptions& opt, PackedFunc f_preproc) {
  AOTRT_REQUIRE(static_cast<bool>(f), kInvalidArgument, "time evaluator: the function to time is empty");
  profiling_internal::RequireCpu(dev, "time evaluator");
  ValidateTimeEvaluatorOptions(opt);
  int number = opt.number;  // mutable state of the closure: growth persists across calls
  auto timer = [f, f_preproc, opt, number](TVMArgs args, TVMRetValue* rv) mutable {
    using Clock = std::chrono::steady_clock;
    TVMRetValue discard;
    f.CallPacked(args, &discard);  // warm-up: lazy initialisation, first touch of memory
    CacheFlusher flusher(opt.cache_flush_bytes);
    std::string result(static_cast<size_t>(opt.repeat) * sizeof(double), '\0');
    for (int r = 0; r < opt.repeat; ++r) {
      if (f_preproc) f_preproc.CallPacked(args, &discard);
      double duration_ms = 0.0;
      int zero_times = 0;
      do {
        if (duration_ms > 0.0) number = GrowNumber(number, opt.min_repeat_ms, duration_ms);
        flusher.Flush();
        Clock::time_point start = Clock::now();
        for (int j = 0; j < number; ++j) {
          f.CallPacked(args, &discard);
          if (InterruptRequested()) Interrupted(r, opt.repeat);
        }
        int64_t nanos = std::chrono::duration_cast<std::chrono::nanoseconds>(Clock::now() - start).count();
        if (nanos == 0) ++zero_times;
        duration_ms = static_cast<double>(nanos) / 1e6;
      } while (duration_ms < opt.min_repeat_ms && zero_times < opt.limit_zero_time_iterations);
      double seconds_per_call = duration_ms / 1e3 / number;
      std::memcpy(&result[static_cast<size_t>(r) * sizeof(double)], &seconds_per_call, sizeof(double));
      if (opt.cooldown_interval_ms > 0 && r % opt.repeats_to_cooldown == 0 &&
          !profiling_internal::SleepUnlessInterrupted(opt.cooldown_interval_ms)) {
        Interrupted(r + 1, opt.repeat);
      }
    }
    rv->SetBytes(std::move(result));
  };
  return PackedFunc(std::move(timer));
}

std::vector<double> ParseTimes(const std::string& bytes) {
  AOTRT_REQUIRE(bytes.size() % sizeof(double) == 0, kFormatError, "time evaluator result of ", bytes.size(),
                " bytes is not a whole number of doubles");
  std::vector<double> out(bytes.size() / sizeof(double));
  if (!out.empty()) std::memcpy(out.data(), bytes.data(), bytes.size());
  return out;
}

PackedFunc TimeEvaluator(const Module& module, const std::string& name, DLDevice dev,
                         const TimeEvaluatorOptions& options, const std::string& f_preproc) {
  PackedFunc f = module.defined() ? module.GetFunction(name, /*query_imports=*/true) : GetGlobalFunction(name);
  AOTRT_REQUIRE(static_cast<bool>(f), kNotFound, "Cannot find ", name, " in the module or global registry");
  PackedFunc pre;
  if (!f_preproc.empty()) {
    pre = GetGlobalFunction(f_preproc);
    AOTRT_REQUIRE(static_cast<bool>(pre), kNotFound, "Cannot find f_preproc ", f_preproc, " in the global registry");
  }
  return WrapTimeEvaluator(std::move(f), dev, options, std::move(pre));
}

PackedFunc TimeEvaluator(const Module& module, const std::string& name, DLDevice dev, int number, int repeat,
                         int min_repeat_ms, int limit_zero_time_iterations, int cooldown_interval_ms,
                         int repeats_to_cooldown, int cache_flush_bytes, const std::string& f_preproc) {
  TimeEvaluatorOptions opt;
  opt.number = number;
  opt.repeat = repeat;
  opt.min_repeat_ms = min_repeat_ms;
  opt.limit_zero_time_iterations = limit_zero_time_iterations;
  opt.cooldown_interval_ms = cooldown_interval_ms;
  opt.repeats_to_cooldown = repeats_to_cooldown;
  opt.cache_flush_bytes = cache_flush_bytes;
  return TimeEvaluator(module, name, dev, opt, f_preproc);
}

}  // namespace aotrt
