#include <algorithm>
#include <chrono>

#include "aotrt/profiling.h"
#include "base/error_util.h"
#include "profiling/measured_profile.h"

namespace aotrt {
namespace {

using Clock = std::chrono::steady_clock;

double Ms(Clock::duration d) { return std::chrono::duration<double, std::milli>(d).count(); }

}  // namespace

OperatorProfile ProfileMeasured(PlannedExecutor& ex, const OperatorProfileOptions& opt) {
  ValidateOperatorProfileOptions(opt);
  const size_t n = ex.NumOps();
  for (int i = 0; i < opt.warmup; ++i) ex.Run();
  std::vector<double> node_ms(n, 0.0);
  std::vector<double> runs;
  OperatorProfile p;
  auto until = Clock::now() + std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(opt.duration_s));
  while (opt.runs > 0 ? static_cast<int>(runs.size()) < opt.runs : Clock::now() < until) {
    if (InterruptRequested()) {
      p.interrupted = true;
      break;
    }
    Clock::time_point start = Clock::now(), t = start;
    for (size_t k = 0; k < n; ++k) {
      ex.RunOp(k);
      Clock::time_point now = Clock::now();
      node_ms[k] += Ms(now - t);
      t = now;
    }
    runs.push_back(Ms(t - start));
  }
  p.model = ex.Info().name;
  p.library = ex.Info().library;
  p.measured = true;
  p.runs = static_cast<int>(runs.size());
  if (runs.empty()) return p;
  double total = 0;
  for (double r : runs) total += r;
  p.run_ms = total / runs.size();
  std::sort(runs.begin(), runs.end());
  p.run_ms_median = PercentileSorted(runs, 50);
  double nodes_ms = 0;
  for (size_t k = 0; k < n; ++k) {
    PlannedExecutor::OpDescription op = ex.DescribeOp(k);
    OperatorCost c;
    c.name = std::move(op.name);
    c.symbol = std::move(op.function);
    c.samples = runs.size();
    c.mean_ms = node_ms[k] / runs.size();
    c.percent = total > 0 ? node_ms[k] / total * 100 : 0;
    c.shapes = std::move(op.shapes);
    nodes_ms += c.mean_ms;
    p.operators.push_back(std::move(c));
  }
  p.samples = static_cast<uint64_t>(runs.size()) * n;
  p.outside.name = "(between nodes)";
  p.outside.mean_ms = std::max(0.0, p.run_ms - nodes_ms);
  p.outside.percent = p.run_ms > 0 ? p.outside.mean_ms / p.run_ms * 100 : 0;
  return p;
}

}  // namespace aotrt
