// ProfileOperators: runs an executor under a PC sampler and attributes the samples
// (profiling/op_attribution.h), or times each of a graph's nodes (ProfileMeasured). README "Where
// the time goes" says why sampling, and what it costs.
#include <pthread.h>
#include <signal.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <chrono>
#include <cstring>
#include <numeric>

#include "aotrt/profiling.h"
#include "backend/thread_pool.h"
#include "base/error_util.h"
#include "device/device_api.h"
#include "executor/executor_module.h"
#include "memory/guard_fault.h"
#include "profiling/internal.h"
#include "profiling/op_attribution.h"

namespace aotrt {
namespace {

using profiling_internal::CodeMap;
using profiling_internal::PcSample;
using Clock = std::chrono::steady_clock;

// The sampler: a POSIX timer on CLOCK_MONOTONIC aimed at the profiled thread (SIGEV_THREAD_ID),
// re-armed by the SIGPROF handler with a jittered delay. Each sample records the interrupted PC
// and, inside a TVMBackendParallelLaunch, the operator that launched it (backend/thread_pool.h).
// Only samples taken while g_recording is set are kept, in a buffer allocated up front: the
// handler does not allocate, lock or call anything but timer_settime. One per process at a time.

// Shared with the handler. Written by Start() before the timer is armed, on the sampled thread,
// which is the only thread the handler runs on.
std::atomic<bool> g_busy{false};
std::atomic<bool> g_recording{false};
std::atomic<bool> g_armed{false};
std::atomic<size_t> g_count{0};
std::atomic<uint64_t> g_dropped{0};
PcSample* g_buffer = nullptr;
size_t g_capacity = 0;
timer_t g_timer;
int64_t g_period_ns = 0;
uint64_t g_rng = 0x9E3779B97F4A7C15ull;
struct sigaction g_previous;
int g_tag;  // its address marks our timer's signals (si_value)

// A delay uniform in [period/2, 3*period/2): the mean stays the period.
void Rearm() {
  g_rng ^= g_rng << 13;
  g_rng ^= g_rng >> 7;
  g_rng ^= g_rng << 17;
  int64_t ns = g_period_ns / 2 + static_cast<int64_t>(g_rng % static_cast<uint64_t>(g_period_ns));
  struct itimerspec its = {{0, 0}, {ns / 1000000000, ns % 1000000000}};  // one shot: re-armed by the handler
  timer_settime(g_timer, 0, &its, nullptr);
}

void OnSigprof(int sig, siginfo_t* info, void* context) {
  if (info->si_code != SI_TIMER || info->si_value.sival_ptr != &g_tag) {
    // Someone else's SIGPROF (another profiler): pass it on.
    if ((g_previous.sa_flags & SA_SIGINFO) && g_previous.sa_sigaction) {
      g_previous.sa_sigaction(sig, info, context);
    } else if (g_previous.sa_handler != SIG_DFL && g_previous.sa_handler != SIG_IGN && g_previous.sa_handler) {
      g_previous.sa_handler(sig);
    }
    return;
  }
  if (!g_armed.load(std::memory_order_relaxed)) return;
  int saved_errno = errno;
  if (g_recording.load(std::memory_order_relaxed)) {
    size_t i = g_count.load(std::memory_order_relaxed);
    if (i < g_capacity) {
      g_buffer[i].pc = SignalPc(context);
      g_buffer[i].launch_caller = CurrentParallelLaunchCaller();
      g_count.store(i + 1, std::memory_order_relaxed);
    } else {
      g_dropped.fetch_add(1, std::memory_order_relaxed);
    }
  }
  Rearm();
  errno = saved_errno;
}

// Construct (which installs the handler and arms the timer for the calling thread), then on the
// same thread set g_recording around the code to profile, Stop (or destroy: an exception thrown
// while recording ends it there). Errors: kInvalidArgument "another operator profile is running";
// kIOError (errno's text) when the timer or the handler cannot be installed.
class PcSampler {
 public:
  // `period_us`: mean interval between samples. `capacity`: samples kept at most (later ones are
  // counted in dropped()).
  PcSampler(int period_us, size_t capacity) : buffer_(capacity) {
    bool expected = false;
    AOTRT_REQUIRE(g_busy.compare_exchange_strong(expected, true), kInvalidArgument,
                  "operator profile: another operator profile is running in this process");
    g_buffer = buffer_.data();
    g_capacity = buffer_.size();
    g_count.store(0, std::memory_order_relaxed);
    g_dropped.store(0, std::memory_order_relaxed);
    g_recording.store(false, std::memory_order_relaxed);
    g_period_ns = static_cast<int64_t>(period_us) * 1000;
    struct sigaction sa = {};
    sa.sa_sigaction = OnSigprof;
    sa.sa_flags = SA_SIGINFO | SA_RESTART;
    sigemptyset(&sa.sa_mask);
    if (sigaction(SIGPROF, &sa, &g_previous) != 0) {
      int err = errno;
      g_busy.store(false);
      AOTRT_THROW(kIOError, "operator profile: cannot install the SIGPROF handler: ", std::strerror(err));
    }
    struct sigevent sev = {};
    sev.sigev_notify = SIGEV_THREAD_ID;
    sev.sigev_signo = SIGPROF;
    sev.sigev_value.sival_ptr = &g_tag;
    sev._sigev_un._tid = static_cast<pid_t>(::syscall(SYS_gettid));
    if (timer_create(CLOCK_MONOTONIC, &sev, &g_timer) != 0) {
      int err = errno;
      sigaction(SIGPROF, &g_previous, nullptr);
      g_busy.store(false);
      AOTRT_THROW(kIOError, "operator profile: cannot create the sampling timer: ", std::strerror(err));
    }
    started_ = true;
    g_armed.store(true, std::memory_order_relaxed);
    Rearm();
  }
  ~PcSampler() { Stop(); }
  PcSampler(const PcSampler&) = delete;
  PcSampler& operator=(const PcSampler&) = delete;

