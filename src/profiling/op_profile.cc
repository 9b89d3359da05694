// ProfileOperators: runs an executor under the PC sampler and attributes the samples
// (profiling/pc_sampler.h, profiling/op_attribution.h), or times each of a graph's nodes
// (ProfileMeasured).
#include <algorithm>
#include <chrono>
#include <cmath>
#include <numeric>

#include "aot/loaded_model.h"
#include "aotrt/profiling.h"
#include "base/error_util.h"
#include "executor/executor_interface.h"
#include "profiling/internal.h"
#include "profiling/op_attribution.h"

namespace aotrt {
namespace {

using profiling_internal::CodeMap;
using profiling_internal::PcSampler;
using Clock = std::chrono::steady_clock;

constexpr size_t kMaxSamples = size_t{1} << 22;  // 64 MiB of samples at most

double Ms(Clock::duration d) { return std::chrono::duration<double, std::milli>(d).count(); }

Clock::time_point Deadline(const OperatorProfileOptions& opt) {
  return Clock::now() + std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(opt.duration_s));
}

// Sets runs, run_ms and run_ms_median of `p` from the run times (sorted in place); returns their sum.
double SetRunTimes(std::vector<double>& times, OperatorProfile* p) {
  p->runs = static_cast<int>(times.size());
  if (times.empty()) return 0;
  double sum = std::accumulate(times.begin(), times.end(), 0.0);
  p->run_ms = sum / static_cast<double>(times.size());
  std::sort(times.begin(), times.end());
  p->run_ms_median = PercentileSorted(times, 50);
  return sum;
}

ExecutorModuleNode& ExecutorOf(const Module& m) {
  AOTRT_REQUIRE(m.defined() && m.type_key() == "AotExecutor", kInvalidArgument,
                "ProfileOperators: expected an AotExecutor or GraphExecutor (factory[\"<model>\"](device)), got ",
                m.defined() ? "a " + std::string(m.type_key()) + " module" : std::string("an empty one"));
  return *static_cast<ExecutorModuleNode*>(m.operator->());
}

// Samples the profile will hold at most: the planned time over the period, twice, plus slack.
size_t Capacity(const OperatorProfileOptions& opt, double run_ms) {
  double ms = opt.runs > 0 ? opt.runs * std::max(run_ms, 0.001) : opt.duration_s * 1000.0;
  double n = 2.0 * ms * 1000.0 / opt.period_us + 4096;
  return static_cast<size_t>(std::min(n, static_cast<double>(kMaxSamples)));
}

// The runs of a profile, timed, with `sampler` recording while they run.
std::vector<double> SampledRuns(PlannedExecutor& impl, const OperatorProfileOptions& opt, PcSampler* sampler,
                                OperatorProfile* profile) {
  std::vector<double> times;
  times.reserve(static_cast<size_t>(std::min(opt.runs > 0 ? opt.runs : 1024, 1 << 20)));
  sampler->Start();
  auto until = Deadline(opt);
  try {
    for (int run = 0; opt.runs > 0 ? run < opt.runs : Clock::now() < until; ++run) {
      if (InterruptRequested()) {
        profile->interrupted = true;
        break;
      }
      auto t = Clock::now();
      PcSampler::SetRecording(true);
      impl.Run();
      PcSampler::SetRecording(false);
      times.push_back(Ms(Clock::now() - t));
    }
  } catch (...) {
    PcSampler::SetRecording(false);
    throw;  // the sampler's destructor stops it
  }
  sampler->Stop();
  return times;
}

}  // namespace

void ValidateOperatorProfileOptions(const OperatorProfileOptions& opt) {
  using profiling_internal::RequireInRange;
  AOTRT_REQUIRE(opt.runs > 0 || (opt.duration_s > 0 && opt.duration_s <= 3600), kInvalidArgument,
                "operator profile: duration_s must be in (0, 3600] seconds, got ", opt.duration_s);
  RequireInRange("operator profile", "runs", opt.runs, 0, kMaxTimingNumber);
  RequireInRange("operator profile", "period_us", opt.period_us, 100, 1000000);
  RequireInRange("operator profile", "warmup", opt.warmup, 0, kMaxTimingNumber);
}

OperatorProfile ProfileMeasured(PlannedExecutor& ex, const OperatorProfileOptions& opt) {
  ValidateOperatorProfileOptions(opt);
  const size_t n = ex.NumOps();
  for (int i = 0; i < opt.warmup; ++i) ex.Run();
  std::vector<double> node_ms(n, 0.0);
  std::vector<double> runs;
  OperatorProfile p;
  auto until = Deadline(opt);
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
  double total = SetRunTimes(runs, &p);
  if (runs.empty()) return p;
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

OperatorProfile profiling_internal::ProfileExecutorModule(const Module& executor_module,
                                                          const OperatorProfileOptions& opt) {
  ValidateOperatorProfileOptions(opt);
  auto* node = dynamic_cast<ExecutorModuleNode*>(executor_module.node().get());
  if (node != nullptr && node->executor().NumOps() > 0) return ProfileMeasured(node->executor(), opt);
  ExecutorModuleNode& aot = ExecutorOf(executor_module);
  PlannedExecutor& impl = aot.executor();
  const auto& model = static_cast<const LoadedModel&>(aot.model());  // an AotExecutor's (checked above)
  const ModelProgram& program = model.program();
  // The library holding the model's code: the packed entry's, or a C-interface archive's compiled one.
  const void* code_address = program.entry ? reinterpret_cast<const void*>(program.entry)
                                           : reinterpret_cast<const void*>(program.c_run);
  AOTRT_REQUIRE(code_address != nullptr, kNotImplemented, "ProfileOperators: model ", model.name(),
                " is not called through a function of a loaded library, which the profiler needs");
  CodeMap code = CodeMap::ForAddress(code_address);

  OperatorProfile profile;
  profile.model = model.name();
  profile.library = code.path();
  profile.symbol_table = code.table();
  profile.period_us = opt.period_us;
  double warm_ms = 0;
  for (int i = 0; i < opt.warmup; ++i) {
    auto t = Clock::now();
    impl.Run();
    warm_ms = Ms(Clock::now() - t);
  }
  PcSampler sampler(opt.period_us, Capacity(opt, warm_ms));
  std::vector<double> times = SampledRuns(impl, opt, &sampler, &profile);
  SetRunTimes(times, &profile);
  profile.dropped = sampler.dropped();
  profiling_internal::AttributeSamples(code, sampler.Samples(), model.info().symbol_prefix, &profile);
  return profile;
}

}  // namespace aotrt
