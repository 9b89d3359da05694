// The arguments of the global runtime.RPCTimeEvaluator in every layout TVM's Python
// `Module.time_evaluator` has sent: 12 (v0.14+, ABI.md 9.1), 11 (v0.10-v0.13: no
// cache_flush_bytes) and 10 (v0.9: neither cache_flush_bytes nor limit_zero_time_iterations).
#include <climits>

#include "base/device.h"
#include "base/error_util.h"
#include "profiling/internal.h"

namespace aotrt {
namespace profiling_internal {
namespace {

constexpr const char* kFn = "runtime.RPCTimeEvaluator";

// Where each option sits in one layout; -1: the layout has none, TVM's default applies.
struct Layout {
  int limit_zero_time_iterations, cooldown_interval_ms, repeats_to_cooldown, cache_flush_bytes, f_preproc;
};

Layout LayoutFor(int num_args) {
  switch (num_args) {
    case 12: return {7, 8, 9, 10, 11};  // v0.14+
    case 11: return {7, 8, 9, -1, 10};  // v0.10-v0.13
    case 10: return {-1, 7, 8, -1, 9};  // v0.9
    default:
      AOTRT_THROW(kInvalidArgument, kFn, " takes 12 arguments (TVM v0.14+), 11 (v0.10-v0.13) or 10 (v0.9), got ",
                  num_args);
  }
}

int IntArg(TVMArgs args, int i, const char* name) {
  int64_t v = args[i].AsInt();
  AOTRT_REQUIRE(v >= INT_MIN && v <= INT_MAX, kOutOfRange, kFn, ": ", name, " = ", v, " does not fit in an int");
  return static_cast<int>(v);
}

// The option at `index`, or `fallback` when the layout has none (index < 0).
int IntArgOr(TVMArgs args, int index, const char* name, int fallback) {
  return index < 0 ? fallback : IntArg(args, index, name);
}

}  // namespace

RpcTimeEvaluatorArgs ParseRpcTimeEvaluatorArgs(TVMArgs args) {
  const Layout at = LayoutFor(args.size());
  RpcTimeEvaluatorArgs out;
  if (args[0].type_code() != kTVMNullptr) out.module = Module(args[0].AsModule());
  AOTRT_REQUIRE(!out.module.defined() || out.module.type_key() != "rpc", kNotImplemented, kFn,
                ": RPC modules are not supported");
  out.name = args[1].AsString();
  int device_type = IntArg(args, 2, "device_type");
  int device_id = IntArg(args, 3, "device_id");
  // Checked before the cast: an int outside DLDeviceType is no value of it.
  AOTRT_REQUIRE(IsAcceptedCpuDevice(device_type, device_id), kInvalidArgument, kFn,
                ": only CPU devices (device_type 1, device_id 0) are supported, got device_type ", device_type,
                " device_id ", device_id);
  out.device = DLDevice{kDLCPU, device_id};
  const TimeEvaluatorOptions defaults;  // TVM's defaults: limit_zero_time_iterations 100, cache_flush_bytes 0
  out.options.number = IntArg(args, 4, "number");
  out.options.repeat = IntArg(args, 5, "repeat");
  out.options.min_repeat_ms = IntArg(args, 6, "min_repeat_ms");
  out.options.limit_zero_time_iterations =
      IntArgOr(args, at.limit_zero_time_iterations, "limit_zero_time_iterations", defaults.limit_zero_time_iterations);
  out.options.cooldown_interval_ms = IntArg(args, at.cooldown_interval_ms, "cooldown_interval_ms");
  out.options.repeats_to_cooldown = IntArg(args, at.repeats_to_cooldown, "repeats_to_cooldown");
  out.options.cache_flush_bytes =
      IntArgOr(args, at.cache_flush_bytes, "cache_flush_bytes", defaults.cache_flush_bytes);
  out.f_preproc = args[at.f_preproc].AsString();
  return out;
}

}  // namespace profiling_internal
}  // namespace aotrt
