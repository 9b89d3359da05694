// Cold start and memory (issue 15): what a new process pays to load a model and run it once, and
// what each process and executor holds. Every measurement runs in a forked child, so the
// process is new (the files themselves stay in the page cache: "process cold", not "machine cold").
//
//   cold_start [--runs N] [--samples K] [--procs P] [--executors E] [--cache-dir DIR] [--cache-only]
//              [MODEL.so ...]
//
// First, the constant cache figures of issue 25 (cold_start_cache.cc; --cache-only: nothing else):
// dlopen + one copy of the constants, a miss with a fresh cache directory per sample, the same
// bytes under a new name, and, apart from those, a hit against dlopen (paired, alternating).
// Then:
// Per model (default: the bench models large_usmp_c, mobilenet_v1_c_usmp and
// mobilenet_v1_llvm_nousmp, and the fixture conv2d_c_usmp):
//   dlopen alone; load, first create, first run and a steady run (median of N), each the median
//   of K new processes (default 7; a cold start happens once per process, so one is noise), with its
//   wall time and page faults (getrusage minflt/majflt); load+create+first run against one steady
//   run; RSS growth of E executors in one process (each run once); and private memory
//   (Private_Clean + Private_Dirty of /proc/PID/smaps_rollup) of P processes, each holding one
//   executor after a run, all alive at once, against the target workspace + I/O + 1 MiB, and what
//   the first one's consists of by kind of mapping (/proc/PID/smaps, private_memory.h): once
//   forked from this process, once as independent programs (exec'd) that relocate their own
//   libraries. Issue 25:
//   load and dlopen also in a process that has loaded a copy of the file first (the loader's own
//   work, without the process's first use of libaotrt, libstdc++ and the heap).
// --cache-dir sets AOTRT_CACHE_DIR for the children (default: a fresh directory under /tmp,
// removed at exit), so runs with a constant cache see first a cold cache ("first process"), then
// a warm one; a runtime without a cache ignores it. Uses only the public C++ API, so the same
// source measures before and after a change of the runtime. AOTRT_HUGE_PAGES=1 in the environment
// measures executors with ExecutorOptions::Heap::huge_pages.
#include <dlfcn.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <functional>
#include <string>
#include <vector>

#include "aotrt/model.h"
#include "aotrt/profiling.h"
#include "cold_start_common.h"
#include "private_memory.h"

using aotrt_bench::PrivateBreakdown;
using aotrt_bench::ReadPrivateBreakdown;
using aotrt_bench::SmapsRollupMiB;

