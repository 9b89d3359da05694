// aotrt profile MODEL.so [--input ...] [--duration S | --runs N] [--period-us US] [--warmup W]
//                        [--op-threads N] [--json] [--csv FILE]
// Where a run's time goes, operator by operator (aotrt::ProfileOperators), against the median of
// unprofiled runs timed just before and after (the `bench` figure).
#include <algorithm>
#include <chrono>
#include <climits>
#include <fstream>
#include <functional>
#include <iostream>
#include <memory>

#include <signal.h>

#include <aotrt/error.h>
#include <aotrt/model.h>
#include <aotrt/profiling.h>
#include <aotrt/vm.h>
#include <nlohmann/json.hpp>

#include "commands.h"
#include "vm_commands.h"
#include "model_io.h"
#include "table.h"
#include "usage_error.h"

namespace aotrt_cli {
namespace {

using Clock = std::chrono::steady_clock;

struct ProfileCliOptions {
  ModelSource model;
  InputOptions inputs;
  aotrt::OperatorProfileOptions profile;
  double bench_s = 0.5;  // unprofiled runs before and after, each phase about this long
  bool json = false;
  std::string csv;
  int op_threads = 0;
};

extern "C" void OnProfileSigint(int) { aotrt::RequestInterrupt(); }

// Times plain runs for about `seconds` (at least 3 runs), appending each run's ms to `out`.
void TimePlainRuns(const std::function<void()>& run, double seconds, std::vector<double>* out) {
  Clock::time_point end =
      Clock::now() + std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(seconds));
  for (int i = 0; (i < 3 || Clock::now() < end) && !aotrt::InterruptRequested(); ++i) {
    Clock::time_point t = Clock::now();
    run();
    out->push_back(std::chrono::duration<double, std::milli>(Clock::now() - t).count());
  }
}

double Median(std::vector<double> v) {
  if (v.empty()) return 0;
  std::sort(v.begin(), v.end());
  return aotrt::PercentileSorted(v, 50);
}

void PrintText(const ProfileCliOptions& o, const aotrt::OperatorProfile& p, double bench_ms, size_t bench_runs) {
  std::cout << p.ToTable();
  double overhead = bench_ms > 0 ? 100.0 * (p.run_ms_median / bench_ms - 1) : 0;
  std::cout << "bench      median of " << bench_runs << " unprofiled runs " << Fixed(bench_ms, bench_ms < 1 ? 6 : 4)
            << " ms; profiled runs: median " << Fixed(p.run_ms_median, bench_ms < 1 ? 6 : 4) << " ms\n           ("
            << (overhead >= 0 ? "+" : "")
            << Fixed(overhead, 1) << (p.measured ? "% while timing each call" : "% while sampling") << "), mean "
            << Fixed(p.run_ms, bench_ms < 1 ? 6 : 4) << " ms\n";
  if (p.measured) {
    std::cout << "reading    Mean ms is the operator's own time per run, timed around each of its calls; Percent its\n"
              << "           share of the run's wall time. Full names and shapes: --json or --csv FILE.\n";
    return;
  }
  std::cout << "reading    Percent is the share of samples (the run's wall time) in the operator; +-95% its 95%\n"
            << "           confidence half-width in percentage points; Mean ms = Percent x mean run time.\n";
}

void PrintJson(const ProfileCliOptions& o, const aotrt::OperatorProfile& p, double bench_ms, size_t bench_runs) {
  nlohmann::ordered_json j = nlohmann::ordered_json::parse(p.ToJson());
  j["model"] = o.model.path;
  j["model_name"] = p.model;
  j["bench_median_ms"] = bench_ms;
  j["bench_runs"] = bench_runs;
  j["overhead_percent"] = bench_ms > 0 ? 100.0 * (p.run_ms_median / bench_ms - 1) : 0.0;
  std::cout << j.dump(2) << "\n";
}

}  // namespace