  void Stop() {
    if (!started_) return;
    started_ = false;
    g_recording.store(false, std::memory_order_relaxed);
    // Block SIGPROF here, so no handler runs while the timer goes; then drain a signal it left
    // pending, and only then restore the previous disposition (SIGPROF's default ends the process).
    sigset_t prof, old;
    sigemptyset(&prof);
    sigaddset(&prof, SIGPROF);
    pthread_sigmask(SIG_BLOCK, &prof, &old);
    g_armed.store(false, std::memory_order_relaxed);
    timer_delete(g_timer);
    struct timespec zero = {0, 0};
    siginfo_t info;
    while (sigtimedwait(&prof, &info, &zero) == SIGPROF) {
    }
    sigaction(SIGPROF, &g_previous, nullptr);
    pthread_sigmask(SIG_SETMASK, &old, nullptr);
    buffer_.resize(std::min(g_count.load(std::memory_order_relaxed), buffer_.size()));
    dropped_ = g_dropped.load(std::memory_order_relaxed);
    g_buffer = nullptr;
    g_capacity = 0;
    g_busy.store(false);
  }

  const std::vector<PcSample>& samples() const { return buffer_; }  // valid after Stop()
  uint64_t dropped() const { return dropped_; }                     // recorded signals beyond the capacity

 private:
  bool started_ = false;
  uint64_t dropped_ = 0;
  std::vector<PcSample> buffer_;
};

constexpr size_t kMaxSamples = size_t{1} << 22;  // 64 MiB of samples at most

double Ms(Clock::duration d) { return std::chrono::duration<double, std::milli>(d).count(); }

// The runs of a profile, each timed: opt.runs of them, or as many as duration_s allows, up to an
// interrupt request. Sets runs, run_ms, run_ms_median and interrupted of `p`.
void TimedRuns(const OperatorProfileOptions& opt, const std::function<void()>& run, OperatorProfile* p) {
  std::vector<double> times;
  times.reserve(static_cast<size_t>(std::min(opt.runs > 0 ? opt.runs : 1024, 1 << 20)));
  auto until = Clock::now() + std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(opt.duration_s));
  while (opt.runs > 0 ? static_cast<int>(times.size()) < opt.runs : Clock::now() < until) {
    if (InterruptRequested()) {
      p->interrupted = true;
      break;
    }
    Clock::time_point start = Clock::now();
    run();
    times.push_back(Ms(Clock::now() - start));
  }
  p->runs = static_cast<int>(times.size());
  if (times.empty()) return;
  p->run_ms = std::accumulate(times.begin(), times.end(), 0.0) / static_cast<double>(times.size());
  std::sort(times.begin(), times.end());
  p->run_ms_median = PercentileSorted(times, 50);
}

}  // namespace

void ValidateOperatorProfileOptions(const OperatorProfileOptions& opt) {
  AOTRT_REQUIRE(opt.runs > 0 || (opt.duration_s > 0 && opt.duration_s <= 3600), kInvalidArgument,
                "operator profile: duration_s must be in (0, 3600] seconds, got ", opt.duration_s);
  profiling_internal::RequireInRanges("operator profile", {{"runs", opt.runs, 0, kMaxTimingNumber},
                                                          {"period_us", opt.period_us, 100, 1000000},
                                                          {"warmup", opt.warmup, 0, kMaxTimingNumber}});
}

