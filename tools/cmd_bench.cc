// aotrt bench MODEL.so [--input ...] [--number N] [--repeat R] [--min-repeat-ms MS] [--warmup W]
//                      [--cooldown-ms MS] [--cache-flush BYTES] [--threads N] [--op-threads N] [--duration SECONDS] [--json]
//                      [--check-bounds] [--huge-pages]
#include <algorithm>
#include <atomic>
#include <climits>
#include <chrono>
#include <cmath>
#include <exception>
#include <iostream>
#include <memory>
#include <thread>

#include <signal.h>

#include <aotrt/model.h>
#include <aotrt/profiling.h>
#include <nlohmann/json.hpp>

#include "caller_arena.h"
#include "commands.h"
#include "memory_report.h"
#include "model_info.h"
#include "model_io.h"
#include "progress.h"
#include "table.h"
#include "usage_error.h"
#include "vm_commands.h"

namespace aotrt_cli {
namespace {

using Clock = std::chrono::steady_clock;

struct BenchOptions {
  ModelSource model;
  InputOptions inputs;
  int number = 1, repeat = 100, min_repeat_ms = 0, warmup = 10, cooldown_ms = 0, cache_flush = 0, threads = 1, op_threads = 0;
  double duration_s = 0;   // > 0: repeat until this much time has passed instead of `repeat` times
  bool json = false;
  bool check_bounds = false;
  bool huge_pages = false;
  bool arena = false;
};

double MsSince(Clock::time_point t0) { return std::chrono::duration<double, std::milli>(Clock::now() - t0).count(); }

struct ThreadResult {
  aotrt::BenchmarkStats stats;
  double first_run_ms = 0;  // the very first run (cold caches), part of the warm-up
  long first_run_faults = 0;
  double warmup_ms = 0;
  Clock::time_point start, end;  // of the timed phase
  uint64_t scratch_peak = 0;     // most TVMBackendAllocWorkspace bytes held at once by this thread
  std::exception_ptr error;
};

// The run-time scratch one executor held at most (its thread's peak), for the per-executor figure.
uint64_t ScratchPeak(const std::vector<ThreadResult>& threads) {
  uint64_t peak = 0;
  for (const ThreadResult& t : threads) peak = std::max(peak, t.scratch_peak);
  return peak;
}

struct BenchResult {
  double load_ms = 0, create_ms = 0, first_create_ms = 0, wall_s = 0;
  long load_faults = 0, first_create_faults = 0;
  aotrt::ModelInfo info;
  std::vector<ThreadResult> threads;
  aotrt::BenchmarkStats all;  // every thread's samples pooled
};

// Ctrl-C stops the timing loops (they poll the request); what was measured is still printed.
extern "C" void OnSigint(int) { aotrt::RequestInterrupt(); }

void InstallSigintHandler() {
  struct sigaction sa {};
  sa.sa_handler = OnSigint;
  sigemptyset(&sa.sa_mask);
  sigaction(SIGINT, &sa, nullptr);
}

// --duration: repeats of `bo.number` runs until `seconds` have passed (at least one repeat), through
// aotrt::Benchmark so that every run is timed as in the count-based mode. May overrun by one call
// of Benchmark (its repeats double while a call lasts under 20 ms).
aotrt::BenchmarkStats BenchmarkFor(aotrt::PackedFunc& run, aotrt::BenchmarkOptions bo, double seconds,
                                   Progress* progress) {
  aotrt::TVMArgs no_args(nullptr, nullptr, 0);
  aotrt::BenchmarkStats all;
  bo.repeat = 1;
  bo.progress = nullptr;
  Clock::time_point end =
      Clock::now() + std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(seconds));
  int total = 0;
  do {
    Clock::time_point t0 = Clock::now();
    aotrt::BenchmarkStats one = aotrt::Benchmark(run, no_args, bo);
    // Fewer, longer calls while they are short, so that checking the clock costs nothing.
    if (MsSince(t0) < 20 && bo.repeat < (1 << 16)) bo.repeat *= 2;
    bo.number = one.number;    // --min-repeat-ms grows it once, on the first repeat
    bo.min_repeat_ms = 0;
    all.samples.insert(all.samples.end(), one.samples.begin(), one.samples.end());
    all.repeats.insert(all.repeats.end(), one.repeats.begin(), one.repeats.end());
    total += one.repeat;
    all.interrupted = one.interrupted;
    if (progress) progress->UpdateTimed(total, seconds);
  } while (!all.interrupted && Clock::now() < end && static_cast<int64_t>(all.samples.size()) + bo.number <= aotrt::kMaxBenchmarkSamples);
  if (progress) progress->UpdateTimed(total, seconds, /*last=*/true);
  all.number = bo.number;
  all.repeat = total;
  aotrt::ComputeStats(&all);
  return all;
}

// Warm up, wait for every thread, then benchmark. Errors are kept for the main thread.
void ThreadMain(aotrt::Executor* ex, const BenchOptions& o, std::atomic<int>* ready, ThreadResult* r,
                bool report) {
  bool counted = false;
  try {
    aotrt::PackedFunc run = ex->module().GetFunctionOrThrow("run");
    if (o.model.Device().device_type != kDLCPU) {
      // On a device a run ends when its kernels are done, not when they are enqueued.
      run = aotrt::PackedFunc([ex, enqueue = run](aotrt::TVMArgs args, aotrt::TVMRetValue* rv) {
        enqueue.CallPacked(args, rv);
        ex->Synchronize();
      });
    }
    aotrt::TVMArgs no_args(nullptr, nullptr, 0);
    aotrt::TVMRetValue rv;
    long faults = ThreadPageFaults();
    Clock::time_point t0 = Clock::now();
    for (int i = 0; i < o.warmup && !aotrt::InterruptRequested(); ++i) {
      run.CallPacked(no_args, &rv);
      if (i == 0) {  // cold: the summary line reports it
        r->first_run_ms = MsSince(t0);
        r->first_run_faults = ThreadPageFaults() - faults;
      }
    }
    r->warmup_ms = MsSince(t0);
    ready->fetch_sub(1);
    counted = true;
    while (ready->load() > 0) std::this_thread::yield();
    aotrt::BenchmarkOptions bo;
    bo.warmup = 0;
    bo.number = o.number;
    bo.repeat = o.repeat;
    bo.min_repeat_ms = o.min_repeat_ms;
    bo.cooldown_interval_ms = o.cooldown_ms;
    bo.cache_flush_bytes = o.cache_flush;
    std::unique_ptr<Progress> progress;
    if (report) {
      progress = std::make_unique<Progress>("bench");
      bo.progress = [&progress](int done, int total) { progress->Update(done, total); };
    }
    aotrt::WorkspaceResetPeak();
    r->start = Clock::now();
    r->stats = o.duration_s > 0 ? BenchmarkFor(run, bo, o.duration_s, progress.get())
                                : aotrt::Benchmark(run, no_args, bo);
    r->end = Clock::now();
    r->scratch_peak = aotrt::WorkspaceRequestedPeak();
    if (o.warmup == 0 && !r->stats.samples.empty()) r->first_run_ms = r->stats.samples.front() * 1e3;
  } catch (...) {
    r->error = std::current_exception();
    if (!counted) ready->fetch_sub(1);
  }
}

BenchResult RunBench(const BenchOptions& o) {
  BenchResult res;
  aotrt::BenchmarkOptions check;  // reject bad options before loading anything
  check.number = o.number;
  check.repeat = o.repeat;
  check.min_repeat_ms = o.min_repeat_ms;
  check.cooldown_interval_ms = o.cooldown_ms;
  check.cache_flush_bytes = o.cache_flush;
  try {
    aotrt::ValidateBenchmarkOptions(check);
  } catch (const aotrt::Error& e) {
    throw UsageError(e.what());   // an option out of range is a bad command line
  }

  long faults = ThreadPageFaults();
  Clock::time_point t0 = Clock::now();
  aotrt::Model model = LoadModel(o.model);
  res.load_ms = MsSince(t0);
  res.load_faults = ThreadPageFaults() - faults;
  res.info = model.Info();
  CallerArenas arenas;  // outlives the executors
  std::vector<aotrt::Executor> executors;
  aotrt::ExecutorOptions options;
  options.memory = aotrt::ExecutorOptions::Heap{o.check_bounds, o.huge_pages};
  options.num_threads = o.op_threads;
  std::vector<aotrt::ExecutorOptions> per_executor(static_cast<size_t>(o.threads), options);
  if (o.arena) {
    for (aotrt::ExecutorOptions& e : per_executor) e = arenas.Add(model, options);  // sized (and measured) before timing
  }
  faults = ThreadPageFaults();
  t0 = Clock::now();
  executors.push_back(model.CreateExecutor(o.model.Device(), per_executor[0]));
  res.first_create_ms = MsSince(t0);
  res.first_create_faults = ThreadPageFaults() - faults;
  for (int i = 1; i < o.threads; ++i) executors.push_back(model.CreateExecutor(o.model.Device(), per_executor[i]));
  res.create_ms = MsSince(t0) / o.threads;  // all executors, the first included
  std::vector<PreparedInput> inputs = PrepareInputs(model, executors[0], o.inputs);
  for (auto& ex : executors) ApplyInputs(ex, inputs);

  res.threads.resize(o.threads);
  std::atomic<int> ready(o.threads);
  std::vector<std::thread> pool;
  for (int i = 1; i < o.threads; ++i) {
    pool.emplace_back(ThreadMain, &executors[i], std::cref(o), &ready, &res.threads[i], false);
  }
  ThreadMain(&executors[0], o, &ready, &res.threads[0], true);
  for (auto& t : pool) t.join();
  for (const ThreadResult& r : res.threads) {
    if (r.error) std::rethrow_exception(r.error);
  }
  // Wall time of the timed phase: first start to last end over all threads.
  Clock::time_point first = res.threads[0].start, last = res.threads[0].end;
  for (const ThreadResult& r : res.threads) {
    first = std::min(first, r.start);
    last = std::max(last, r.end);
    res.all.samples.insert(res.all.samples.end(), r.stats.samples.begin(), r.stats.samples.end());
    res.all.repeats.insert(res.all.repeats.end(), r.stats.repeats.begin(), r.stats.repeats.end());
  }
  res.wall_s = std::chrono::duration<double>(last - first).count();
  res.all.number = res.threads[0].stats.number;
  res.all.repeat = res.threads[0].stats.repeat;
  res.all.interrupted = aotrt::InterruptRequested();
  aotrt::ComputeStats(&res.all);
  return res;
}

std::vector<std::string> Row(const std::string& label, const aotrt::BenchmarkStats& s, int digits) {
  auto ms = [digits](double sec) { return Fixed(sec * 1e3, digits); };
  return {label, ms(s.min), ms(s.mean), ms(s.median), ms(s.p90), ms(s.p99), ms(s.max), ms(s.std)};
}

// The threads an operator may use, where that count comes from, and whether this model uses it.
void PrintOperatorThreads(const BenchOptions& o, const aotrt::ModelInfo& info) {
  auto join = [](const std::vector<std::string>& v) {
    std::string s;
    for (const std::string& x : v) s += (s.empty() ? "" : ", ") + x;
    return s.empty() ? std::string("none") : s;
  };
  std::cout << "op threads " << OperatorThreadsFor(o.op_threads).Text()
            << (LaunchesParallelWork(info) ? "; used: the operators launch parallel work (TVMBackendParallelLaunch)\n"
                                           : "; unused: the operators launch no parallel work\n")
            << "runtime    the library imports " << join(info.runtime_imports) << "; context pointers "
            << join(info.context_pointers) << "\n";
}

void PrintText(const BenchOptions& o, const BenchResult& r) {
  const aotrt::BenchmarkStats& all = r.all;
  if (all.interrupted) {
    std::cout << "interrupted (Ctrl-C): the figures below cover the " << all.samples.size()
              << " runs measured before it\n";
  }
  double min_ms = std::max(all.min * 1e3, 1e-6);
  int digits = std::max(3, 2 - static_cast<int>(std::floor(std::log10(min_ms))));
  std::cout << "model      " << o.model.path << "\n"
            << "init       load " << Fixed(r.load_ms, 3) << " ms (" << r.load_faults << " page faults), first create "
            << Fixed(r.first_create_ms, 3) << " ms (" << r.first_create_faults << "), first run "
            << Fixed(r.threads[0].first_run_ms, 3) << " ms (" << r.threads[0].first_run_faults << ")"
            << (o.threads > 1 ? ", create per executor " + Fixed(r.create_ms, 3) + " ms" : std::string()) << "\n"
            << "warm-up    " << o.warmup << " runs in " << Fixed(r.threads[0].warmup_ms, 3) << " ms\n"
            << "timed      " << all.repeat << " repeats x " << all.number << " runs"
            << (all.number != o.number ? " (number grown by --min-repeat-ms)" : "") << ", "
            << all.samples.size() / static_cast<size_t>(o.threads) << " samples per thread, " << o.threads
            << (o.threads == 1 ? " thread" : " threads")
            << (o.duration_s > 0 ? ", for " + Fixed(r.wall_s, 3) + " s (--duration " + Number(o.duration_s) + ")" : "")
            << "\n";
  PrintOperatorThreads(o, r.info);
  std::cout << "\n";
  Table t({"latency (ms)", "min", "mean", "median", "p90", "p99", "max", "std"},
          {false, true, true, true, true, true, true, true});
  if (o.threads == 1) {
    t.AddRow(Row("run", all, digits));
  } else {
    for (size_t i = 0; i < r.threads.size(); ++i) t.AddRow(Row("thread " + std::to_string(i), r.threads[i].stats, digits));
    t.AddRow(Row("all", all, digits));
  }
  t.Print(std::cout);
  std::cout << "\n";
  PrintMemory(std::cout, r.info, ScratchPeak(r.threads));
  double throughput = r.wall_s > 0 ? static_cast<double>(all.samples.size()) / r.wall_s : 0;
  std::cout << "\nthroughput " << Fixed(throughput, 1) << " runs/s (" << o.threads
            << (o.threads == 1 ? " thread)\n" : " threads, aggregate)\n");
  // One line with what users compare first (perf_test / benchmark_model style).
  std::cout << "summary    init " << Fixed(r.load_ms + r.create_ms, 3) << " ms, first run "
            << Fixed(r.threads[0].first_run_ms, 3) << " ms, steady state p50 " << Fixed(all.p50 * 1e3, digits)
            << " / p90 " << Fixed(all.p90 * 1e3, digits) << " / p99 " << Fixed(all.p99 * 1e3, digits) << " ms over "
            << all.samples.size() << " runs\n";
}

nlohmann::ordered_json StatsJson(const aotrt::BenchmarkStats& s) {
  return {{"min_ms", s.min * 1e3},       {"mean_ms", s.mean * 1e3}, {"median_ms", s.median * 1e3},
          {"p90_ms", s.p90 * 1e3},       {"p99_ms", s.p99 * 1e3},   {"p999_ms", s.p999 * 1e3},
          {"max_ms", s.max * 1e3},       {"std_ms", s.std * 1e3},   {"samples", s.samples.size()},
          {"repeat_means_ms", [&] {
             std::vector<double> v;
             for (double x : s.repeats) v.push_back(x * 1e3);
             return v;
           }()}};
}

void PrintJson(const BenchOptions& o, const BenchResult& r) {
  nlohmann::ordered_json per_thread = nlohmann::ordered_json::array();
  for (const ThreadResult& t : r.threads) {
    nlohmann::ordered_json j = StatsJson(t.stats);
    j["warmup_ms"] = t.warmup_ms;
    per_thread.push_back(j);
  }
  nlohmann::ordered_json j = {{"model", o.model.path},
                      {"load_ms", r.load_ms},
                      {"create_executor_ms", r.create_ms},
                      {"load_page_faults", r.load_faults},
                      {"first_create_ms", r.first_create_ms},
                      {"first_create_page_faults", r.first_create_faults},
                      {"first_run_page_faults", r.threads[0].first_run_faults},
                      {"memory", MemoryJson(r.info, ScratchPeak(r.threads))},
                      {"warmup", o.warmup},
                      {"number", r.all.number},
                      {"repeat", r.all.repeat},
                      {"duration_s", o.duration_s},
                      {"first_run_ms", r.threads[0].first_run_ms},
                      {"min_repeat_ms", o.min_repeat_ms},
                      {"cooldown_ms", o.cooldown_ms},
                      {"cache_flush_bytes", o.cache_flush},
                      {"threads", o.threads},
                      {"op_threads", o.op_threads},
                      {"op_threads_used", OperatorThreadsFor(o.op_threads).count},
                      {"op_threads_source", OperatorThreadsFor(o.op_threads).source},
                      {"parallel_launch", LaunchesParallelWork(r.info)},
                      {"runtime_imports", r.info.runtime_imports},
                      {"context_pointers", r.info.context_pointers},
                      {"interrupted", r.all.interrupted},
                      {"latency", StatsJson(r.all)},
                      {"per_thread", per_thread},
                      {"throughput_runs_per_s", r.wall_s > 0 ? r.all.samples.size() / r.wall_s : 0.0}};
  std::cout << j.dump(2) << "\n";
}

}  // namespace

