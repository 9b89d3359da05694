// The interrupt request of long timing loops, and the polls and sliced sleeps that honour it.
#include <atomic>
#include <chrono>
#include <thread>

#include "aotrt/profiling.h"
#include "profiling/internal.h"

namespace aotrt {
namespace {

std::atomic<bool> g_interrupt{false};
static_assert(std::atomic<bool>::is_always_lock_free, "the flag is set from signal handlers");

}  // namespace

void RequestInterrupt() { g_interrupt.store(true, std::memory_order_relaxed); }
void ClearInterrupt() { g_interrupt.store(false, std::memory_order_relaxed); }
bool InterruptRequested() { return g_interrupt.load(std::memory_order_relaxed); }

namespace profiling_internal {

bool SleepUnlessInterrupted(int ms) {
  using Clock = std::chrono::steady_clock;
  const Clock::time_point end = Clock::now() + std::chrono::milliseconds(ms);
  for (Clock::time_point now = Clock::now(); now < end; now = Clock::now()) {
    if (InterruptRequested()) return false;
    std::this_thread::sleep_for(std::min<Clock::duration>(end - now, std::chrono::milliseconds(50)));
  }
  return !InterruptRequested();
}

}  // namespace profiling_internal
}  // namespace aotrt
