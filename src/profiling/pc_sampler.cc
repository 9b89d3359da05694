#include "profiling/pc_sampler.h"

#include <pthread.h>
#include <signal.h>
#include <sys/syscall.h>
#include <time.h>
#include <ucontext.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstring>

#include "backend/thread_pool.h"
#include "base/error_util.h"

namespace aotrt {
namespace profiling_internal {
namespace {

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

uintptr_t InterruptedPc(void* context) {
  auto* uc = static_cast<ucontext_t*>(context);
#if defined(__x86_64__)
  return static_cast<uintptr_t>(uc->uc_mcontext.gregs[REG_RIP]);
#elif defined(__aarch64__)
  return static_cast<uintptr_t>(uc->uc_mcontext.pc);
#else
#error "operator profiler: program counter of ucontext_t unknown on this architecture"
#endif
}

// A delay uniform in [period/2, 3*period/2): the mean stays the period.
void Rearm() {
  g_rng ^= g_rng << 13;
  g_rng ^= g_rng >> 7;
  g_rng ^= g_rng << 17;
  int64_t ns = g_period_ns / 2 + static_cast<int64_t>(g_rng % static_cast<uint64_t>(g_period_ns));
  struct itimerspec its = {};
  its.it_value.tv_sec = ns / 1000000000;
  its.it_value.tv_nsec = ns % 1000000000;
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
      g_buffer[i].pc = InterruptedPc(context);
      g_buffer[i].launch_caller = CurrentParallelLaunchCaller();
      g_count.store(i + 1, std::memory_order_relaxed);
    } else {
      g_dropped.fetch_add(1, std::memory_order_relaxed);
    }
  }
  Rearm();
  errno = saved_errno;
}

}  // namespace

PcSampler::PcSampler(int period_us, size_t capacity) : period_us_(period_us), buffer_(capacity) {
  AOTRT_REQUIRE(period_us >= 10, kInvalidArgument, "operator profile: the sampling period must be >= 10 us, got ",
                period_us);
  AOTRT_REQUIRE(capacity > 0, kInvalidArgument, "operator profile: no room for samples");
}

PcSampler::~PcSampler() { Stop(); }

void PcSampler::SetRecording(bool on) { g_recording.store(on, std::memory_order_relaxed); }

void PcSampler::Start() {
  bool expected = false;
  AOTRT_REQUIRE(g_busy.compare_exchange_strong(expected, true), kInvalidArgument,
                "operator profile: another operator profile is running in this process");
  g_buffer = buffer_.data();
  g_capacity = buffer_.size();
  g_count.store(0, std::memory_order_relaxed);
  g_dropped.store(0, std::memory_order_relaxed);
  g_recording.store(false, std::memory_order_relaxed);
  g_period_ns = static_cast<int64_t>(period_us_) * 1000;
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

void PcSampler::Stop() {
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
  size_t n = g_count.load(std::memory_order_relaxed);
  buffer_.resize(n < buffer_.size() ? n : buffer_.size());
  dropped_ = g_dropped.load(std::memory_order_relaxed);
  g_buffer = nullptr;
  g_capacity = 0;
  g_busy.store(false);
}

std::vector<PcSample> PcSampler::Samples() const { return buffer_; }

uint64_t PcSampler::dropped() const { return dropped_; }

}  // namespace profiling_internal
}  // namespace aotrt
