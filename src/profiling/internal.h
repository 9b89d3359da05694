// Helpers shared by the profiling sources (not part of the public API).
#pragma once

#include <cstdint>

#include <dlpack/dlpack.h>

#include <functional>
#include <initializer_list>
#include <string>

#include "aotrt/module.h"
#include "aotrt/ndarray.h"
#include "aotrt/packed_func.h"
#include "aotrt/profiling.h"

namespace aotrt {

class DeviceAPI;
class PlannedExecutor;

// The measured per-operator profile (OperatorProfile::measured) of an executor whose operators
// are calls of their own (PlannedExecutor::NumOps() > 0: a graph's nodes): each is timed on every
// run; nothing is sampled. Runs `ex` warmup + profiled times with its current inputs. Throws
// kInvalidArgument (options) and what Run() throws.
OperatorProfile ProfileMeasured(PlannedExecutor& ex, const OperatorProfileOptions& options);
// A measured profile: `run` warmup + profiled times, each adding its operators' milliseconds
// (mean_ms) and calls (samples) to the lines of `ops`. Throws kInvalidArgument (options), what `run` throws.
OperatorProfile ProfileMeasuredRuns(const OperatorProfileOptions& options, const std::function<void()>& run,
                                    std::vector<OperatorCost>* ops);
// TVM's runtime.profiling.Report of a measured profile.
ObjectPtr<ProfileReportObj> MakeProfileReport(const OperatorProfile& profile);

namespace profiling_internal {

// ProfileOperators on an executor given as its module (an AotExecutor, as factory["<model>"](dev)
// returns it; kInvalidArgument for any other module). What the global function uses.
OperatorProfile ProfileExecutorModule(const Module& executor_module, const OperatorProfileOptions& options);

// `s` as a JSON string literal, quotes included (invalid UTF-8 replaced by U+FFFD).
std::string JsonQuote(const std::string& s);

// An option's bounds: lo <= value <= hi.
struct Bound {
  const char* name;
  int64_t value, lo, hi = INT64_MAX;
};
// Throws kInvalidArgument "<what>: <name> must be >= <lo>, got <value>" (or "<= <hi>") for the
// first of `bounds` its value breaks.
void RequireInRanges(const char* what, std::initializer_list<Bound> bounds);

// The function `name` of `module`, or the global one when `module` is undefined; kNotFound if none.
PackedFunc FunctionToTime(const Module& module, const std::string& name);

// TVM's growth rule: int(max(min_repeat_ms / (duration_ms / number) + 1, number * 1.618)),
// saturated at INT_MAX. `duration_ms` > 0.
int GrowNumber(int number, int min_repeat_ms, double duration_ms);

// Sleep `ms` milliseconds in slices, returning early (false) on an interrupt request.
bool SleepUnlessInterrupted(int ms);

// Two int32 arrays of bytes/4 elements; Flush() copies one into the other (evicting other data
// from the caches), as TVM's time evaluator does. Does nothing for bytes <= 0.
struct CacheFlusher {
  explicit CacheFlusher(int bytes);
  void Flush() {
    if (a.defined()) a.CopyFrom(b.tensor());
  }
  NDArray a, b;
};

// TVM's calibration: times batches of *number calls of f(args), each after flusher->Flush() (if
// given), growing *number (GrowNumber) until a batch lasts min_repeat_ms or zero_limit batches
// took 0 ns. Returns the last batch's milliseconds; -1 when an interrupt request stopped a batch
// or *number reached `cap` (then *number = cap, and no batch ran at that size).
// With a `device` (not the CPU's), each batch ends when device `device_id` has finished its work
// (the calls only enqueue it).
double TimeBatches(const PackedFunc& f, TVMArgs args, int* number, int min_repeat_ms, int zero_limit,
                   CacheFlusher* flusher, int64_t cap = INT64_MAX, DeviceAPI* device = nullptr, int device_id = 0);

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
