// ProfileOperators: runs an executor under the PC sampler and attributes the samples
// (profiling/pc_sampler.h, profiling/op_attribution.h).
#include <algorithm>
#include <chrono>
#include <cmath>

#include "aot/executor_module.h"
#include "aotrt/profiling.h"
#include "base/error_util.h"
#include "profiling/measured_profile.h"
#include "profiling/internal.h"
#include "profiling/op_attribution.h"

namespace aotrt {
namespace {

using profiling_internal::CodeMap;
using profiling_internal::PcSampler;
using Clock = std::chrono::steady_clock;

constexpr size_t kMaxSamples = size_t{1} << 22;  // 64 MiB of samples at most

double Ms(Clock::duration d) { return std::chrono::duration<double, std::milli>(d).count(); }

AotExecutorModuleNode& ExecutorOf(const Module& m) {
  AOTRT_REQUIRE(m.defined() && m.type_key() == "AotExecutor", kInvalidArgument,
                "ProfileOperators: expected an AotExecutor or GraphExecutor (factory[\"<model>\"](device)), got ",
                m.defined() ? "a " + std::string(m.type_key()) + " module" : std::string("an empty one"));
  return *static_cast<AotExecutorModuleNode*>(m.operator->());
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
  auto until = Clock::now() + std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(opt.duration_s));
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
  AOTRT_REQUIRE(opt.runs > 0 || (opt.duration_s > 0 && opt.duration_s <= 3600), kInvalidArgument,
                "operator profile: duration_s must be in (0, 3600] seconds, got ", opt.duration_s);
  AOTRT_REQUIRE(opt.runs >= 0 && opt.runs <= kMaxTimingNumber, kInvalidArgument,
                "operator profile: runs must be in [0, ", kMaxTimingNumber, "], got ", opt.runs);
  AOTRT_REQUIRE(opt.period_us >= 100 && opt.period_us <= 1000000, kInvalidArgument,
                "operator profile: period_us must be in [100, 1000000], got ", opt.period_us);
  AOTRT_REQUIRE(opt.warmup >= 0 && opt.warmup <= kMaxTimingNumber, kInvalidArgument,
                "operator profile: warmup must be in [0, ", kMaxTimingNumber, "], got ", opt.warmup);
}

OperatorProfile profiling_internal::ProfileExecutorModule(const Module& executor_module,
                                                          const OperatorProfileOptions& opt) {
  ValidateOperatorProfileOptions(opt);
  auto* node = dynamic_cast<ExecutorModuleNode*>(executor_module.node().get());
  if (node != nullptr && node->executor().NumOps() > 0) return ProfileMeasured(node->executor(), opt);
  AotExecutorModuleNode& aot = ExecutorOf(executor_module);
  PlannedExecutor& impl = aot.executor();
  const LoadedModel& model = aot.model();
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
  profile.runs = static_cast<int>(times.size());
  if (!times.empty()) {
    double sum = 0;
    for (double t : times) sum += t;
    profile.run_ms = sum / static_cast<double>(times.size());
    std::sort(times.begin(), times.end());
    profile.run_ms_median = PercentileSorted(times, 50);
  }
  profile.dropped = sampler.dropped();
  profiling_internal::AttributeSamples(code, sampler.Samples(), model.info().symbol_prefix, &profile);
  return profile;
}

}  // namespace aotrt