CLI::App* AddBenchCommand(CLI::App& app, Action* run) {
  auto o = std::make_shared<BenchOptions>();
  CLI::App* cmd = app.add_subcommand("bench", "Measure a model's latency (every run timed) and throughput");
  AddModelSource(cmd, &o->model);
  AddInputOptions(cmd, &o->inputs, /*fill_needs_flag=*/false);
  cmd->add_option("-n,--number", o->number, "Runs per repeat (default 1)")->check(CLI::Range(1, INT_MAX));
  auto* repeat = cmd->add_option("-r,--repeat", o->repeat, "Repeats (default 100)")->check(CLI::Range(1, INT_MAX));
  cmd->add_option("-d,--duration", o->duration_s, "Repeat until SECONDS have passed, instead of --repeat times")
      ->check(CLI::Range(1e-3, 1e6))->excludes(repeat)->type_name("SECONDS");
  cmd->add_option("--min-repeat-ms", o->min_repeat_ms, "Grow --number until a repeat lasts this long (default 0)")
      ->check(CLI::Range(0, INT_MAX));
  cmd->add_option("-w,--warmup", o->warmup, "Untimed runs first (default 10)")->check(CLI::Range(0, INT_MAX));
  cmd->add_option("--cooldown-ms", o->cooldown_ms, "Sleep between repeats (default 0)")->check(CLI::Range(0, INT_MAX));
  cmd->add_option("--cache-flush", o->cache_flush, "Evict caches with a copy of this many bytes before each repeat")
      ->check(CLI::Range(0, INT_MAX));
  cmd->add_option("-t,--threads", o->threads, "Executors running concurrently, one per thread (default 1)")
      ->check(CLI::Range(1, 1024));
  cmd->add_option("--op-threads", o->op_threads, "Most threads one operator runs on (ExecutorOptions::num_threads; default 0: TVM_NUM_THREADS or the cores, shared)")
      ->check(CLI::Range(0, 1024));
  cmd->add_flag("--json", o->json, "Print JSON instead of a table");
  auto* check = cmd->add_flag("--check-bounds", o->check_bounds,
                              "Time runs in bounds-checking mode (as aotrt run --check-bounds)");
  auto* huge = cmd->add_flag("--huge-pages", o->huge_pages,
                             "Back the executors' buffers of 2 MiB and more with transparent huge pages (also AOTRT_HUGE_PAGES=1)");
  cmd->add_flag("--arena", o->arena,
                "Time executors built in caller-owned memory (ExecutorOptions::Arena; one arena per thread)")
      ->excludes(check)
      ->excludes(huge);
  *run = [o] {
    InstallSigintHandler();
    if (IsVMBytecodeSource(o->model)) {  // a Relay VM export: its main timed
      aotrt::Model none;
      aotrt::BenchmarkOptions b;
      b.warmup = o->warmup, b.number = o->number, b.repeat = o->repeat, b.min_repeat_ms = o->min_repeat_ms;
      b.cooldown_interval_ms = o->cooldown_ms;
      return BenchVM(LoadModelOrVM(o->model, &none), o->inputs, b, o->json);
    }
    BenchResult r = RunBench(*o);
    if (o->json) {
      PrintJson(*o, r);
    } else {
      PrintText(*o, r);
    }
    return r.all.interrupted ? 130 : 0;  // 128 + SIGINT, as a shell reports a process Ctrl-C ended
  };
  return cmd;
}

}  // namespace aotrt_cli
