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

// Argument 0 of the factories: a module, or null for the global registry.
Module ModuleArg(TVMArgs args) {
  return args[0].type_code() == kTVMNullptr ? Module() : Module(args[0].AsModule());
}

// Where each option of runtime.RPCTimeEvaluator sits in the layouts of 10, 11 and 12 arguments
// (ParseRpcTimeEvaluatorArgs); -1: the layout has none, TVM's default applies. f_preproc is last.
struct Field {
  int TimeEvaluatorOptions::*option;
  const char* name;
  int at[3];
};
using Opt = TimeEvaluatorOptions;
constexpr Field kFields[] = {{&Opt::number, "number", {4, 4, 4}},
                             {&Opt::repeat, "repeat", {5, 5, 5}},
                             {&Opt::min_repeat_ms, "min_repeat_ms", {6, 6, 6}},
                             {&Opt::limit_zero_time_iterations, "limit_zero_time_iterations", {-1, 7, 7}},
                             {&Opt::cooldown_interval_ms, "cooldown_interval_ms", {7, 8, 8}},
                             {&Opt::repeats_to_cooldown, "repeats_to_cooldown", {8, 9, 9}},
                             {&Opt::cache_flush_bytes, "cache_flush_bytes", {-1, -1, 10}}};

void RpcTimeEvaluator(TVMArgs args, TVMRetValue* rv) {
  profiling_internal::RpcTimeEvaluatorArgs a = profiling_internal::ParseRpcTimeEvaluatorArgs(args);
  PackedFunc timer = TimeEvaluator(a.module, a.name, a.device, a.options, a.f_preproc);
  rv->SetObject(timer.object(), kTVMPackedFuncHandle);
}

void BenchmarkFactory(TVMArgs args, TVMRetValue* rv) {
  const char* fn = "aotrt.profiling.Benchmark";
  RequireArgCount(fn, args, 8);
  PackedFunc f = profiling_internal::FunctionToTime(ModuleArg(args), args[1].AsString());
  BenchmarkOptions opt{IntArg(fn, args, 2, "warmup"), IntArg(fn, args, 3, "number"), IntArg(fn, args, 4, "repeat"),
                       IntArg(fn, args, 5, "min_repeat_ms"), IntArg(fn, args, 6, "cooldown_interval_ms"),
                       IntArg(fn, args, 7, "cache_flush_bytes"), nullptr};  // arguments in order, no progress
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
  OperatorProfileOptions opt{args[1].AsFloat(), IntArg(fn, args, 2, "runs"), IntArg(fn, args, 3, "period_us"),
                             IntArg(fn, args, 4, "warmup")};
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
  AOTRT_REQUIRE(args.size() >= 10 && args.size() <= 12, kInvalidArgument, kRpcFn,
                " takes 12 arguments (TVM v0.14+), 11 (v0.10-v0.13) or 10 (v0.9), got ", args.size());
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
  for (const Field& f : kFields) {
    int at = f.at[args.size() - 10];
    if (at >= 0) out.options.*f.option = IntArg(kRpcFn, args, at, f.name);  // else TVM's default stays
  }
  out.f_preproc = args[args.size() - 1].AsString();
  return out;
}

}  // namespace aotrt