namespace {

using namespace cold_start;

double ResidentMiB() {
  long pages = 0, resident = 0;
  if (FILE* f = std::fopen("/proc/self/statm", "r")) {
    if (std::fscanf(f, "%ld %ld", &pages, &resident) != 2) resident = 0;
    std::fclose(f);
  }
  return static_cast<double>(resident) * static_cast<double>(sysconf(_SC_PAGESIZE)) / kMiB;
}

struct ColdStart {
  Cost dlopen, load, create, first_run, steady;
  // In a process that has loaded (dlopened) another copy of the file first: the loader's own
  // work without the process's first use of libaotrt, libstdc++ and the heap.
  Cost dlopen_second, load_second;
  double constant_mib, workspace_mib, io_mib;
  double runtime_workspace_mib;  // TVMBackendAllocWorkspace peak of a run (models without USMP)
};

void Dlopen(const std::string& path) {
  if (!dlopen(path.c_str(), RTLD_LAZY | RTLD_LOCAL)) throw std::runtime_error(dlerror());
}

// `other`: a copy of the model file (another inode) for the second-load figures.
ColdStart MeasureColdStart(const std::string& path, const std::string& other, int runs) {
  ColdStart c{};
  c.dlopen = InChild<Cost>([&] { return Measure([&] { Dlopen(path); }); });
  c.dlopen_second = InChild<Cost>([&] {
    Dlopen(other);
    return Measure([&] { Dlopen(path); });
  });
  c.load_second = InChild<Cost>([&] {
    aotrt::Model first = aotrt::Model::Load(other);
    aotrt::Model second;
    return Measure([&] { second = aotrt::Model::Load(path); });
  });
  return InChild<ColdStart>([&] {
    aotrt::Model model;
    aotrt::Executor ex;
    c.load = Measure([&] { model = aotrt::Model::Load(path); });
    c.create = Measure([&] { ex = model.CreateExecutor(); });
    aotrt::WorkspaceResetPeak();
    c.first_run = Measure([&] { ex.Run(); });
    c.runtime_workspace_mib = static_cast<double>(aotrt::WorkspaceRequestedPeak()) / kMiB;
    std::vector<Cost> steady;
    for (int i = 0; i < runs; ++i) steady.push_back(Measure([&] { ex.Run(); }));
    std::sort(steady.begin(), steady.end(), [](const Cost& a, const Cost& b) { return a.ms < b.ms; });
    c.steady = steady[steady.size() / 2];
    c.constant_mib = static_cast<double>(model.ConstantBytes()) / kMiB;
    c.workspace_mib = static_cast<double>(model.WorkspaceBytes()) / kMiB;
    double io = 0;
    for (const auto& t : model.Inputs()) io += static_cast<double>(t.bytes);
    for (const auto& t : model.Outputs()) io += static_cast<double>(t.bytes);
    c.io_mib = io / kMiB;
    return c;
  });
}

struct Executors {
  double load_mib, first_mib, further_mib, total_mib;  // further: per executor after the first
};

Executors MeasureExecutors(const std::string& path, int count) {
  return InChild<Executors>([&] {
    double base = ResidentMiB();
    aotrt::Model model = aotrt::Model::Load(path);
    double loaded = ResidentMiB();
    std::vector<aotrt::Executor> executors;
    double first = loaded;
    for (int i = 0; i < count; ++i) {
      executors.push_back(model.CreateExecutor());
      executors.back().Run();  // touch every page an executor really uses (the first: the constants too)
      if (i == 0) first = ResidentMiB();
    }
    double all = ResidentMiB();
    return Executors{loaded - base, first - loaded, count > 1 ? (all - first) / (count - 1) : 0, all - base};
  });
}

struct Processes {
  double private_min, private_mean, private_max, pss_mean, rss_mean;
  PrivateBreakdown first;  // what the first process's private memory consists of
};

// What a measuring process holds: the model loaded, one executor created and run once. Tells the
// parent through `ready`, then waits for EOF on `release` (the parent has read its smaps).
[[noreturn]] void HoldOneExecutor(const std::string& path, int ready, int release) {
  char ok = 'x';
  try {
    aotrt::Model model = aotrt::Model::Load(path);
    aotrt::Executor ex = model.CreateExecutor();
    ex.Run();
    ok = 'r';
    if (write(ready, &ok, 1) != 1) _exit(3);
    ssize_t n = read(release, &ok, 1);
    _exit(n == 0 ? 0 : 3);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "cold_start: %s\n", e.what());
    if (write(ready, &ok, 1) != 1) _exit(3);
    _exit(4);
  }
}

// `procs` children each load, create and run once, then wait; their smaps are read while all live.
// Forked, a child shares the pages of libraries the harness relocated (their data is not its own);
// with `exec`, each is a new program (this binary in --hold mode) that maps and relocates its
// libraries itself, as independent processes of a deployment do.
Processes MeasureProcesses(const std::string& path, int procs, bool exec) {
  int ready[2], release[2];
  if (pipe(ready) != 0 || pipe(release) != 0) std::exit(2);
  std::vector<pid_t> pids;
  for (int i = 0; i < procs; ++i) {
    pid_t pid = fork();
    if (pid == 0) {
      close(ready[0]);
      close(release[1]);
      if (exec) {
        std::string r = std::to_string(ready[1]), w = std::to_string(release[0]);
        execl("/proc/self/exe", "cold_start", "--hold", path.c_str(), r.c_str(), w.c_str(), static_cast<char*>(nullptr));
        _exit(5);
      }
      HoldOneExecutor(path, ready[1], release[0]);
    }
    pids.push_back(pid);
  }
  close(ready[1]);
  close(release[0]);
  bool failed = false;
  for (int i = 0; i < procs; ++i) {
    char c = 0;
    failed |= read(ready[0], &c, 1) != 1 || c != 'r';
  }
  Processes p{1e30, 0, 0, 0, 0, ReadPrivateBreakdown(pids[0], path)};
  for (pid_t pid : pids) {
    double priv = SmapsRollupMiB(pid, {"Private_Clean", "Private_Dirty"});
    p.private_min = std::min(p.private_min, priv);
    p.private_max = std::max(p.private_max, priv);
    p.private_mean += priv / procs;
    p.pss_mean += SmapsRollupMiB(pid, {"Pss"}) / procs;
    p.rss_mean += SmapsRollupMiB(pid, {"Rss"}) / procs;
  }
  close(release[1]);
  for (pid_t pid : pids) {
    int status = 0;
    waitpid(pid, &status, 0);
    failed |= !WIFEXITED(status) || WEXITSTATUS(status) != 0;
  }
  close(ready[0]);
  if (failed) {
    std::fprintf(stderr, "cold_start: a measuring process failed\n");
    std::exit(1);
  }
  return p;
}

