// Helpers shared by the profiling sources (not part of the public API).
#pragma once

#include <cstdint>

#include <dlpack/dlpack.h>

#include <string>

#include "aotrt/module.h"
#include "aotrt/ndarray.h"
#include "aotrt/profiling.h"

namespace aotrt {
namespace profiling_internal {

// ProfileOperators on an executor given as its module (an AotExecutor, as factory["<model>"](dev)
// returns it; kInvalidArgument for any other module). What the global function uses.
OperatorProfile ProfileExecutorModule(const Module& executor_module, const OperatorProfileOptions& options);

// `s` as a JSON string literal, quotes included.
std::string JsonQuote(const std::string& s);

// Throws Error(kInvalidArgument) naming `what` unless `dev` is a CPU device.
void RequireCpu(DLDevice dev, const char* what);

// TVM's growth rule: int(max(min_repeat_ms / (duration_ms / number) + 1, number * 1.618)),
// saturated at INT_MAX. `duration_ms` > 0.
int GrowNumber(int number, int min_repeat_ms, double duration_ms);

// Sleep `ms` milliseconds in slices, returning early (false) on an interrupt request.
bool SleepUnlessInterrupted(int ms);

// Throws kInvalidArgument "<what>: <name> must be <= <limit>, got <value>" when value > limit.
void RequireAtMost(const char* what, const char* name, int64_t value, int64_t limit);

// Two int32 arrays of bytes/4 elements; Flush() copies one into the other (evicting other data
// from the caches), as TVM's time evaluator does. Does nothing for bytes <= 0.
class CacheFlusher {
 public:
  explicit CacheFlusher(int bytes);
  void Flush();

 private:
  NDArray a_;
  NDArray b_;
};

}  // namespace profiling_internal
}  // namespace aotrt
