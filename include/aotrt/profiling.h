// Timing packed functions: TVM's time evaluator, a benchmark that keeps every sample, and the
// per-operator profile of a model.
//
// Thread-safety: the functions here are pure or only touch their arguments, except
// ProfileOperators (one per process at a time). A time evaluator function keeps its (growing)
// `number` between calls, like TVM's: call one timer from one thread at a time. Timing uses the
// monotonic std::chrono::steady_clock.
// Errors: aotrt::Error with kInvalidArgument for bad options, kNotFound for missing functions,
// and whatever the timed function throws, unchanged.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <utility>
#include <vector>

#include <dlpack/dlpack.h>

#include "aotrt/export.h"
#include "aotrt/module.h"
#include "aotrt/packed_func.h"

namespace aotrt {

// A process-wide interrupt request for long timing loops (AOTRTSetInterrupt in C): Benchmark(),
// time evaluators and ProfileOperators poll it between calls and sleep cooldowns in slices of at
// most 50 ms. It stays set until cleared. Async-signal-safe: a SIGINT handler may call it.
AOTRT_API void RequestInterrupt();
AOTRT_API void ClearInterrupt();
AOTRT_API bool InterruptRequested();

// Upper bounds of the timing options: larger values are refused (kInvalidArgument naming the
// option and the bound).
constexpr int kMaxTimingNumber = 1 << 30;           // calls per measurement
constexpr int kMaxTimingRepeat = 1 << 20;           // measurements
constexpr int kMaxTimingMs = 3600 * 1000;           // min_repeat_ms and cooldown_interval_ms: one hour

// The options of TVM's time evaluator (ABI.md 9.1), in the order of runtime.RPCTimeEvaluator.
struct TimeEvaluatorOptions {
  int number = 10;                      // calls per measurement (>= 1); grows with min_repeat_ms
  int repeat = 1;                       // measurements, i.e. doubles in the result (>= 0)
  int min_repeat_ms = 0;                // grow `number` until one measurement lasts this long (>= 0)
  int limit_zero_time_iterations = 100; // stop growing after this many 0 ns measurements (>= 0)
  int cooldown_interval_ms = 0;         // sleep after repeats r with r % repeats_to_cooldown == 0
  int repeats_to_cooldown = 1;          // >= 1 when cooldown_interval_ms > 0
  int cache_flush_bytes = 0;            // > 0: copy between two arrays this big before each measurement
};

// TVM's runtime.profiling.Report, as the graph debug executor's profile(...) returns it: the
// report rendered once as a table, CSV and TVM's report JSON. TVM's Python Report class wraps it
// (table(), csv(), json() through the globals runtime.profiling.AsTable / AsCSV / AsJSON), as do
// aotrt's Python package and tvm::runtime::profiling::Report. Immutable: thread-safe.
class ProfileReportObj : public Object {
 public:
  static constexpr uint32_t _type_index = kTypeProfileReport;
  ProfileReportObj(std::string table, std::string csv, std::string json)
      : Object(kTypeProfileReport), table(std::move(table)), csv(std::move(csv)), json(std::move(json)) {}
  // TVM's arguments are accepted; the rows are by cost already.
  std::string AsTable(bool /*sort*/ = true, bool /*aggregate*/ = true, bool /*col_sums*/ = true) const { return table; }
  std::string AsCSV() const { return csv; }
  std::string AsJSON() const { return json; }
  const std::string table, csv, json;
};
// The report of TVM's report JSON (profile_rpc's): a line per call (Name, Duration (us), Percent,
// Count, Argument Shapes), the JSON kept. Throws kFormatError (not JSON, no "calls").
AOTRT_API ObjectPtr<ProfileReportObj> ProfileReportFromJson(const std::string& json);

// Throws Error(kInvalidArgument) naming the first option out of range.
AOTRT_API void ValidateTimeEvaluatorOptions(const TimeEvaluatorOptions& opt);

// TVM's module.time_evaluator: a function timing module.GetFunction(name, true) (or, for an
// undefined module, the global `name`); see WrapTimeEvaluator below for what it returns. Throws
// kNotFound ("Cannot find <name> in the module or global registry", or a missing global
// f_preproc) and kInvalidArgument (non-CPU device, bad option).
AOTRT_API PackedFunc TimeEvaluator(const Module& module, const std::string& name, DLDevice dev, int number = 10,
                                   int repeat = 1, int min_repeat_ms = 0, int limit_zero_time_iterations = 100,
                                   int cooldown_interval_ms = 0, int repeats_to_cooldown = 1,
                                   int cache_flush_bytes = 0, const std::string& f_preproc = "");
// The same with the options as one struct (the defaults are TVM's).
AOTRT_API PackedFunc TimeEvaluator(const Module& module, const std::string& name, DLDevice dev,
                                   const TimeEvaluatorOptions& options, const std::string& f_preproc = "");

// TVM's WrapTimeEvaluator (ABI.md 9.2): a function that, called with `f`'s arguments, calls `f`
// once to warm up, then `repeat` times: `f_preproc` (when defined) with the same arguments and one
// measurement of `number` calls; it returns (kTVMBytes, see ParseTimes) `repeat` native doubles,
// the mean seconds per call of each measurement. An interrupt request makes the call throw
// kInterrupted. `f` and `f_preproc` are held by the returned function. Throws kInvalidArgument for
// an empty `f`, a device other than CPU or bad options.
AOTRT_API PackedFunc WrapTimeEvaluator(PackedFunc f, DLDevice dev, const TimeEvaluatorOptions& opt,
                                       PackedFunc f_preproc = PackedFunc());

// The doubles in a time evaluator's result. Throws kFormatError if the size is not a multiple of 8.
AOTRT_API std::vector<double> ParseTimes(const std::string& bytes);

// Flush the CPU cache lines of every tensor argument but the first (clflush on x86-64, `dc civac`
// on AArch64, else a sweep through a large buffer); non-tensor arguments are skipped. The body of
// the global `cache_flush_cpu_non_first_arg`, meant as an f_preproc.
AOTRT_API void CacheFlushNonFirstArg(TVMArgs args);

// Options of Benchmark(). Every call is timed on its own.
struct BenchmarkOptions {
  int warmup = 1;                // untimed calls first (>= 0)
  int number = 1;                // timed calls per repeat (>= 1); may grow, see min_repeat_ms
  int repeat = 10;               // repeats (>= 1)
  int min_repeat_ms = 0;         // > 0: after warm-up, grow `number` (TVM's rule) until one repeat
                                 // lasts about this long; number * repeat is capped at kMaxBenchmarkSamples
  int cooldown_interval_ms = 0;  // sleep after each repeat but the last (>= 0)
  int cache_flush_bytes = 0;     // > 0: copy between two arrays this big before each repeat
  // Called after each repeat with (repeats done, repeat), outside the timed region. May be empty.
  std::function<void(int done, int total)> progress;
};

// Upper bound on number * repeat in Benchmark() (a sample vector under 128 MiB).
constexpr int64_t kMaxBenchmarkSamples = int64_t{1} << 24;

// Statistics over the per-call samples, in seconds.
struct BenchmarkStats {
  std::vector<double> samples;  // seconds per individual call, in call order (number * repeat)
  std::vector<double> repeats;  // mean of each repeat's samples
  double min = 0, max = 0, mean = 0, median = 0;
  double std = 0;  // population standard deviation (numpy's default ddof=0)
  double p50 = 0, p90 = 0, p99 = 0, p999 = 0;
  int number = 0;  // calls per repeat actually used
  int repeat = 0;   // repeats completed (fewer than asked when interrupted)
  bool interrupted = false;  // stopped by RequestInterrupt(): the fields describe the repeats done
};

// The q-th percentile (0 <= q <= 100) of ascending `sorted` values with linear interpolation
// between closest ranks (numpy.percentile's default). Throws kInvalidArgument when `sorted` is
// empty or q is out of range.
AOTRT_API double PercentileSorted(const std::vector<double>& sorted, double q);
// Fill min..p999 of `stats` from stats.samples (all zero when there are none). Pure.
AOTRT_API void ComputeStats(BenchmarkStats* stats);
// {"samples": [...], "repeats": [...], "min": ..., ..., "p999": ..., "number": N, "repeat": R}
AOTRT_API std::string BenchmarkStatsToJson(const BenchmarkStats& stats);

// Throws Error(kInvalidArgument) naming the first option out of range.
AOTRT_API void ValidateBenchmarkOptions(const BenchmarkOptions& options);
// Run `f(args)` options.warmup times, then options.repeat repeats of options.number timed calls.
// The hot loop does not allocate. On an interrupt request it stops after the call in progress and
// returns the completed repeats with `interrupted` set. Throws kInvalidArgument (options, empty f)
// and what f throws.
AOTRT_API BenchmarkStats Benchmark(const PackedFunc& f, TVMArgs args, const BenchmarkOptions& options);

// The most bytes generated code held at once through TVMBackendAllocWorkspace on the calling
// thread (the sizes it asked for, not the pool's rounded blocks) since the last
// WorkspaceResetPeak(): what a model without memory planning needs per run (`aotrt inspect`).
AOTRT_API size_t WorkspaceRequestedPeak();
AOTRT_API void WorkspaceResetPeak();

class Executor;  // aotrt/model.h

// ---- Per-operator profile of a model (README "Where the time goes": how samples are taken and
// attributed, how to read the report). A graph export's operators are timed one by one
// (OperatorProfile::measured); an AOT model's are sampled with SIGPROF while it runs on the
// calling thread. Percentages are shares of the samples; mean_ms is that share of the mean run
// time measured during the profile.

struct OperatorProfileOptions {
  double duration_s = 3.0;  // profile for about this long (> 0, <= 3600); ignored when runs > 0
  int runs = 0;             // > 0: exactly this many profiled runs instead (<= kMaxTimingNumber)
  int period_us = 1000;     // mean interval between samples (100 .. 1000000)
  int warmup = 1;           // unprofiled runs first (>= 0, <= kMaxTimingNumber)
};

// One line of the report.
struct OperatorCost {
  std::string name;     // operator (prefix and `_compute_` stripped), or a description in brackets
  std::string symbol;   // the ELF symbol, or "" for an address range or the outside line
  uint64_t samples = 0;
  double percent = 0;   // samples / all samples * 100
  double ci95 = 0;      // 95% confidence half-width of `percent`, in percentage points (Wilson)
  double mean_ms = 0;   // percent / 100 * run_ms
  std::string shapes;   // measured profiles: the node's argument shapes, "float32[1, 3, 224, 224], ..."
};

// Plain data: copyable, no reference into the executor or the library.
struct AOTRT_API OperatorProfile {
  std::string model;         // the factory's model name ("default")
  std::string library;       // the file the symbols came from
  std::string symbol_table;  // ".symtab", ".dynsym", or "" (stripped: the report is by address)
  int runs = 0;              // profiled runs
  double run_ms = 0;         // mean wall time per profiled run (sampling included)
  double run_ms_median = 0;  // median of the same runs
  uint64_t samples = 0;      // samples in the report (taken during runs)
  uint64_t dropped = 0;      // samples beyond the buffer (not in the shares; normally 0)
  int period_us = 0;
  std::vector<OperatorCost> operators;  // by cost, highest first; unnamed code by address
  OperatorCost outside;      // samples in no operator: the runtime and the entry's own glue
  uint64_t glue_samples = 0;     // of `outside`: in the entry function (`__tvm_main__`)
  bool interrupted = false;  // stopped early by RequestInterrupt()
  // A graph model's profile is measured, not sampled: each node is a call of its own, timed on
  // every run. Then `operators` are the graph's nodes by cost, `samples` each node's calls (and
  // the total calls), ci95 0, and `outside` the time between the calls.
  bool measured = false;
  std::string executor = "Graph";  // of a measured profile: "Graph" (its nodes) or "VM" (a Relay VM function's primitives)

