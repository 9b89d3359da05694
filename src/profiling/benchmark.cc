// Benchmark(): every call timed on its own, then statistics over the samples.
#include <chrono>

#include "aotrt/profiling.h"
#include "base/error_util.h"
#include "profiling/internal.h"

namespace aotrt {
namespace {

using Clock = std::chrono::steady_clock;

}  // namespace

void ValidateBenchmarkOptions(const BenchmarkOptions& o) {
  AOTRT_REQUIRE(o.warmup >= 0, kInvalidArgument, "benchmark: warmup must be >= 0, got ", o.warmup);
  AOTRT_REQUIRE(o.number >= 1, kInvalidArgument, "benchmark: number must be >= 1, got ", o.number);
  profiling_internal::RequireAtMost("benchmark", "min_repeat_ms", o.min_repeat_ms, kMaxTimingMs);
  profiling_internal::RequireAtMost("benchmark", "cooldown_interval_ms", o.cooldown_interval_ms, kMaxTimingMs);
  AOTRT_REQUIRE(o.repeat >= 1, kInvalidArgument, "benchmark: repeat must be >= 1, got ", o.repeat);
  AOTRT_REQUIRE(o.min_repeat_ms >= 0, kInvalidArgument, "benchmark: min_repeat_ms must be >= 0, got ",
                o.min_repeat_ms);
  AOTRT_REQUIRE(o.cooldown_interval_ms >= 0, kInvalidArgument, "benchmark: cooldown_interval_ms must be >= 0, got ",
                o.cooldown_interval_ms);
  AOTRT_REQUIRE(o.cache_flush_bytes >= 0, kInvalidArgument, "benchmark: cache_flush_bytes must be >= 0, got ",
                o.cache_flush_bytes);
  AOTRT_REQUIRE(static_cast<int64_t>(o.number) * o.repeat <= kMaxBenchmarkSamples, kInvalidArgument,
                "benchmark: number * repeat = ", static_cast<int64_t>(o.number) * o.repeat, " exceeds the limit of ",
                kMaxBenchmarkSamples, " samples");
}

namespace {

// TVM's calibration: time batches of `number` calls, growing it until a batch lasts min_repeat_ms
// (at most 100 batches measuring 0 ns). The result is capped so that number * repeat samples fit.
int Calibrate(const PackedFunc& f, TVMArgs args, int number, int repeat, int min_repeat_ms) {
  const int64_t cap = kMaxBenchmarkSamples / repeat;
  TVMRetValue discard;
  double duration_ms = 0.0;
  int zero_times = 0;
  do {
    if (duration_ms > 0.0) number = profiling_internal::GrowNumber(number, min_repeat_ms, duration_ms);
    if (number >= cap) return static_cast<int>(cap);
    Clock::time_point start = Clock::now();
    for (int j = 0; j < number; ++j) {
      f.CallPacked(args, &discard);
      if (InterruptRequested()) return number;  // Benchmark() stops before its first repeat
    }
    int64_t ns = std::chrono::duration_cast<std::chrono::nanoseconds>(Clock::now() - start).count();
    if (ns == 0) ++zero_times;
    duration_ms = static_cast<double>(ns) / 1e6;
  } while (duration_ms < min_repeat_ms && zero_times < 100);
  return number;
}

}  // namespace

BenchmarkStats Benchmark(const PackedFunc& f, TVMArgs args, const BenchmarkOptions& o) {
  AOTRT_REQUIRE(static_cast<bool>(f), kInvalidArgument, "benchmark: the function to time is empty");
  ValidateBenchmarkOptions(o);
  TVMRetValue discard;
  for (int i = 0; i < o.warmup && !InterruptRequested(); ++i) f.CallPacked(args, &discard);
  int number = o.min_repeat_ms > 0 ? Calibrate(f, args, o.number, o.repeat, o.min_repeat_ms) : o.number;

  BenchmarkStats s;
  s.number = number;
  s.repeat = o.repeat;
  s.samples.resize(static_cast<size_t>(number) * o.repeat);
  s.repeats.resize(o.repeat);
  profiling_internal::CacheFlusher flusher(o.cache_flush_bytes);
  double* out = s.samples.data();
  int done = 0;  // complete repeats; an interrupted one is dropped
  while (done < o.repeat && !InterruptRequested()) {
    flusher.Flush();
    double sum = 0.0;
    int j = 0;
    for (; j < number && !InterruptRequested(); ++j) {  // the hot loop: no allocation
      Clock::time_point t0 = Clock::now();
      f.CallPacked(args, &discard);
      Clock::time_point t1 = Clock::now();
      double sec = std::chrono::duration<double>(t1 - t0).count();
      out[j] = sec;
      sum += sec;
    }
    if (j < number) break;
    out += number;
    s.repeats[done++] = sum / number;
    if (o.progress) o.progress(done, o.repeat);
    if (o.cooldown_interval_ms > 0 && done < o.repeat) profiling_internal::SleepUnlessInterrupted(o.cooldown_interval_ms);
  }
  s.interrupted = done < o.repeat;
  s.repeat = done;
  s.samples.resize(static_cast<size_t>(number) * done);
  s.repeats.resize(done);
  ComputeStats(&s);
  return s;
}

}  // namespace aotrt
