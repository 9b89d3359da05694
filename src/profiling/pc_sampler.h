// Samples the program counter of the calling thread at random intervals around a mean period of
// wall-clock time (a POSIX timer on CLOCK_MONOTONIC aimed at this thread with SIGEV_THREAD_ID,
// re-armed by the SIGPROF handler with a jittered delay so that samples cannot lock onto a
// periodic run). Each sample records the interrupted PC and, when the thread is inside a
// TVMBackendParallelLaunch, the address in the operator that launched it (backend/thread_pool.h):
// the launch's whole wall time belongs to that operator, whichever code the thread waits in.
// Only samples taken while the recording flag is set (SetRecording) are stored, into a buffer
// allocated up front: the handler does not allocate, lock or call anything but timer_settime.
//
// One sampler per process at a time (kInvalidArgument "another operator profile is running").
// Construct, Start, then (on the same thread) SetRecording around the code to profile, Stop.
// Errors: kIOError when the timer or the handler cannot be installed (errno's text).
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

namespace aotrt {
namespace profiling_internal {

struct PcSample {
  uintptr_t pc = 0;
  uintptr_t launch_caller = 0;  // 0 outside a parallel launch
};

class PcSampler {
 public:
  // `period_us` >= 10: mean interval between samples. `capacity`: samples kept at most (later
  // ones are counted in dropped()).
  PcSampler(int period_us, size_t capacity);
  ~PcSampler();  // Stop()s
  PcSampler(const PcSampler&) = delete;
  PcSampler& operator=(const PcSampler&) = delete;

  void Start();  // installs the handler and arms the timer for the calling thread
  // Whether the samples arriving now are kept. A relaxed atomic store: no system call.
  static void SetRecording(bool on);
  // Disarms the timer, drains a pending signal, restores the previous SIGPROF disposition.
  void Stop();

  // The samples kept (valid after Stop()).
  std::vector<PcSample> Samples() const;
  uint64_t dropped() const;  // recorded signals beyond the capacity

 private:
  int period_us_;
  bool started_ = false;
  uint64_t dropped_ = 0;
  std::vector<PcSample> buffer_;
};

}  // namespace profiling_internal
}  // namespace aotrt