OperatorProfile ProfileMeasuredRuns(const OperatorProfileOptions& opt, const std::function<void()>& run,
                                    std::vector<OperatorCost>* ops) {
  ValidateOperatorProfileOptions(opt);
  for (int i = 0; i < opt.warmup; ++i) run();
  for (OperatorCost& c : *ops) c.mean_ms = 0, c.samples = 0;
  OperatorProfile p;
  TimedRuns(opt, run, &p);
  p.measured = true;
  double total = p.run_ms * p.runs, ops_ms = 0;
  if (p.runs == 0) return p;
  for (OperatorCost& c : *ops) {
    if (c.samples == 0) continue;  // never called
    c.percent = total > 0 ? c.mean_ms / total * 100 : 0;
    c.mean_ms /= p.runs;
    ops_ms += c.mean_ms;
    p.samples += c.samples;
    p.operators.push_back(std::move(c));
  }
  // By cost, as a sampled profile's (the debug executor's report keeps them so too; TVM sorts its table).
  std::stable_sort(p.operators.begin(), p.operators.end(),
                   [](const OperatorCost& a, const OperatorCost& b) { return a.mean_ms > b.mean_ms; });
  p.outside.name = "(between operators)";
  p.outside.mean_ms = std::max(0.0, p.run_ms - ops_ms);
  p.outside.percent = p.run_ms > 0 ? p.outside.mean_ms / p.run_ms * 100 : 0;
  return p;
}

OperatorProfile ProfileMeasured(PlannedExecutor& ex, const OperatorProfileOptions& opt) {
  std::vector<OperatorCost> ops(ex.NumOps());
  for (size_t k = 0; k < ops.size(); ++k) {
    PlannedExecutor::OpDescription op = ex.DescribeOp(k);
    ops[k].name = std::move(op.name), ops[k].symbol = std::move(op.function), ops[k].shapes = std::move(op.shapes);
  }
  // Each node timed by its device: the CPU's clock, a GPU's queue events or timestamps.
  DLDevice dev = ex.device();
  DeviceAPI& device = RequireDevice(dev, "ProfileOperators");
  OperatorProfile p = ProfileMeasuredRuns(opt, [&] {
    for (size_t k = 0; k < ops.size(); ++k) {
      ops[k].mean_ms += device.TimeOnDevice(dev.device_id, [&] { ex.RunOp(k); }), ++ops[k].samples;
    }
  }, &ops);
  p.model = ex.Info().name;
  p.library = ex.Info().library;
  return p;
}

OperatorProfile profiling_internal::ProfileExecutorModule(const Module& executor_module,
                                                          const OperatorProfileOptions& opt) {
  ValidateOperatorProfileOptions(opt);
  auto* node = dynamic_cast<ExecutorModuleNode*>(executor_module.node().get());
  if (node != nullptr && node->executor().NumOps() > 0) return ProfileMeasured(node->executor(), opt);
  AOTRT_REQUIRE(node != nullptr && executor_module.type_key() == "AotExecutor", kInvalidArgument,
                "ProfileOperators: expected an AotExecutor or GraphExecutor (factory[\"<model>\"](device)), got ",
                executor_module.defined() ? StrCat("a ", executor_module.type_key(), " module") : "an empty one");
  const PlannedModel& model = node->model();
  // The library holding the model's code: its one call's packed entry, or a C-interface archive's compiled one.
  const PlannedCall& call = model.calls().front();
  const void* code_address = call.fn ? reinterpret_cast<const void*>(call.fn) : reinterpret_cast<const void*>(call.c_run);
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
    node->executor().Run();
    warm_ms = Ms(Clock::now() - t);
  }
  // Samples kept at most: the planned time over the period, twice, plus slack.
  double planned_ms = opt.runs > 0 ? opt.runs * std::max(warm_ms, 0.001) : opt.duration_s * 1000.0;
  PcSampler sampler(opt.period_us, static_cast<size_t>(std::min(2.0 * planned_ms * 1000.0 / opt.period_us + 4096,
                                                                static_cast<double>(kMaxSamples))));
  TimedRuns(opt, [&] {
    g_recording.store(true, std::memory_order_relaxed);
    node->executor().Run();
    g_recording.store(false, std::memory_order_relaxed);
  }, &profile);
  sampler.Stop();
  profile.dropped = sampler.dropped();
  profiling_internal::AttributeSamples(code, sampler.samples(), model.info().symbol_prefix, &profile);
  return profile;
}

}  // namespace aotrt