  // A table of lines up to about 100 columns (names over 40 and long shapes cut, "..."): name,
  // percent, +-ci95 (sampled only), mean ms, samples or calls, the argument shapes when the rows
  // have them; the outside line; the total; a footer saying how it was taken. Pure.
  std::string ToTable() const;
  // {"model", "library", "symbol_table", "run_ms", "run_ms_median", "runs", "samples" ("calls"
  //  when measured), "period_us", "dropped", "interrupted", "measured", "operators": [{"name",
  //  "symbol", "percent", "ci95", "mean_ms", "samples" or "calls"[, "shapes"]}, ...], "outside":
  //  {...}, "glue_samples"}: names and shapes whole. Pure.
  std::string ToJson() const;
  // name,symbol,percent,ci95,mean_ms,samples (calls),shapes: a header row, the operators, then
  // the outside line.
  std::string ToCsv() const;
};

// Throws Error(kInvalidArgument) naming the first option out of range.
AOTRT_API void ValidateOperatorProfileOptions(const OperatorProfileOptions& options);

// Profile `executor` with its current inputs (it runs warmup + profiled runs; outputs are
// overwritten). Call from the thread that would run it; the executor must not be used by another
// thread meanwhile (as for Run()). One profile at a time per process: a concurrent call throws
// kInvalidArgument ("another operator profile is running"). Installs a SIGPROF handler for the
// duration and restores the previous one after. An interrupt request (RequestInterrupt) ends it
// early with `interrupted` set. Throws kInvalidArgument (options, empty executor), kNotFound
// (the model's code lies in no loaded file: linked from objects in memory), kIOError (the
// library file unreadable, the timer unavailable), kFormatError (corrupt ELF), and what Run()
// throws, unchanged.
AOTRT_API OperatorProfile ProfileOperators(Executor& executor, const OperatorProfileOptions& options = {});

}  // namespace aotrt
