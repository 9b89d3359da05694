// aotrt run MODEL.so [--input NAME=FILE.npy ...] [--random|--zeros] [--seed N] [--output-dir DIR] [--print]
//                    [--check-bounds]
#include <chrono>
#include <iostream>
#include <memory>
#include <sys/stat.h>

#include <aotrt/model.h>

#include "commands.h"
#include "model_io.h"
#include "npy.h"
#include "table.h"

namespace aotrt_cli {
namespace {

struct RunOptions {
  std::string path;
  InputOptions inputs;
  std::string output_dir;
  bool print = false;
  bool check_bounds = false;
};

void PrintSummary(const aotrt::Executor& ex, const RunOptions& o) {
  Table t({"output", "dtype", "shape", "min", "max", "mean", "argmax"}, {false, false, false, true, true, true, true});
  for (size_t i = 0; i < ex.NumOutputs(); ++i) {
    aotrt::NDArray out = ex.GetOutput(i);
    OutputSummary s = Summarize(ex.Output(i).name, out);
    t.AddRow({s.name, s.dtype, Shape(s.shape), Number(s.min), Number(s.max), Number(s.mean),
              s.argmax >= 0 ? std::to_string(s.argmax) : "-"});
  }
  t.Print(std::cout);
  for (size_t i = 0; i < ex.NumOutputs(); ++i) {
    aotrt::NDArray out = ex.GetOutput(i);
    int64_t n = aotrt::ShapeElements(out->shape, out->ndim);
    if (o.print || n <= 16) std::cout << ex.Output(i).name << " = " << FormatValues(out, o.print ? 1000 : 16) << "\n";
  }
}

int Run(const RunOptions& o) {
  aotrt::Model model = aotrt::Model::Load(o.path);
  aotrt::ExecutorOptions options;
  options.check_bounds = o.check_bounds;
  aotrt::Executor ex = model.CreateExecutor(DLDevice{kDLCPU, 0}, options);
  std::vector<PreparedInput> inputs = PrepareInputs(model, ex, o.inputs);
  ApplyInputs(ex, inputs);
  for (const PreparedInput& in : inputs) {
    std::cout << "input  " << in.name << "  " << aotrt::DataTypeToString(in.array.dtype()) << " "
              << Shape(in.array.Shape()) << "  <- " << in.source << "\n";
  }
  auto t0 = std::chrono::steady_clock::now();
  ex.Run();
  double ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
  std::cout << "ran " << model.name() << " in " << Fixed(ms, 3) << " ms (first run, cold)\n\n";
  PrintSummary(ex, o);
  if (!o.output_dir.empty()) {
    struct stat st {};
    if (::stat(o.output_dir.c_str(), &st) != 0) ::mkdir(o.output_dir.c_str(), 0777);
    for (size_t i = 0; i < ex.NumOutputs(); ++i) {
      std::string file = o.output_dir + "/output" + std::to_string(i) + ".npy";
      WriteNpy(file, ex.GetOutput(i).tensor());
      std::cout << "wrote " << file << "\n";
    }
  }
  return 0;
}

}  // namespace

CLI::App* AddRunCommand(CLI::App& app, Action* run) {
  auto opt = std::make_shared<RunOptions>();
  CLI::App* cmd = app.add_subcommand("run", "Run a model once on .npy, random or zero inputs and summarise the outputs");
  cmd->add_option("model", opt->path, "Model library (.so) exported by TVM")->required();
  AddInputOptions(cmd, &opt->inputs);
  cmd->add_option("-o,--output-dir", opt->output_dir, "Write the outputs to DIR/output<i>.npy");
  cmd->add_flag("--print", opt->print, "Print the output values (up to 1000 per output)");
  cmd->add_flag("--check-bounds", opt->check_bounds,
                "Fail if the model writes past its workspace pools or blocks (also AOTRT_CHECK_BOUNDS=1)");
  *run = [opt] { return Run(*opt); };
  return cmd;
}

}  // namespace aotrt_cli
