// aotrt run MODEL.so [--input NAME=FILE.npy|FILE.npz ...] [--inputs FILE.npz] [--random|--zeros] [--seed N]
//                    [--output-dir DIR|FILE.npz] [--print] [--expect FILE.npz [--rtol R] [--atol A | --exact]]
//                    [--top K] [--check-bounds] [--huge-pages] [--op-threads N]
//
// Every input is given, or --random / --zeros says what the others get. Exit status 3 when --expect
// finds a difference.
#include <chrono>
#include <iostream>
#include <memory>

#include <aotrt/model.h>

#include "caller_arena.h"
#include "commands.h"
#include "compare.h"
#include "expect.h"
#include "model_io.h"
#include "output_files.h"
#include "table.h"
#include "vm_commands.h"

namespace aotrt_cli {
namespace {

struct RunOptions {
  ModelSource model;
  InputOptions inputs;
  std::string output_dir;
  bool print = false;
  bool check_bounds = false;
  bool huge_pages = false;
  bool arena = false;
  std::string expect;
  Tolerance tol;
  int top = 0;
  int op_threads = 0;
};

constexpr int kExitDiffers = 3;

void PrintTopK(const aotrt::Executor& ex, int k) {
  for (size_t i = 0; i < ex.NumOutputs(); ++i) {
    std::vector<Ranked> top = TopK(HostOutput(ex, i), k);
    if (top.empty()) continue;   // not a [N] / [1, N] classifier output
    std::cout << "top " << top.size() << " of " << OutputKey(ex, i) << ":";
    for (const Ranked& r : top) std::cout << "  " << r.index << " (" << Number(r.value) << ")";
    std::cout << "\n";
  }
}

void PrintSummary(const aotrt::Executor& ex, const RunOptions& o) {
  Table t({"output", "dtype", "shape", "min", "max", "mean", "argmax"}, {false, false, false, true, true, true, true});
  for (size_t i = 0; i < ex.NumOutputs(); ++i) {
    aotrt::NDArray out = HostOutput(ex, i);
    OutputSummary s = Summarize(OutputKey(ex, i), out);
    t.AddRow({s.name, s.dtype, Shape(s.shape), Number(s.min), Number(s.max), Number(s.mean),
              s.argmax >= 0 ? std::to_string(s.argmax) : "-"});
  }
  t.Print(std::cout);
  for (size_t i = 0; i < ex.NumOutputs(); ++i) {
    aotrt::NDArray out = HostOutput(ex, i);
    int64_t n = aotrt::ShapeElements(out->shape, out->ndim);
    if (o.print || n <= 16) std::cout << OutputKey(ex, i) << " = " << FormatValues(out, o.print ? 1000 : 16) << "\n";
  }
}

int Run(const RunOptions& o) {
  OutputTarget target;
  if (!o.output_dir.empty()) target = PrepareOutputTarget(o.output_dir);   // fail before any work
  aotrt::Model model;
  if (aotrt::Module vm = LoadModelOrVM(o.model, &model); vm.defined()) return RunVM(vm, o.inputs, o.output_dir, o.expect, o.tol);
  aotrt::ExecutorOptions options;
  options.memory = aotrt::ExecutorOptions::Heap{o.check_bounds, o.huge_pages};
  options.num_threads = o.op_threads;
  CallerArenas arenas;
  if (o.arena) options = arenas.Add(model, options);
  aotrt::Executor ex = model.CreateExecutor(o.model.Device(), options);
  std::vector<PreparedInput> inputs = PrepareInputs(model, ex, o.inputs);
  std::vector<ExpectedOutput> expected;
  if (!o.expect.empty()) expected = ReadExpected(o.expect, ex);
  ApplyInputs(ex, inputs);
  for (const PreparedInput& in : inputs) {
    std::cout << "input  " << in.name << "  " << aotrt::DataTypeToString(in.array.dtype()) << " "
              << Shape(in.array.Shape()) << "  <- " << in.source << "\n";
  }
  std::cout << std::flush;  // what ran on which inputs is on stdout even if the model kills the process
  auto t0 = std::chrono::steady_clock::now();
  ex.Run();
  ex.Synchronize();
  double ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
  std::cout << "ran " << model.name() << " in " << Fixed(ms, 3) << " ms (first run, cold)\n\n";
  PrintSummary(ex, o);
  if (o.top > 0) PrintTopK(ex, o.top);
  if (!o.output_dir.empty()) WriteOutputs(target, ex, std::cout);
  if (!expected.empty() && !ReportComparison(ex, expected, o.tol, std::cout)) return kExitDiffers;
  return 0;
}

}  // namespace

CLI::App* AddRunCommand(CLI::App& app, Action* run) {
  auto opt = std::make_shared<RunOptions>();
  CLI::App* cmd = app.add_subcommand("run", "Run a model once on .npy/.npz, random or zero inputs; summarise, save or check the outputs");
  AddModelSource(cmd, &opt->model);
  AddInputOptions(cmd, &opt->inputs, /*fill_needs_flag=*/true);
  cmd->add_option("-o,--output-dir", opt->output_dir,
                  "Write the outputs to DIR/output<i>.npy (DIR created if missing), or to FILE.npz keyed by output name")
      ->type_name("DIR|FILE.npz");
  cmd->add_flag("--print", opt->print, "Print the output values (up to 1000 per output)");
  auto* check = cmd->add_flag("--check-bounds", opt->check_bounds,
                              "Fail if the model writes past its workspace pools or blocks (also AOTRT_CHECK_BOUNDS=1)");
  auto* huge = cmd->add_flag("--huge-pages", opt->huge_pages,
                             "Back buffers of 2 MiB and more with transparent huge pages (also AOTRT_HUGE_PAGES=1)");
  cmd->add_flag("--arena", opt->arena,
                "Build the executor in one block of caller-owned memory (ExecutorOptions::Arena, sized by Model::ArenaBytes)")
      ->excludes(check)
      ->excludes(huge);
  cmd->add_option("--op-threads", opt->op_threads, "Most threads one operator runs on (ExecutorOptions::num_threads; default 0: TVM_NUM_THREADS or the cores, shared)")
      ->check(CLI::Range(0, 1024));
  auto* expect = cmd->add_option("--expect", opt->expect,
                                 "Compare the outputs with FILE.npz (keys: output names or arr_0, arr_1, ...); "
                                 "exit status 3 when they differ")
                     ->type_name("FILE.npz");
  auto* rtol = cmd->add_option("--rtol", opt->tol.rtol, "Relative tolerance of --expect (default 1e-5)")
                   ->check(CLI::NonNegativeNumber)->needs(expect);
  auto* atol = cmd->add_option("--atol", opt->tol.atol, "Absolute tolerance of --expect (default 1e-8)")
                   ->check(CLI::NonNegativeNumber)->needs(expect);
  cmd->add_flag("--exact", opt->tol.exact,
                "With --expect: outputs must equal the reference bit for bit (same dtype; -0 differs from 0)")
      ->needs(expect)->excludes(rtol)->excludes(atol);
  cmd->add_option("--top", opt->top, "Print the K largest values and their indices of each [N] or [1, N] output")
      ->check(CLI::Range(1, 1000000));
  *run = [opt] { return Run(*opt); };
  return cmd;
}

}  // namespace aotrt_cli
