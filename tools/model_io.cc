#include "model_io.h"

#include <fstream>
#include <sstream>

#include <cmath>
#include <cstring>
#include <random>

#include <aotrt/error.h>
#include <aotrt/half.h>

#include "input_files.h"
#include "model_info.h"
#include "npy.h"
#include "table.h"
#include "usage_error.h"

namespace aotrt_cli {
namespace {

using aotrt::DataTypeToString;

template <typename T>
double Load(const void* p, int64_t i) {
  T v;
  std::memcpy(&v, static_cast<const char*>(p) + i * static_cast<int64_t>(sizeof(T)), sizeof(T));
  return static_cast<double>(v);
}

// Element i of a contiguous tensor as a double. kTypeMismatch for a dtype the tool cannot show.
double Element(const aotrt::NDArray& a, int64_t i) {
  DLDataType t = a.dtype();
  const void* p = a.data();
  if (t.lanes == 1) {
    if (t.code == kDLFloat && t.bits == 32) return Load<float>(p, i);
    if (t.code == kDLFloat && t.bits == 64) return Load<double>(p, i);
    if (t.code == kDLFloat && t.bits == 16) return __gnu_h2f_ieee(static_cast<uint16_t>(Load<uint16_t>(p, i)));
    if (t.code == kDLInt && t.bits == 8) return Load<int8_t>(p, i);
    if (t.code == kDLInt && t.bits == 16) return Load<int16_t>(p, i);
    if (t.code == kDLInt && t.bits == 32) return Load<int32_t>(p, i);
    if (t.code == kDLInt && t.bits == 64) return Load<int64_t>(p, i);
    if (t.code == kDLUInt && (t.bits == 8 || t.bits == 1)) return Load<uint8_t>(p, i);
    if (t.code == kDLUInt && t.bits == 16) return Load<uint16_t>(p, i);
    if (t.code == kDLUInt && t.bits == 32) return Load<uint32_t>(p, i);
    if (t.code == kDLUInt && t.bits == 64) return Load<uint64_t>(p, i);
  }
  throw aotrt::Error(aotrt::ErrorCode::kTypeMismatch, "cannot show values of dtype " + DataTypeToString(t));
}

template <typename T>
void Store(void* p, int64_t i, T v) {
  std::memcpy(static_cast<char*>(p) + i * static_cast<int64_t>(sizeof(T)), &v, sizeof(T));
}

// Random data: floats uniform in [0, 1), signed integers in [-128, 127], unsigned in [0, 255],
// bool 0/1 (clipped to the type's range).
void FillRandom(aotrt::NDArray& a, std::mt19937_64& rng) {
  DLDataType t = a.dtype();
  int64_t n = aotrt::ShapeElements(a->shape, a->ndim);
  void* p = a.data();
  std::uniform_real_distribution<double> real(0.0, 1.0);
  std::uniform_int_distribution<int> s8(-128, 127), u8(0, 255), b(0, 1);
  for (int64_t i = 0; i < n; ++i) {
    if (t.code == kDLFloat && t.bits == 32) Store<float>(p, i, static_cast<float>(real(rng)));
    else if (t.code == kDLFloat && t.bits == 64) Store<double>(p, i, real(rng));
    else if (t.code == kDLFloat && t.bits == 16) Store<uint16_t>(p, i, static_cast<uint16_t>(0x3800 + (u8(rng) << 1)));
    else if (t.code == kDLInt && t.bits == 8) Store<int8_t>(p, i, static_cast<int8_t>(s8(rng)));
    else if (t.code == kDLInt && t.bits == 16) Store<int16_t>(p, i, static_cast<int16_t>(s8(rng)));
    else if (t.code == kDLInt && t.bits == 32) Store<int32_t>(p, i, s8(rng));
    else if (t.code == kDLInt && t.bits == 64) Store<int64_t>(p, i, s8(rng));
    else if (t.code == kDLUInt && t.bits == 1) Store<uint8_t>(p, i, static_cast<uint8_t>(b(rng)));
    else if (t.code == kDLUInt && t.bits == 8) Store<uint8_t>(p, i, static_cast<uint8_t>(u8(rng)));
    else if (t.code == kDLUInt && t.bits == 16) Store<uint16_t>(p, i, static_cast<uint16_t>(u8(rng)));
    else if (t.code == kDLUInt && t.bits == 32) Store<uint32_t>(p, i, static_cast<uint32_t>(u8(rng)));
    else if (t.code == kDLUInt && t.bits == 64) Store<uint64_t>(p, i, static_cast<uint64_t>(u8(rng)));
    else throw aotrt::Error(aotrt::ErrorCode::kTypeMismatch, "cannot make random data of dtype " + DataTypeToString(t));
  }
}

bool Contains(const std::vector<std::string>& v, const std::string& s) {
  for (const std::string& x : v) {
    if (x == s) return true;
  }
  return false;
}

}  // namespace

void AddInputOptions(CLI::App* cmd, InputOptions* opt, bool fill_needs_flag) {
  opt->fill_needs_flag = fill_needs_flag;
  cmd->add_option("-i,--input", opt->inputs,
                  "Input from a .npy file: NAME=FILE, or every input of FILE.npz by key (repeatable; 'input:0' = 'input_0')")
      ->type_name("NAME=FILE|FILE.npz");
  cmd->add_option("--inputs", opt->npz, "Every input from one .npz file, by name (or arr_0, arr_1, ... in input order)")
      ->type_name("FILE.npz");
  auto* random = cmd->add_flag("--random", opt->random,
                               fill_needs_flag ? "Random data for inputs not given (without it or --zeros, every input must be given)"
                                               : "Random data for inputs not given (the default)");
  auto* zeros = cmd->add_flag("--zeros", opt->zeros, "Zeros for inputs not given");
  random->excludes(zeros);
  cmd->add_option("--seed", opt->seed, "Seed of the random inputs (default 0)");
}

std::vector<PreparedInput> PrepareInputs(const aotrt::Model& model, const aotrt::Executor& ex,
                                         const InputOptions& opt) {
  std::vector<PreparedInput> out;
  std::vector<bool> given(ex.NumInputs(), false);
  std::vector<std::string> specs = opt.inputs;
  if (!opt.npz.empty()) specs.push_back(opt.npz);
  for (GivenInput& in : ReadInputFiles(specs, ex)) {
    const aotrt::TensorInfo& info = ex.Input(in.index);
    std::vector<int64_t> shape = in.array.Shape();
    if (!info.shape_known && aotrt::ShapeElements(shape.data(), static_cast<int>(shape.size())) == info.shape[0]) {
      in.array = in.array.CreateView(info.shape, in.array.dtype());  // the model states no shape: any of its size
      shape = info.shape;
    }
    if (shape != info.shape) {
      throw aotrt::Error(aotrt::ErrorCode::kShapeMismatch,
                         "input '" + info.name + "': expected " + DataTypeToString(info.dtype) + " " +
                             Shape(info.shape) + ", got " + DataTypeToString(in.array.dtype()) + " " + Shape(shape) +
                             " from " + in.source);
    }
    if (given[in.index]) throw UsageError("input '" + info.name + "' is given twice");
    given[in.index] = true;
    aotrt::NDArray array = in.array;
    std::string source = in.source;
    if (!aotrt::DataTypeEqual(in.array.dtype(), info.dtype)) {
      // The runtime's one rule, as SetInput and Python apply it (README "Inputs in another dtype").
      array = aotrt::NDArray::Empty(info.shape, info.dtype);
      aotrt::ConvertTensor(in.array.tensor(), array.handle(), "input '" + info.name + "' from " + in.source);
      source += " (" + DataTypeToString(in.array.dtype()) + ", converted)";
    }
    out.push_back({in.index, info.name, source, array});
  }
  std::vector<std::string> params = ParamNames(model);
  if (opt.fill_needs_flag && !opt.random && !opt.zeros) {
    std::string unset;
    for (size_t i = 0; i < ex.NumInputs(); ++i) {
      if (!given[i] && !Contains(params, ex.Input(i).name)) unset += (unset.empty() ? "'" : ", '") + ex.Input(i).name + "'";
    }
    if (!unset.empty()) {
      throw UsageError("input" + std::string(unset.find(',') == std::string::npos ? " " : "s ") + unset +
                       " not given: give each with -i NAME=FILE.npy (or --inputs FILE.npz), or fill what is not "
                       "given with --random [--seed N] or --zeros" +
                       (model.Info().interface == "graph" && params.empty()
                            ? std::string("; a graph's weights (p0, p1, ...) come from its params file: --params "
                                          "mod.params")
                            : std::string()));
    }
  }
  std::mt19937_64 rng(opt.seed);
  for (size_t i = 0; i < ex.NumInputs(); ++i) {
    const aotrt::TensorInfo& info = ex.Input(i);
    if (given[i] || Contains(params, info.name)) continue;
    aotrt::NDArray arr = aotrt::NDArray::Empty(info.shape, info.dtype);
    std::string source = "zeros";
    if (!opt.zeros) {
      FillRandom(arr, rng);
      source = "random (seed " + std::to_string(opt.seed) + ")";
    }
    out.push_back({i, info.name, source, arr});
  }
  return out;
}

void ApplyInputs(aotrt::Executor& ex, const std::vector<PreparedInput>& inputs) {
  for (const PreparedInput& in : inputs) ex.SetInput(in.index, in.array.tensor());
}

OutputSummary Summarize(const std::string& name, const aotrt::NDArray& out) {
  OutputSummary s;
  s.name = name;
  s.shape = out.Shape();
  s.dtype = DataTypeToString(out.dtype());
  s.elements = aotrt::ShapeElements(out->shape, out->ndim);
  if (s.elements == 0) return s;
  double sum = 0;
  s.min = s.max = Element(out, 0);
  int64_t best = 0;
  for (int64_t i = 0; i < s.elements; ++i) {
    double v = Element(out, i);
    sum += v;
    if (v < s.min) s.min = v;
    if (v > s.max) {
      s.max = v;
      best = i;
    }
  }
  s.mean = sum / static_cast<double>(s.elements);
  bool vector = s.shape.size() == 1 || (s.shape.size() == 2 && s.shape[0] == 1);
  if (vector && s.elements > 1) s.argmax = best;
  return s;
}

double ElementAsDouble(const aotrt::NDArray& a, int64_t i) { return Element(a, i); }

std::string FormatValues(const aotrt::NDArray& a, int64_t limit) {
  int64_t n = aotrt::ShapeElements(a->shape, a->ndim);
  std::string s = "[";
  for (int64_t i = 0; i < n && i < limit; ++i) s += (i ? ", " : "") + Number(Element(a, i));
  if (n > limit) s += ", ...";
  return s + "]";
}

void AddModelSource(CLI::App* cmd, ModelSource* src) {
  cmd->add_option("model", src->path,
                  "Model exported by TVM: a factory library (.so, .tar), a C-interface archive, a graph package "
                  "(folder or tvmc .tar of mod.so, mod.json, mod.params), or a graph's library with --graph")
      ->required();
  cmd->add_option("--graph", src->graph_json, "The graph JSON of a graph export's library (the classic triple)")
      ->check(CLI::ExistingFile);
  cmd->add_option("--params", src->params, "The params file of that graph (needs --graph)")
      ->check(CLI::ExistingFile);
  cmd->add_option("--device", src->device,
                  "Where to run: cpu (default), or opencl[:N], cuda[:N] or vulkan[:N] for a GPU export (`aotrt devices` lists them)")
      ->type_name("DEVICE");
}

DLDevice ModelSource::Device() const {
  static const std::pair<const char*, DLDeviceType> kTypes[] = {
      {"cpu", kDLCPU}, {"opencl", kDLOpenCL}, {"cl", kDLOpenCL}, {"cuda", kDLCUDA}, {"vulkan", kDLVulkan}};
  std::string type = device.substr(0, device.find(':'));
  for (const auto& [name, code] : kTypes) {
    if (type != name) continue;
    if (type.size() == device.size()) return DLDevice{code, 0};
    std::string id = device.substr(type.size() + 1);
    if (id.empty() || id.size() > 4 || id.find_first_not_of("0123456789") != std::string::npos) {
      throw UsageError("--device " + device + ": the device id after ':' must be a number, e.g. opencl:0");
    }
    return DLDevice{code, std::stoi(id)};
  }
  throw UsageError("--device " + device + ": unknown device type; expected cpu, opencl[:N], cuda[:N] or vulkan[:N]");
}

aotrt::NDArray HostOutput(const aotrt::Executor& ex, size_t i) {
  aotrt::NDArray out = ex.GetOutput(i);
  if (out->device.device_type == kDLCPU) return out;
  aotrt::NDArray host = aotrt::NDArray::Empty(out.Shape(), out.dtype());
  host.CopyFrom(out.tensor());
  return host;
}

aotrt::Model ModelOfRoot(const std::string& path, const aotrt::Module& root) {
  if (root.type_key() == "library") {  // no model in it: the operators of a graph export
    throw aotrt::Error(aotrt::ErrorCode::kInvalidArgument,
                       path + " holds operators only (no model): a graph export's library (mod.so); give its "
                       "graph with --graph mod.json (and its weights with --params mod.params)");
  }
  return aotrt::Model::FromModule(root);
}

aotrt::Model LoadModel(const ModelSource& src) {
  if (src.graph_json.empty()) {
    if (!src.params.empty()) throw UsageError("--params needs --graph (the graph JSON the params belong to)");
    return ModelOfRoot(src.path, aotrt::Module::LoadFromFile(src.path));
  }
  auto read = [](const std::string& path) {
    std::ifstream in(path, std::ios::binary);
    std::stringstream s;
    s << in.rdbuf();
    if (!in.good() && !in.eof()) throw UsageError("cannot read " + path);
    return s.str();
  };
  std::string params = src.params.empty() ? "" : read(src.params);
  if (!src.params.empty() && params.empty()) {
    throw UsageError("--params " + src.params + " is empty: a params file (relay.save_param_dict, tvmc's mod.params) "
                     "has a header even for a model without params; leave --params out for none");
  }
  try {
    return aotrt::Model::LoadGraph(src.path, read(src.graph_json), params);
  } catch (const aotrt::Error& e) {
    // The library names the texts by the library they belong to; the user gave files: name those.
    std::string m = e.what(), json_prefix = "graph JSON of " + src.path, params_prefix = "params: ";
    if (m.compare(0, json_prefix.size(), json_prefix) == 0) {
      m = src.graph_json + " (--graph, the graph JSON of " + src.path + ")" + m.substr(json_prefix.size());
    } else if (m.compare(0, params_prefix.size(), params_prefix) == 0) {
      m = src.params + " (--params): " + m.substr(params_prefix.size());
    }
    throw aotrt::Error(e.code(), m);
  }
}

}  // namespace aotrt_cli
