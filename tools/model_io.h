// Inputs and outputs for `run` and `bench`: .npy files, random or zero inputs, output summaries.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include <CLI/CLI.hpp>
#include <aotrt/model.h>

namespace aotrt_cli {

// The model a command works on: a path (a factory library, a C-interface archive, a graph package
// folder or tvmc .tar), or a graph export's classic triple: the library with --graph and --params.
struct ModelSource {
  std::string path;
  std::string graph_json;  // --graph FILE: the graph JSON of the library at `path`
  std::string params;      // --params FILE: its params (relay.save_param_dict); needs --graph
  std::string device = "cpu";  // --device cpu | opencl[:N] | cuda[:N] | vulkan[:N]
  // The device --device names. Throws UsageError for an unknown name or id.
  DLDevice Device() const;
};

// Adds the positional "model" and --graph, --params, --device to `cmd`.
void AddModelSource(CLI::App* cmd, ModelSource* src);
// Output i of `ex` in host memory: the output itself on the CPU, a copy of it from a device.
aotrt::NDArray HostOutput(const aotrt::Executor& ex, size_t i);
// Model::Load, or Model::LoadGraph with the files' contents. Throws aotrt::Error, UsageError.
aotrt::Model LoadModel(const ModelSource& src);
// The model whose module tree `root` (loaded from `path`) is; a library of operators alone (a graph
// export's mod.so) is refused saying to give --graph. Throws aotrt::Error.
aotrt::Model ModelOfRoot(const std::string& path, const aotrt::Module& root);

struct InputOptions {
  std::vector<std::string> inputs;  // "name=file.npy" or "file.npz"
  std::string npz;                  // --inputs FILE.npz
  bool zeros = false;
  bool random = false;
  uint64_t seed = 0;
  // `run`: an input neither given nor filled by --random/--zeros is refused before anything runs.
  // `bench`: such inputs get random data (timing needs values, not particular ones).
  bool fill_needs_flag = false;
};

// Adds --input, --inputs, --random, --zeros, --seed to `cmd`; `fill_needs_flag` as in InputOptions.
void AddInputOptions(CLI::App* cmd, InputOptions* opt, bool fill_needs_flag);

struct PreparedInput {
  size_t index;
  std::string name;
  std::string source;  // "file.npy", "random (seed 0)", "zeros"
  aotrt::NDArray array;
};

// Read the .npy files (checking the shape against the model; another dtype is converted by the
// runtime's one rule, aotrt::ConvertTensor, or refused naming the input, the file and the value)
// and make random/zero data for the other inputs, except the factory's params. Throws
// aotrt::Error, or UsageError for an input left unset when opt.fill_needs_flag.
std::vector<PreparedInput> PrepareInputs(const aotrt::Model& model, const aotrt::Executor& ex,
                                         const InputOptions& opt);
void ApplyInputs(aotrt::Executor& ex, const std::vector<PreparedInput>& inputs);

struct OutputSummary {
  std::string name;
  std::vector<int64_t> shape;
  std::string dtype;
  double min = 0, max = 0, mean = 0;
  int64_t argmax = -1;  // for a [N] or [1, N] output, else -1
  int64_t elements = 0;
};

OutputSummary Summarize(const std::string& name, const aotrt::NDArray& out);
// Element `i` of a contiguous tensor as a double; kTypeMismatch for a dtype the tool cannot read.
double ElementAsDouble(const aotrt::NDArray& a, int64_t i);
// Up to `limit` values of `a` as text, e.g. "[1, 2.5, 3]" (", ..." when cut).
std::string FormatValues(const aotrt::NDArray& a, int64_t limit);

}  // namespace aotrt_cli
