// Benchmark(): every call timed on its own, then statistics over the samples, and their JSON form.
#include <algorithm>
#include <chrono>
#include <cmath>
#include <numeric>

#include <nlohmann/json.hpp>

#include "aotrt/profiling.h"
#include "base/error_util.h"
#include "profiling/internal.h"

namespace aotrt {

double PercentileSorted(const std::vector<double>& sorted, double q) {
  AOTRT_REQUIRE(!sorted.empty(), kInvalidArgument, "percentile of an empty sample");
  AOTRT_REQUIRE(q >= 0.0 && q <= 100.0, kInvalidArgument, "percentile ", q, " is outside [0, 100]");
  double pos = q / 100.0 * static_cast<double>(sorted.size() - 1);
  size_t lo = static_cast<size_t>(std::floor(pos));
  size_t hi = std::min(lo + 1, sorted.size() - 1);
  double frac = pos - static_cast<double>(lo);
  return sorted[lo] + (sorted[hi] - sorted[lo]) * frac;
}

void ComputeStats(BenchmarkStats* s) {
  const std::vector<double>& x = s->samples;
  if (x.empty()) {
    s->min = s->max = s->mean = s->median = s->std = s->p50 = s->p90 = s->p99 = s->p999 = 0.0;
    return;
  }
  std::vector<double> sorted(x);
  std::sort(sorted.begin(), sorted.end());
  const double n = static_cast<double>(x.size());
  s->min = sorted.front();
  s->max = sorted.back();
  s->mean = std::accumulate(x.begin(), x.end(), 0.0) / n;
  double sq = 0.0;
  for (double v : x) sq += (v - s->mean) * (v - s->mean);
  s->std = std::sqrt(sq / n);
  s->p50 = s->median = PercentileSorted(sorted, 50.0);
  s->p90 = PercentileSorted(sorted, 90.0);
  s->p99 = PercentileSorted(sorted, 99.0);
  s->p999 = PercentileSorted(sorted, 99.9);
}

// nlohmann writes a NaN or infinity (which JSON lacks) as null.
std::string BenchmarkStatsToJson(const BenchmarkStats& s) {
  return nlohmann::ordered_json{{"samples", s.samples}, {"repeats", s.repeats}, {"min", s.min},
                                {"max", s.max},         {"mean", s.mean},       {"median", s.median},
                                {"std", s.std},         {"p50", s.p50},         {"p90", s.p90},
                                {"p99", s.p99},         {"p999", s.p999},       {"number", s.number},
                                {"repeat", s.repeat}}
      .dump();
}

void ValidateBenchmarkOptions(const BenchmarkOptions& o) {
  profiling_internal::RequireInRanges(
      "benchmark", {{"warmup", o.warmup, 0}, {"number", o.number, 1}, {"repeat", o.repeat, 1},
                    {"min_repeat_ms", o.min_repeat_ms, 0, kMaxTimingMs},
                    {"cooldown_interval_ms", o.cooldown_interval_ms, 0, kMaxTimingMs},
                    {"cache_flush_bytes", o.cache_flush_bytes, 0}});
  AOTRT_REQUIRE(static_cast<int64_t>(o.number) * o.repeat <= kMaxBenchmarkSamples, kInvalidArgument,
                "benchmark: number * repeat = ", static_cast<int64_t>(o.number) * o.repeat, " exceeds the limit of ",
                kMaxBenchmarkSamples, " samples");
}

BenchmarkStats Benchmark(const PackedFunc& f, TVMArgs args, const BenchmarkOptions& o) {
  using Clock = std::chrono::steady_clock;
  AOTRT_REQUIRE(static_cast<bool>(f), kInvalidArgument, "benchmark: the function to time is empty");
  ValidateBenchmarkOptions(o);
  TVMRetValue discard;
  for (int i = 0; i < o.warmup && !InterruptRequested(); ++i) f.CallPacked(args, &discard);
  // Calibrated as TVM does (at most 100 batches measuring 0 ns), capped so that number * repeat
  // samples fit; an interrupt request here stops Benchmark() before its first repeat.
  int number = o.number;
  if (o.min_repeat_ms > 0) {
    profiling_internal::TimeBatches(f, args, &number, o.min_repeat_ms, 100, nullptr, kMaxBenchmarkSamples / o.repeat);
  }

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
      out[j] = std::chrono::duration<double>(Clock::now() - t0).count();
      sum += out[j];
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
