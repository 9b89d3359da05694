// TVM's time evaluator (ABI.md 9): WrapTimeEvaluator, Module::TimeEvaluator, result parsing; the
// timing loop, cache flushes and interrupt request it shares with the other profilers; the
// workspace peak.
#include <algorithm>
#include <atomic>
#include <chrono>
#include <climits>
#include <cstring>
#include <thread>

#include <unistd.h>

#if defined(__x86_64__) || defined(_M_X64)
#include <emmintrin.h>
#define AOTRT_FLUSH_X86 1
#elif defined(__aarch64__)
#define AOTRT_FLUSH_ARM64 1
#endif

#include "aotrt/module.h"
#include "aotrt/ndarray.h"
#include "aotrt/profiling.h"
#include "backend/workspace.h"
#include "base/error_util.h"
#include "profiling/internal.h"
#include "base/device.h"
#include "device/device_api.h"

namespace aotrt {
namespace {

using Clock = std::chrono::steady_clock;

std::atomic<bool> g_interrupt{false};
static_assert(std::atomic<bool>::is_always_lock_free, "the flag is set from signal handlers");

#if defined(AOTRT_FLUSH_X86)
void FlushRange(const char* addr, size_t len) {
  static const size_t line = [] {  // the L1 data cache line, read once
    long v = ::sysconf(_SC_LEVEL1_DCACHE_LINESIZE);
    return v > 0 && (v & (v - 1)) == 0 ? static_cast<size_t>(v) : size_t{64};
  }();
  uintptr_t end = reinterpret_cast<uintptr_t>(addr) + len;
  for (uintptr_t p = reinterpret_cast<uintptr_t>(addr) & ~(line - 1); p < end; p += line) {
    _mm_clflush(reinterpret_cast<const void*>(p));
  }
  _mm_mfence();
}
#elif defined(AOTRT_FLUSH_ARM64)
void FlushRange(const char* addr, size_t len) {
  uint64_t ctr_el0 = 0;
  asm volatile("mrs %0, ctr_el0" : "=r"(ctr_el0));
  const size_t line = size_t{4} << ((ctr_el0 >> 16) & 15);  // DminLine: log2 of words
  uintptr_t end = reinterpret_cast<uintptr_t>(addr) + len;
  for (uintptr_t p = reinterpret_cast<uintptr_t>(addr) & ~(line - 1); p < end; p += line) {
    asm volatile("dc civac, %0" : : "r"(p) : "memory");
  }
  asm volatile("dsb ish" : : : "memory");
}
#else
// No flush instruction: write through a buffer larger than common last-level caches.
void FlushRange(const char*, size_t) {
  constexpr size_t kSweepBytes = size_t{64} << 20;
  static thread_local std::vector<char> sweep(kSweepBytes);
  for (size_t i = 0; i < sweep.size(); i += 64) sweep[i] = static_cast<char>(sweep[i] + 1);
}
#endif

[[noreturn]] void Interrupted(int done, int repeat) {
  AOTRT_THROW(kInterrupted, "time evaluator: interrupted after ", done, " of ", repeat, " repeats");
}

}  // namespace

void RequestInterrupt() { g_interrupt.store(true, std::memory_order_relaxed); }
void ClearInterrupt() { g_interrupt.store(false, std::memory_order_relaxed); }
bool InterruptRequested() { return g_interrupt.load(std::memory_order_relaxed); }

size_t WorkspaceRequestedPeak() { return ThreadWorkspacePeak(); }  // the backend's, made public
void WorkspaceResetPeak() { ResetThreadWorkspacePeak(); }

void CacheFlushNonFirstArg(TVMArgs args) {
  for (int i = 1; i < args.size(); ++i) {
    int code = args[i].type_code();
    if (code != kTVMDLTensorHandle && code != kTVMNDArrayHandle) continue;
    const DLTensor* t = args[i].AsDLTensor();
    if (t->data == nullptr) continue;
    FlushRange(static_cast<const char*>(t->data) + t->byte_offset, TensorBytes(*t));
  }
}

void ValidateTimeEvaluatorOptions(const TimeEvaluatorOptions& o) {
  profiling_internal::RequireInRanges(
      "time evaluator",
      {{"number", o.number, 1, kMaxTimingNumber}, {"repeat", o.repeat, 0, kMaxTimingRepeat},
       {"min_repeat_ms", o.min_repeat_ms, 0, kMaxTimingMs},
       {"limit_zero_time_iterations", o.limit_zero_time_iterations, 0},
       {"cooldown_interval_ms", o.cooldown_interval_ms, 0, kMaxTimingMs},
       {"cache_flush_bytes", o.cache_flush_bytes, 0}});
  AOTRT_REQUIRE(o.cooldown_interval_ms == 0 || o.repeats_to_cooldown >= 1, kInvalidArgument,
                "time evaluator: repeats_to_cooldown must be >= 1 when cooldown_interval_ms > 0, got ",
                o.repeats_to_cooldown);
}

namespace profiling_internal {

void RequireInRanges(const char* what, std::initializer_list<Bound> bounds) {
  for (const Bound& b : bounds) {
    AOTRT_REQUIRE(b.value >= b.lo, kInvalidArgument, what, ": ", b.name, " must be >= ", b.lo, ", got ", b.value);
    AOTRT_REQUIRE(b.value <= b.hi, kInvalidArgument, what, ": ", b.name, " must be <= ", b.hi, ", got ", b.value);
  }
}

PackedFunc FunctionToTime(const Module& module, const std::string& name) {
  PackedFunc f = module.defined() ? module.GetFunction(name, /*query_imports=*/true) : GetGlobalFunction(name);
  AOTRT_REQUIRE(static_cast<bool>(f), kNotFound, "Cannot find ", name, " in the module or global registry");
  return f;
}

int GrowNumber(int number, int min_repeat_ms, double duration_ms) {
  constexpr double kGoldenRatio = 1.618;
  double grown = std::max(min_repeat_ms / (duration_ms / number) + 1, number * kGoldenRatio);
  // TVM casts unchecked; a cast of a double beyond INT_MAX is undefined, so saturate.
  return grown >= static_cast<double>(INT_MAX) ? INT_MAX : static_cast<int>(grown);
}

bool SleepUnlessInterrupted(int ms) {
  const Clock::time_point end = Clock::now() + std::chrono::milliseconds(ms);
  for (Clock::time_point now = Clock::now(); now < end; now = Clock::now()) {
    if (InterruptRequested()) return false;
    std::this_thread::sleep_for(std::min<Clock::duration>(end - now, std::chrono::milliseconds(50)));
  }
  return !InterruptRequested();
}

CacheFlusher::CacheFlusher(int bytes) {
  if (bytes <= 0) return;
  std::vector<int64_t> shape{bytes / 4};
  DLDataType i32{kDLInt, 32, 1};
  a = NDArray::Empty(shape, i32);
  b = NDArray::Empty(shape, i32);
}

double TimeBatches(const PackedFunc& f, TVMArgs args, int* number, int min_repeat_ms, int zero_limit,
                   CacheFlusher* flusher, int64_t cap, DeviceAPI* device, int device_id) {
  TVMRetValue discard;
  double duration_ms = 0.0;
  int zero_times = 0;
  do {
    if (duration_ms > 0.0) *number = GrowNumber(*number, min_repeat_ms, duration_ms);
    if (*number >= cap) {
      *number = static_cast<int>(cap);
      return -1.0;
    }
    if (flusher) flusher->Flush();
    Clock::time_point start = Clock::now();
    for (int j = 0; j < *number; ++j) {
      f.CallPacked(args, &discard);
      if (InterruptRequested()) return -1.0;
    }
    if (device) device->Sync(device_id, nullptr);
    int64_t ns = std::chrono::duration_cast<std::chrono::nanoseconds>(Clock::now() - start).count();
    if (ns == 0) ++zero_times;
    duration_ms = static_cast<double>(ns) / 1e6;
  } while (duration_ms < min_repeat_ms && zero_times < zero_limit);
  return duration_ms;
}

}  // namespace profiling_internal

PackedFunc WrapTimeEvaluator(PackedFunc f, DLDevice dev, const TimeEvaluatorOptions& opt, PackedFunc f_preproc) {
  AOTRT_REQUIRE(static_cast<bool>(f), kInvalidArgument, "time evaluator: the function to time is empty");
  DeviceAPI* device = IsAcceptedCpuDevice(dev) ? nullptr : &RequireDevice(dev, "time evaluator");
  ValidateTimeEvaluatorOptions(opt);
  int number = opt.number;  // mutable state of the closure: growth persists across calls
  auto timer = [f, f_preproc, opt, number, device, id = dev.device_id](TVMArgs args, TVMRetValue* rv) mutable {
    TVMRetValue discard;
    f.CallPacked(args, &discard);  // warm-up: lazy initialisation, first touch of memory
    if (device) device->Sync(id, nullptr);
    profiling_internal::CacheFlusher flusher(opt.cache_flush_bytes);
    std::string result(static_cast<size_t>(opt.repeat) * sizeof(double), '\0');
    for (int r = 0; r < opt.repeat; ++r) {
      if (f_preproc) f_preproc.CallPacked(args, &discard);
      double duration_ms = profiling_internal::TimeBatches(f, args, &number, opt.min_repeat_ms,
                                                           opt.limit_zero_time_iterations, &flusher, INT64_MAX, device, id);
      if (duration_ms < 0) Interrupted(r, opt.repeat);
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
  PackedFunc f = profiling_internal::FunctionToTime(module, name);
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
  TimeEvaluatorOptions opt{number, repeat, min_repeat_ms, limit_zero_time_iterations, cooldown_interval_ms,
                           repeats_to_cooldown, cache_flush_bytes};
  return TimeEvaluator(module, name, dev, opt, f_preproc);
}

}  // namespace aotrt
