// Global functions of the profiling layer: runtime.RPCTimeEvaluator (TVM's contract, ABI.md 9.1,
// in every layout TVM's Python `Module.time_evaluator` has sent), cache_flush_cpu_non_first_arg,
// aotrt.profiling.Benchmark (per-call samples as JSON) and aotrt.profiling.ProfileOperators (the
// per-operator profile as JSON), and the text of TVM's runtime.profiling.Report.
#include <climits>

#include "aotrt/module.h"
#include "aotrt/profiling.h"
#include "base/device.h"
#include "base/error_util.h"
#include "device/device_api.h"
#include "ffi/registry.h"
#include "profiling/internal.h"

namespace aotrt {
namespace {

constexpr const char* kRpcFn = "runtime.RPCTimeEvaluator";

int IntArg(const char* fn, TVMArgs args, int i, const char* name) {
  int64_t v = args[i].AsInt();
  AOTRT_REQUIRE(v >= INT_MIN && v <= INT_MAX, kOutOfRange, fn, ": ", name, " = ", v, " does not fit in an int");
  return static_cast<int>(v);
}

// runtime.RPCTimeEvaluator's option at `index`, or `fallback` when the layout has none (index < 0).
int IntArgOr(TVMArgs args, int index, const char* name, int fallback) {
  return index < 0 ? fallback : IntArg(kRpcFn, args, index, name);
}

// Argument 0 of the factories: a module, or null for the global registry.
Module ModuleArg(TVMArgs args) {
  if (args[0].type_code() == kTVMNullptr) return Module();
  return Module(args[0].AsModule());
}

// Where each option of runtime.RPCTimeEvaluator sits in one layout (12 arguments: v0.14+; 11:
// v0.10-v0.13, no cache_flush_bytes; 10: v0.9, nor limit_zero_time_iterations); -1: the layout
// has none, TVM's default applies.
struct Layout {
  int limit_zero_time_iterations, cooldown_interval_ms, repeats_to_cooldown, cache_flush_bytes, f_preproc;
};

Layout LayoutFor(int num_args) {
  switch (num_args) {
    case 12: return {7, 8, 9, 10, 11};  // v0.14+
    case 11: return {7, 8, 9, -1, 10};  // v0.10-v0.13
    case 10: return {-1, 7, 8, -1, 9};  // v0.9
    default:
      AOTRT_THROW(kInvalidArgument, kRpcFn, " takes 12 arguments (TVM v0.14+), 11 (v0.10-v0.13) or 10 (v0.9), got ",
                  num_args);
  }
}

void RpcTimeEvaluator(TVMArgs args, TVMRetValue* rv) {
  profiling_internal::RpcTimeEvaluatorArgs a = profiling_internal::ParseRpcTimeEvaluatorArgs(args);
  PackedFunc timer = TimeEvaluator(a.module, a.name, a.device, a.options, a.f_preproc);
  rv->SetObject(timer.object(), kTVMPackedFuncHandle);
}

void BenchmarkFactory(TVMArgs args, TVMRetValue* rv) {
  const char* fn = "aotrt.profiling.Benchmark";
  RequireArgCount(fn, args, 8);
  Module mod = ModuleArg(args);
  PackedFunc f = profiling_internal::FunctionToTime(mod, args[1].AsString());
  BenchmarkOptions opt;
  opt.warmup = IntArg(fn, args, 2, "warmup");
  opt.number = IntArg(fn, args, 3, "number");
  opt.repeat = IntArg(fn, args, 4, "repeat");
  opt.min_repeat_ms = IntArg(fn, args, 5, "min_repeat_ms");
  opt.cooldown_interval_ms = IntArg(fn, args, 6, "cooldown_interval_ms");
  opt.cache_flush_bytes = IntArg(fn, args, 7, "cache_flush_bytes");
  ValidateBenchmarkOptions(opt);  // errors now rather than at the first call
  PackedFunc bench([f, opt](TVMArgs call_args, TVMRetValue* ret) {
    ret->SetString(BenchmarkStatsToJson(Benchmark(f, call_args, opt)));
  });
  rv->SetObject(bench.object(), kTVMPackedFuncHandle);
}

// aotrt.profiling.ProfileOperators(executor, duration_s, runs, period_us, warmup) -> str: the
// profile as JSON (OperatorProfile::ToJson) with two more keys, "table" and "csv", the report's
// ToTable() and ToCsv() text.
void ProfileOperatorsGlobal(TVMArgs args, TVMRetValue* rv) {
  const char* fn = "aotrt.profiling.ProfileOperators";
  RequireArgCount(fn, args, 5);
  AOTRT_REQUIRE(args[0].type_code() == kTVMModuleHandle, kTypeMismatch, fn,
                ": argument 0 must be an executor module, got type code ", args[0].type_code());
  Module executor(args[0].AsModule());
  OperatorProfileOptions opt;
  opt.duration_s = args[1].AsFloat();
  opt.runs = IntArg(fn, args, 2, "runs");
  opt.period_us = IntArg(fn, args, 3, "period_us");
  opt.warmup = IntArg(fn, args, 4, "warmup");
  OperatorProfile p = profiling_internal::ProfileExecutorModule(executor, opt);
  std::string json = p.ToJson();
  json.pop_back();  // the closing brace
  json += ", \"table\": " + profiling_internal::JsonQuote(p.ToTable()) +
          ", \"csv\": " + profiling_internal::JsonQuote(p.ToCsv()) + "}";
  rv->SetString(json);
}

// TVM's runtime.profiling.AsTable(report, sort, aggregate, col_sums) / AsCSV / AsJSON, which its
// Python Report class calls.
template <int kWhich>
void ReportText(TVMArgs args, TVMRetValue* rv) {
  const char* fn = kWhich == 0 ? "runtime.profiling.AsTable" : kWhich == 1 ? "runtime.profiling.AsCSV"
                                                                            : "runtime.profiling.AsJSON";
  AOTRT_REQUIRE(args.size() >= 1, kInvalidArgument, fn, " takes a runtime.profiling.Report");
  auto* r = static_cast<ProfileReportObj*>(args[0].AsObjectOf(kTypeProfileReport, fn));
  rv->SetString(kWhich == 0 ? r->table : kWhich == 1 ? r->csv : r->json);
}

constexpr GlobalDef kDefs[] = {
    {"runtime.profiling.AsTable", ReportText<0>},
    {"runtime.profiling.AsCSV", ReportText<1>},
    {"runtime.profiling.AsJSON", ReportText<2>},
    {"runtime.RPCTimeEvaluator", RpcTimeEvaluator},
    {"cache_flush_cpu_non_first_arg", [](TVMArgs args, TVMRetValue*) { CacheFlushNonFirstArg(args); }},
    {"aotrt.profiling.Benchmark", BenchmarkFactory},
    {"aotrt.profiling.ProfileOperators", ProfileOperatorsGlobal},
};

}  // namespace

extern const GlobalTable kProfilingGlobals{kDefs};

profiling_internal::RpcTimeEvaluatorArgs profiling_internal::ParseRpcTimeEvaluatorArgs(TVMArgs args) {
  const Layout at = LayoutFor(args.size());
  RpcTimeEvaluatorArgs out;
  out.module = ModuleArg(args);
  AOTRT_REQUIRE(!out.module.defined() || out.module.type_key() != "rpc", kNotImplemented, kRpcFn,
                ": RPC modules are not supported");
  out.name = args[1].AsString();
  int device_type = IntArg(kRpcFn, args, 2, "device_type");
  int device_id = IntArg(kRpcFn, args, 3, "device_id");
  // A device of a driver's type that the machine has (its queue is waited for after each call), or the CPU.
  out.device = IsAcceptedCpuDevice(device_type, device_id) ? DLDevice{kDLCPU, 0} : MakeDevice(device_type, device_id);
  if (out.device.device_type != kDLCPU || device_id != 0) RequireDevice(out.device, kRpcFn);
  const TimeEvaluatorOptions defaults;  // TVM's defaults: limit_zero_time_iterations 100, cache_flush_bytes 0
  out.options.number = IntArg(kRpcFn, args, 4, "number");
  out.options.repeat = IntArg(kRpcFn, args, 5, "repeat");
  out.options.min_repeat_ms = IntArg(kRpcFn, args, 6, "min_repeat_ms");
  out.options.limit_zero_time_iterations =
      IntArgOr(args, at.limit_zero_time_iterations, "limit_zero_time_iterations", defaults.limit_zero_time_iterations);
  out.options.cooldown_interval_ms = IntArg(kRpcFn, args, at.cooldown_interval_ms, "cooldown_interval_ms");
  out.options.repeats_to_cooldown = IntArg(kRpcFn, args, at.repeats_to_cooldown, "repeats_to_cooldown");
  out.options.cache_flush_bytes =
      IntArgOr(args, at.cache_flush_bytes, "cache_flush_bytes", defaults.cache_flush_bytes);
  out.f_preproc = args[at.f_preproc].AsString();
  return out;
}

}  // namespace aotrt