CLI::App* AddProfileCommand(CLI::App& app, Action* run) {
  auto o = std::make_shared<ProfileCliOptions>();
  CLI::App* cmd = app.add_subcommand(
      "profile", "Where a run's time goes: each operator's share, by sampling the running thread's program counter");
  cmd->footer(
      "Reading the report: Percent = share of the samples in that operator (its share of the run's wall\n"
      "time); +-95% = its 95% confidence half-width in percentage points (4x the samples halve it: a\n"
      "longer --duration, or a smaller --period-us at more overhead); Mean ms = Percent x the mean\n"
      "profiled run. The outside line is the runtime and the entry's own glue. Names come from the\n"
      "library's ELF symbol table, not debug information; code no symbol covers (a stripped library) is\n"
      "listed by address range. The bench line compares the profiled runs' median with the median of\n"
      "unprofiled runs timed before and after (what `aotrt bench` reports): the profiler's overhead.\n"
      "Example: aotrt profile build/samples/digits.so -i image=samples/digits/inputs/digit_7.npy");
  AddModelSource(cmd, &o->model);
  AddInputOptions(cmd, &o->inputs, /*fill_needs_flag=*/false);  // as bench: random data by default
  auto* runs = cmd->add_option("-n,--runs", o->profile.runs, "Profile exactly this many runs")
                   ->check(CLI::Range(1, aotrt::kMaxTimingNumber));
  cmd->add_option("-d,--duration", o->profile.duration_s, "Profile for about SECONDS (default 3)")
      ->check(CLI::Range(1e-3, 3600.0))->excludes(runs)->type_name("SECONDS");
  cmd->add_option("--period-us", o->profile.period_us, "Mean interval between samples (default 1000)")
      ->check(CLI::Range(100, 1000000));
  cmd->add_option("-w,--warmup", o->profile.warmup, "Unprofiled runs first (default 1)")->check(CLI::Range(0, INT_MAX));
  cmd->add_option("--bench-duration", o->bench_s,
                  "Seconds of unprofiled runs timed before and after the profile, each (default 0.5)")
      ->check(CLI::Range(0.0, 3600.0));
  cmd->add_option("--op-threads", o->op_threads, "Most threads one operator runs on (ExecutorOptions::num_threads; default 0: TVM_NUM_THREADS or the cores, shared)")
      ->check(CLI::Range(0, 1024));
  cmd->add_flag("--json", o->json, "Print JSON instead of a table");
  cmd->add_option("--csv", o->csv, "Also write the operators as CSV to FILE")->type_name("FILE");
  *run = [o] {
    struct sigaction sa {};
    sa.sa_handler = OnProfileSigint;
    sigemptyset(&sa.sa_mask);
    sigaction(SIGINT, &sa, nullptr);
    try {
      aotrt::ValidateOperatorProfileOptions(o->profile);
    } catch (const aotrt::Error& e) {
      throw UsageError(e.what());
    }
    aotrt::Model model;
    aotrt::Module exe = LoadModelOrVM(o->model, &model), vm;  // a Relay VM export: main's primitives timed
    aotrt::Executor ex;
    std::function<void()> run;
    if (exe.defined()) {
      std::vector<int> types;
      vm = MakeVM(exe, o->inputs, &types);
      aotrt::PackedFunc invoke = vm.GetFunctionOrThrow("invoke_stateful");
      run = [invoke, types] { invoke("main"), SynchronizeVM(types); };
    } else {
      aotrt::ExecutorOptions options;
      options.num_threads = o->op_threads;
      ex = model.CreateExecutor(o->model.Device(), options);
      ApplyInputs(ex, PrepareInputs(model, ex, o->inputs));
      run = [&ex] { ex.Run(), ex.Synchronize(); };
    }
    std::vector<double> plain;
    run();  // warm before timing
    TimePlainRuns(run, o->bench_s, &plain);
    aotrt::OperatorProfile p = exe.defined() ? aotrt::ProfileVM(vm, "main", o->profile) : aotrt::ProfileOperators(ex, o->profile);
    TimePlainRuns(run, o->bench_s, &plain);
    double bench_ms = Median(plain);
    if (!o->csv.empty()) {
      std::ofstream f(o->csv, std::ios::binary);
      f << p.ToCsv();
      f.close();
      if (!f) throw aotrt::Error(aotrt::ErrorCode::kIOError, "cannot write the CSV file " + o->csv);
    }
    if (o->json) {
      PrintJson(*o, p, bench_ms, plain.size());
    } else {
      PrintText(*o, p, bench_ms, plain.size());
    }
    return p.interrupted ? 130 : 0;
  };
  return cmd;
}

}  // namespace aotrt_cli
