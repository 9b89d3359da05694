// Pure statistics over benchmark samples, and their JSON form.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <numeric>

#include "aotrt/profiling.h"
#include "base/error_util.h"

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
  s->median = PercentileSorted(sorted, 50.0);
  s->p50 = s->median;
  s->p90 = PercentileSorted(sorted, 90.0);
  s->p99 = PercentileSorted(sorted, 99.0);
  s->p999 = PercentileSorted(sorted, 99.9);
}

namespace {

void AppendNumber(std::string* out, double v) {
  if (!std::isfinite(v)) {  // JSON has no inf/nan
    *out += "null";
    return;
  }
  char buf[32];
  std::snprintf(buf, sizeof(buf), "%.17g", v);
  *out += buf;
}

void AppendArray(std::string* out, const char* key, const std::vector<double>& v) {
  *out += '"';
  *out += key;
  *out += "\": [";
  for (size_t i = 0; i < v.size(); ++i) {
    if (i) *out += ", ";
    AppendNumber(out, v[i]);
  }
  *out += "]";
}

}  // namespace

std::string BenchmarkStatsToJson(const BenchmarkStats& s) {
  std::string out = "{";
  AppendArray(&out, "samples", s.samples);
  out += ", ";
  AppendArray(&out, "repeats", s.repeats);
  const std::pair<const char*, double> scalars[] = {{"min", s.min},   {"max", s.max},       {"mean", s.mean},
                                                    {"median", s.median}, {"std", s.std}, {"p50", s.p50},
                                                    {"p90", s.p90},   {"p99", s.p99},       {"p999", s.p999}};
  for (const auto& kv : scalars) {
    out += ", \"";
    out += kv.first;
    out += "\": ";
    AppendNumber(&out, kv.second);
  }
  out += StrCat(", \"number\": ", s.number, ", \"repeat\": ", s.repeat, "}");
  return out;
}

}  // namespace aotrt