// Each phase's median over `samples` new processes (the steady run: the median of medians).
ColdStart MedianColdStart(const std::string& path, const std::string& other, int runs, int samples) {
  std::vector<ColdStart> all;
  for (int i = 0; i < samples; ++i) all.push_back(MeasureColdStart(path, other, runs));
  ColdStart m = all[0];
  auto median = [&](Cost ColdStart::*phase) {
    std::vector<Cost> v;
    for (const ColdStart& c : all) v.push_back(c.*phase);
    m.*phase = Median(v);
  };
  for (Cost ColdStart::*phase : {&ColdStart::dlopen, &ColdStart::load, &ColdStart::create, &ColdStart::first_run,
                                 &ColdStart::steady, &ColdStart::dlopen_second, &ColdStart::load_second}) {
    median(phase);
  }
  return m;
}

void PrintCost(const char* what, const Cost& c) {
  std::printf("  %-34s %10.3f ms %9ld %7ld\n", what, c.ms, c.minflt, c.majflt);
}

void Report(const std::string& path, const std::string& temp_dir, int runs, int samples, int procs, int executors,
            bool cache_only, const std::string& scratch) {
  std::printf("%s (%.1f MiB file)\n", path.c_str(), static_cast<double>(std::filesystem::file_size(path)) / kMiB);
  ReportCacheFigures(path, samples, scratch);
  if (cache_only) return;
  std::string other = temp_dir + "/other_copy_" + std::filesystem::path(path).filename().string();
  CopyFileFlushed(path, other);
  ColdStart first = MeasureColdStart(path, other, runs);      // the first process (cold constant cache)
  ColdStart c = MedianColdStart(path, other, runs, samples);  // later ones
  std::filesystem::remove(other);
  std::printf("  constant pool %.2f MiB, workspace pools %.2f MiB per executor, runtime workspace %.2f MiB per "
              "thread, I/O %.2f MiB\n",
              c.constant_mib, c.workspace_mib, c.runtime_workspace_mib, c.io_mib);
  std::printf("  %-34s %13s %9s %7s\n", "phase (median of new processes)", "wall", "minflt", "majflt");
  PrintCost("dlopen alone", c.dlopen);
  PrintCost("load", c.load);
  PrintCost("first create", c.create);
  PrintCost("first run", c.first_run);
  PrintCost("steady run (median)", c.steady);
  PrintCost("dlopen after another library", c.dlopen_second);
  PrintCost("load after another model", c.load_second);
  PrintCost("first process: load", first.load);
  PrintCost("first process: first create", first.create);
  PrintCost("first process: first run", first.first_run);
  double cold = c.load.ms + c.create.ms + c.first_run.ms;
  std::printf("  load / dlopen: %.2fx (after another: %.2fx); load + create + first run: %.3f ms = %.2fx one steady "
              "run (faults %ld vs %ld)\n",
              c.load.ms / c.dlopen.ms, c.load_second.ms / c.dlopen_second.ms, cold, cold / c.steady.ms,
              c.load.minflt + c.create.minflt + c.first_run.minflt, c.steady.minflt);
  Executors e = MeasureExecutors(path, executors);
  std::printf("  %d executors in one process: RSS +%.2f MiB at load, +%.2f MiB with the first (run once), "
              "+%.3f MiB per further one, +%.2f MiB in all",
              executors, e.load_mib, e.first_mib, e.further_mib, e.total_mib);
  if (c.constant_mib > 0) {
    // TVM copies the constant pool into every executor (ABI.md 7.3): the 171 MiB for 8
    // MobileNet executors is 8 x (17 MB constants + 5.2 MB workspace + 0.6 MB I/O).
    double tvm_estimate = executors * (c.constant_mib + c.workspace_mib + c.io_mib) + c.runtime_workspace_mib;
    std::printf(" = %.2fx TVM's estimated +%.1f MiB (a pool copy each)\n", e.total_mib / tvm_estimate, tvm_estimate);
  } else {
    // Without a constant pool both runtimes use the constants in place and keep one workspace per
    // thread: what differs is each further executor, whose floor is its I/O.
    std::printf(" (no constant pool: TVM, too, uses constants in place; I/O per executor %.3f MiB)\n", c.io_mib);
  }
  double target = c.workspace_mib + c.runtime_workspace_mib + c.io_mib + 1.0;
  for (bool exec : {false, true}) {
    Processes p = MeasureProcesses(path, procs, exec);
    std::printf("  %d %s processes, one executor each: private %.2f / %.2f / %.2f MiB (min/mean/max), "
                "target <= %.2f (workspace + I/O + 1 MiB): %s; Pss %.2f, Rss %.2f MiB (means)\n",
                procs, exec ? "independent (exec'd)" : "forked", p.private_min, p.private_mean, p.private_max, target,
                p.private_max <= target ? "met" : "NOT met", p.pss_mean, p.rss_mean);
    const PrivateBreakdown& b = p.first;
    std::printf("    the first one's private memory by mapping (MiB): %.2f anonymous >= 64 KiB (workspace blocks "
                "and pools, I/O), %.3f heap and small anonymous, %.3f stack, %.3f model file, %.3f libraries' data, "
                "%.3f libraries' text touched by it alone; %.2f in all\n",
                b.large_anonymous, b.heap, b.stack, b.model_file, b.library_data, b.library_text, b.total());
  }
  std::printf("\n");
}

}  // namespace

