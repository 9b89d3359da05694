// Helpers shared by the profiling sources (not part of the public API).
#pragma once

#include <cstdint>

#include <dlpack/dlpack.h>

#include <string>

#include "aotrt/module.h"
#include "aotrt/ndarray.h"
#include "aotrt/packed_func.h"
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

// The global runtime.RPCTimeEvaluator's arguments, decoded.
struct RpcTimeEvaluatorArgs {
  Module module;  // undefined: `name` is a global function
  std::string name;
  DLDevice device{kDLCPU, 0};
  TimeEvaluatorOptions options;
  std::string f_preproc;  // empty: none
};

// Decodes the 12 arguments of TVM v0.14+ (ABI.md 9.1), the 11 of v0.10-v0.13 (no
// cache_flush_bytes) or the 10 of v0.9 (no cache_flush_bytes nor limit_zero_time_iterations); a
// missing option takes TVM's default (limit_zero_time_iterations 100, cache_flush_bytes 0).
// Throws kInvalidArgument (another count, a non-CPU device), kTypeMismatch (an argument of the
// wrong type code, naming its position), kOutOfRange (an int that does not fit), kNotImplemented
// (an RPC module). The options are not range-checked here (TimeEvaluator does).
RpcTimeEvaluatorArgs ParseRpcTimeEvaluatorArgs(TVMArgs args);

}  // namespace profiling_internal
}  // namespace aotrt
