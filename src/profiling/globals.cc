// Global functions of the profiling layer: runtime.RPCTimeEvaluator (TVM's contract, ABI.md 9.1;
// its arguments are decoded in rpc_time_evaluator_args.cc), cache_flush_cpu_non_first_arg,
// aotrt.profiling.Benchmark (per-call samples as JSON) and aotrt.profiling.ProfileOperators (the
// per-operator profile as JSON).
#include <climits>

#include "aotrt/module.h"
#include "aotrt/profiling.h"
#include "base/error_util.h"
#include "ffi/registry.h"
#include "profiling/internal.h"

namespace aotrt {
namespace {

int IntArg(const char* fn, TVMArgs args, int i, const char* name) {
  int64_t v = args[i].AsInt();
  AOTRT_REQUIRE(v >= INT_MIN && v <= INT_MAX, kOutOfRange, fn, ": ", name, " = ", v, " does not fit in an int");
  return static_cast<int>(v);
}

// Argument 0 of both factories: a module, or null for the global registry.
Module ModuleArg(TVMArgs args) {
  if (args[0].type_code() == kTVMNullptr) return Module();
  return Module(args[0].AsModule());
}

void RequireCount(const char* fn, TVMArgs args, int n) {
  AOTRT_REQUIRE(args.size() == n, kInvalidArgument, fn, " takes ", n, " arguments, got ", args.size());
}

void RpcTimeEvaluator(TVMArgs args, TVMRetValue* rv) {
  profiling_internal::RpcTimeEvaluatorArgs a = profiling_internal::ParseRpcTimeEvaluatorArgs(args);
  PackedFunc timer = TimeEvaluator(a.module, a.name, a.device, a.options, a.f_preproc);
  rv->SetObject(timer.object(), kTVMPackedFuncHandle);
}

void BenchmarkFactory(TVMArgs args, TVMRetValue* rv) {
  const char* fn = "aotrt.profiling.Benchmark";
  RequireCount(fn, args, 8);
  Module mod = ModuleArg(args);
  std::string name = args[1].AsString();
  PackedFunc f = mod.defined() ? mod.GetFunction(name, true) : GetGlobalFunction(name);
  AOTRT_REQUIRE(static_cast<bool>(f), kNotFound, "Cannot find ", name, " in the module or global registry");
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
  RequireCount(fn, args, 5);
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

}  // namespace

namespace {

void CacheFlush(TVMArgs args, TVMRetValue*) { CacheFlushNonFirstArg(args); }

constexpr GlobalDef kDefs[] = {
    {"runtime.RPCTimeEvaluator", RpcTimeEvaluator},
    {"cache_flush_cpu_non_first_arg", CacheFlush},
    {"aotrt.profiling.Benchmark", BenchmarkFactory},
    {"aotrt.profiling.ProfileOperators", ProfileOperatorsGlobal},
};

}  // namespace

extern const GlobalTable kProfilingGlobals{kDefs};

}  // namespace aotrt