int main(int argc, char** argv) {
  if (argc == 5 && std::string(argv[1]) == "--hold") HoldOneExecutor(argv[2], std::atoi(argv[3]), std::atoi(argv[4]));
  int runs = 20, samples = 7, procs = 4, executors = 8;
  bool cache_only = false;
  std::string cache_dir;
  std::vector<std::string> models;
  for (int i = 1; i < argc; ++i) {
    std::string a = argv[i];
    bool has_value = i + 1 < argc;
    if (a == "--runs" && has_value) runs = std::max(1, std::atoi(argv[++i]));
    else if (a == "--samples" && has_value) samples = std::max(1, std::atoi(argv[++i]));
    else if (a == "--procs" && has_value) procs = std::max(1, std::atoi(argv[++i]));
    else if (a == "--executors" && has_value) executors = std::max(1, std::atoi(argv[++i]));
    else if (a == "--cache-dir" && has_value) cache_dir = argv[++i];
    else if (a == "--cache-only") cache_only = true;
    else if (!a.empty() && a[0] != '-') models.push_back(a);
    else {
      std::fprintf(stderr, "usage: %s [--runs N] [--samples K] [--procs P] [--executors E] [--cache-dir DIR] [--cache-only] [MODEL.so ...]\n", argv[0]);
      return 2;
    }
  }
  if (models.empty()) {
    for (const char* name : {"large_usmp_c", "mobilenet_v1_c_usmp", "mobilenet_v1_llvm_nousmp"}) {
      models.push_back(std::string(AOTRT_BENCH_MODELS_DIR "/") + name + ".so");
    }
    if (std::filesystem::exists(AOTRT_FIXTURES_DIR "/conv2d_c_usmp/model.so")) {
      models.push_back(AOTRT_FIXTURES_DIR "/conv2d_c_usmp/model.so");
    }
  }
  char tmpl[] = "/tmp/aotrt_cold_start_XXXXXX";  // the copies for the second-load figures; the default cache
  if (!mkdtemp(tmpl)) return 2;
  std::string temp = tmpl;
  if (cache_dir.empty()) cache_dir = temp + "/cache";
  setenv("AOTRT_CACHE_DIR", cache_dir.c_str(), 1);
  std::printf("cold_start: %d steady runs, %d samples, %d executors, %d processes; AOTRT_CACHE_DIR=%s%s\n\n", runs,
              samples, executors, procs, cache_dir.c_str(),
              std::getenv("AOTRT_HUGE_PAGES") ? (std::string("; AOTRT_HUGE_PAGES=") + std::getenv("AOTRT_HUGE_PAGES")).c_str() : "");
  char scratch_tmpl[] = "/tmp/aotrt_cold_start_scratch_XXXXXX";  // issue 25's fresh and warm cache directories
  if (!mkdtemp(scratch_tmpl)) return 2;
  for (const std::string& m : models) Report(m, temp, runs, samples, procs, executors, cache_only, scratch_tmpl);
  std::filesystem::remove_all(scratch_tmpl);
  std::filesystem::remove_all(temp);
  return 0;
}
