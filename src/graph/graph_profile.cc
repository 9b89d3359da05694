// The measured per-node profile of a graph (aotrt/profiling.h, OperatorProfile::measured): every
// operator node is a call of its own, so each is timed on every run; nothing is sampled.
#include <algorithm>
#include <chrono>

#include "aotrt/profiling.h"
#include "base/error_util.h"
#include "graph/graph_profile.h"

namespace aotrt {
namespace {

using Clock = std::chrono::steady_clock;

double Ms(Clock::duration d) { return std::chrono::duration<double, std::milli>(d).count(); }

std::string ArgShapes(const GraphModel& m, const GraphOp& op) {
  std::string s;
  for (uint32_t a = op.first_arg; a < op.first_arg + op.num_args; ++a) {
    uint32_t eid = m.args()[a].entry;
    const std::vector<int64_t>& shape = m.graph().shape[eid];
    s += StrCat(a > op.first_arg ? ", " : "", DataTypeToString(m.graph().dtype[eid]),
                ShapeToString(shape.data(), static_cast<int>(shape.size())));
  }
  return s;
}

}  // namespace

OperatorProfile ProfileGraph(GraphExecutor& ex, const OperatorProfileOptions& opt) {
  ValidateOperatorProfileOptions(opt);
  const GraphModel& m = ex.model();
  const std::vector<GraphOp>& ops = m.ops();
  for (int i = 0; i < opt.warmup; ++i) ex.Run();
  std::vector<double> node_ms(ops.size(), 0.0);
  std::vector<double> runs;
  OperatorProfile p;
  auto until = Clock::now() + std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(opt.duration_s));
  while (opt.runs > 0 ? static_cast<int>(runs.size()) < opt.runs : Clock::now() < until) {
    if (InterruptRequested()) {
      p.interrupted = true;
      break;
    }
    Clock::time_point start = Clock::now(), t = start;
    for (size_t k = 0; k < ops.size(); ++k) {
      ex.RunOp(k);
      Clock::time_point now = Clock::now();
      node_ms[k] += Ms(now - t);
      t = now;
    }
    runs.push_back(Ms(t - start));
  }
  p.model = m.name();
  p.library = m.what();
  p.measured = true;
  p.runs = static_cast<int>(runs.size());
  if (runs.empty()) return p;
  double total = 0;
  for (double r : runs) total += r;
  p.run_ms = total / runs.size();
  std::sort(runs.begin(), runs.end());
  p.run_ms_median = PercentileSorted(runs, 50);
  double nodes_ms = 0;
  for (size_t k = 0; k < ops.size(); ++k) {
    const GraphNode& node = m.graph().nodes[ops[k].node_id];
    OperatorCost c;
    c.name = node.name;
    c.symbol = node.func_name;
    c.samples = runs.size();
    c.mean_ms = node_ms[k] / runs.size();
    c.percent = total > 0 ? node_ms[k] / total * 100 : 0;
    c.shapes = ArgShapes(m, ops[k]);
    nodes_ms += c.mean_ms;
    p.operators.push_back(std::move(c));
  }
  p.samples = static_cast<uint64_t>(runs.size()) * ops.size();
  p.outside.name = "(between nodes)";
  p.outside.mean_ms = std::max(0.0, p.run_ms - nodes_ms);
  p.outside.percent = p.run_ms > 0 ? p.outside.mean_ms / p.run_ms * 100 : 0;
  return p;
}

}  // namespace aotrt
