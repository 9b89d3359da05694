#include "vm_commands.h"

#include <sys/stat.h>

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <iostream>
#include <sstream>

#include <aotrt/container.h>
#include <aotrt/dtype.h>
#include <aotrt/vm.h>

#include "npy.h"
#include "npz.h"
#include "table.h"
#include "usage_error.h"

namespace aotrt_cli {
namespace {

bool EndsWith(const std::string& s, const std::string& tail) {
  return s.size() >= tail.size() && s.compare(s.size() - tail.size(), tail.size(), tail) == 0;
}

std::string Folder(const std::string& path) {
  size_t slash = path.rfind('/');
  return slash == std::string::npos ? "." : path.substr(0, slash);
}

void Flatten(const aotrt::Object* o, std::vector<aotrt::NDArray>* out) {
  if (o->type_index() == aotrt::kTypeADT) {
    for (const auto& f : static_cast<const aotrt::ADTObj*>(o)->fields) Flatten(f.get(), out);
    return;
  }
  if (o->type_index() != aotrt::kTypeNDArray) throw UsageError("the VM returned something other than tensors and tuples");
  out->push_back(aotrt::NDArray(aotrt::ObjectPtr<aotrt::NDArrayObj>(
      static_cast<aotrt::NDArrayObj*>(const_cast<aotrt::Object*>(o)))));
}

// main's inputs in parameter order, from --inputs FILE.npz and --input NAME=FILE.npy|FILE.npz
// (keys: parameter names, or arg0, arg1, ... as TVM's VM tests write them).
std::vector<aotrt::NDArray> GatherInputs(const aotrt::Module& exe, const InputOptions& in) {
  if (in.random || in.zeros) throw UsageError("--random/--zeros: a VM function's input shapes are known only at run time; give every input");
  int64_t arity = exe.GetFunctionOrThrow("get_function_arity")("main").As<int64_t>();
  if (arity < 0) throw UsageError("the VM executable has no function 'main'");
  std::vector<std::string> names;
  for (int64_t i = 0; i < arity; ++i) names.push_back(exe.GetFunctionOrThrow("get_function_param_name")("main", i).As<std::string>());
  std::vector<aotrt::NDArray> args(static_cast<size_t>(arity));
  auto put = [&](const std::string& key, const aotrt::NDArray& a, const std::string& from) {
    for (size_t i = 0; i < names.size(); ++i) {
      if (key == names[i] || key == "arg" + std::to_string(i)) return void(args[i] = a);
    }
    throw UsageError(from + ": '" + key + "' is no input of main (its inputs: " + [&] {
      std::string s;
      for (const auto& n : names) s += (s.empty() ? "" : ", ") + n;
      return s;
    }() + ")");
  };
  std::vector<std::string> files = in.inputs;
  if (!in.npz.empty()) files.insert(files.begin(), in.npz);
  for (const std::string& f : files) {
    size_t eq = f.find('=');
    if (eq == std::string::npos) {
      for (const aotrt::NamedArray& a : ReadNpz(f)) put(a.name, a.array, f);
    } else {
      put(f.substr(0, eq), ReadNpy(f.substr(eq + 1)), f);
    }
  }
  for (size_t i = 0; i < args.size(); ++i) {
    if (!args[i].defined()) throw UsageError("input " + std::to_string(i) + " ('" + names[i] + "') of main is not given");
  }
  return args;
}

}  // namespace

aotrt::Module LoadModelOrVM(const ModelSource& src, aotrt::Model* model) {
  if (EndsWith(src.path, ".ro")) return aotrt::LoadVMExecutable(src.path, Folder(src.path) + "/lib.so");
  if (!src.graph_json.empty()) return *model = LoadModel(src), aotrt::Module();
  aotrt::Module root = aotrt::Module::LoadFromFile(src.path);
  if (root.type_key() == "VMExecutable") return root;
  *model = ModelOfRoot(src.path, root);
  return aotrt::Module();
}

void PrintVMInspect(const aotrt::Module& exe, const std::string& path, bool json) {
  std::string stats = exe.GetFunctionOrThrow("get_stats")().As<std::string>();
  std::string functions;
  std::istringstream code(exe.GetFunctionOrThrow("get_bytecode")().As<std::string>());
  for (std::string line; std::getline(code, line);) {
    if (line.rfind("VM Function[", 0) == 0) functions += "  " + line + "\n";
  }
  std::string devices = exe.GetFunctionOrThrow("get_virtual_devices")().As<std::string>();
  if (json) {
    auto quote = [](const std::string& s) {
      std::string q = "\"";
      for (char c : s) q += c == '"' ? std::string("\\\"") : c == '\n' ? std::string("\\n") : c == '\\' ? std::string("\\\\") : std::string(1, c);
      return q + "\"";
    };
    std::cout << "{\"model\": " << quote(path) << ", \"interface\": \"relay_vm\", \"functions\": " << quote(functions)
              << ", \"virtual_devices\": " << quote(devices) << ", \"stats\": " << quote(stats) << "}\n";
    return;
  }
  std::cout << path << ": Relay VM executable\n\nfunctions:\n" << functions << "\nvirtual devices:\n" << devices << "\n"
            << stats;
}

aotrt::Module MakeVM(const aotrt::Module& exe, const InputOptions& in, std::vector<int>* device_types) {
  std::vector<aotrt::NDArray> args = GatherInputs(exe, in);
  aotrt::Module vm = exe.GetFunctionOrThrow("vm_load_executable")().As<aotrt::Module>();
  // Each virtual device's type (device 0 of it), the CPU always (shape functions run there).
  std::vector<int> types{kDLCPU};
  std::istringstream devices(exe.GetFunctionOrThrow("get_virtual_devices")().As<std::string>());
  for (std::string line; std::getline(devices, line);) {
    size_t at = line.find("device type ");
    int type = at == std::string::npos ? kDLCPU : std::atoi(line.c_str() + at + 12);
    if (std::find(types.begin(), types.end(), type) == types.end()) types.push_back(type);
  }
  TVMValue values[3 * 8];
  int codes[3 * 8];
  int n = 0;
  for (size_t i = 0; i < types.size() && i < 8; ++i) {
    for (int64_t v : {int64_t{types[i]}, int64_t{0}, int64_t{2}}) values[n].v_int64 = v, codes[n++] = kTVMArgInt;
  }
  aotrt::TVMRetValue none;
  vm.GetFunctionOrThrow("init").CallPacked(aotrt::TVMArgs(values, codes, n), &none);
  if (device_types) *device_types = types;
  for (size_t i = 0; i < args.size(); ++i) vm.GetFunctionOrThrow("set_one_input")("main", static_cast<int64_t>(i), args[i]);
  return vm;
}

void SynchronizeVM(const std::vector<int>& device_types) {
  for (int t : device_types) {
    if (t != kDLCPU && TVMSynchronize(t, 0, nullptr) != 0) throw UsageError(TVMGetLastError());
  }
}

bool IsVMBytecodeSource(const ModelSource& src) {
  struct stat st;
  return src.graph_json.empty() && (EndsWith(src.path, ".ro") || (::stat(src.path.c_str(), &st) == 0 && S_ISDIR(st.st_mode) &&
                                                                    ::stat((src.path + "/code.ro").c_str(), &st) == 0));
}

int BenchVM(const aotrt::Module& exe, const InputOptions& in, const aotrt::BenchmarkOptions& options, bool json) {
  std::vector<int> types;
  aotrt::Module vm = MakeVM(exe, in, &types);
  TVMValue name;
  name.v_str = "main";
  int code = kTVMStr;
  // Each call waits for the devices' queues, so that a run on OpenCL is timed to its end.
  aotrt::PackedFunc invoke = vm.GetFunctionOrThrow("invoke_stateful");
  aotrt::PackedFunc call([invoke, types](aotrt::TVMArgs args, aotrt::TVMRetValue* rv) {
    invoke.CallPacked(args, rv);
    SynchronizeVM(types);
  });
  aotrt::BenchmarkStats s = aotrt::Benchmark(call, aotrt::TVMArgs(&name, &code, 1), options);
  if (json) {
    std::cout << aotrt::BenchmarkStatsToJson(s) << "\n";
  } else {
    Table t({"function", "min ms", "mean ms", "median ms", "p90 ms", "p99 ms", "max ms"}, {false, true, true, true, true, true, true});
    auto ms = [](double sec) { return Fixed(sec * 1e3, 4); };
    t.AddRow({"main", ms(s.min), ms(s.mean), ms(s.median), ms(s.p90), ms(s.p99), ms(s.max)});
    t.Print(std::cout);
    std::cout << s.repeat << " repeats of " << s.number << " calls\n";
  }
  return s.interrupted ? 130 : 0;
}

int RunVM(const aotrt::Module& exe, const InputOptions& in, const std::string& output, const std::string& expect,
          const Tolerance& tol) {
  aotrt::Module vm = MakeVM(exe, in);
  auto t0 = std::chrono::steady_clock::now();
  aotrt::TVMRetValue r = vm.GetFunctionOrThrow("invoke")("main");
  double ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
  std::vector<aotrt::NDArray> outs;
  Flatten(r.object(), &outs);
  for (aotrt::NDArray& o : outs) {
    if (o->device.device_type == kDLCPU) continue;
    aotrt::NDArray host = aotrt::NDArray::Empty(o.Shape(), o.dtype());
    host.CopyFrom(o.tensor());
    o = host;
  }
  std::cout << "ran main in " << Fixed(ms, 3) << " ms (first run, cold)\n\n";
  Table t({"output", "dtype", "shape"}, {false, false, false});
  for (size_t i = 0; i < outs.size(); ++i) {
    t.AddRow({"arr_" + std::to_string(i), aotrt::DataTypeToString(outs[i].dtype()), Shape(outs[i].Shape())});
  }
  t.Print(std::cout);
  if (!output.empty()) {
    std::vector<std::pair<std::string, const DLTensor*>> named;
    for (size_t i = 0; i < outs.size(); ++i) named.emplace_back("arr_" + std::to_string(i), outs[i].handle());
    if (EndsWith(output, ".npz")) {
      WriteNpz(output, named);
    } else {
      ::mkdir(output.c_str(), 0777);
      for (size_t i = 0; i < outs.size(); ++i) WriteNpy(output + "/output" + std::to_string(i) + ".npy", *outs[i].handle());
    }
    std::cout << "wrote " << outs.size() << " outputs to " << output << "\n";
  }
  if (expect.empty()) return 0;
  std::vector<aotrt::NamedArray> want = ReadNpz(expect);
  bool same = want.size() == outs.size();
  for (size_t i = 0; same && i < outs.size(); ++i) same = Compare(outs[i], want[i].array, tol).equal;
  std::cout << (same ? "outputs match " : "outputs DIFFER from ") << expect << "\n";
  return same ? 0 : 3;
}

}  // namespace aotrt_cli
