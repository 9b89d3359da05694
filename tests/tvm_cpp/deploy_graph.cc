// Deployment programs for TVM's graph executor, in the two styles real programs use, written
// against TVM's C++ runtime headers and run on real TVM v0.14 graph exports
// (../shared/fixtures/graph), outputs compared with expected.npz:
//   - the factory: Module::LoadFromFile(model.so), lib.GetFunction("default")(dev);
//   - the classic triple: Registry::Get("tvm.graph_executor.create") (or, before TVM v0.8,
//     "tvm.graph_runtime.create")(json, lib, device_type, device_id), then load_params(TVMByteArray).
// Inputs are set by name (get_input_info gives their shapes and dtypes), outputs read by index; the
// debug executor (factory debug_create) runs the same and profile(...) gives a profiling::Report.
//   deploy_graph GRAPH_FIXTURES_DIR     (exit 77 when the folder is absent or the library has no
//   graph executor)
#include <dlpack/dlpack.h>
#include <tvm/runtime/container/map.h>
#include <tvm/runtime/container/shape_tuple.h>
#include <tvm/runtime/module.h>
#include <tvm/runtime/packed_func.h>
#include <tvm/runtime/profiling.h>
#include <tvm/runtime/registry.h>

#include <cstdio>
#include <fstream>
#include <iterator>
#include <string>

#include "check.h"

using tvm_cpp_test::Expect;

static int checks = 0;

static std::string ReadFile(const std::string& path, std::ios::openmode mode = std::ios::in) {
  std::ifstream in(path, mode);
  ICHECK(in) << "cannot open " << path;
  return std::string((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
}

// Sets the inputs, runs, compares every output with expected.npz.
static void RunAndCompare(tvm::runtime::Module gmod, const std::string& dir) {
  DLDevice dev{kDLCPU, 0};
  tvm::runtime::Map<tvm::runtime::String, tvm::runtime::ObjectRef> info = gmod.GetFunction("get_input_info")();
  auto shapes = tvm::runtime::Downcast<tvm::runtime::Map<tvm::runtime::String, tvm::runtime::ShapeTuple>>(info["shape"]);
  tvm::runtime::PackedFunc set_input = gmod.GetFunction("set_input");
  for (const aotrt::NamedArray& in : tvm_cpp_test::Npz(dir + "/inputs.npz")) {
    Expect(shapes.count(in.name) == 1, dir + ": get_input_info names input " + in.name);
    tvm::runtime::NDArray x = tvm::runtime::NDArray::Empty(shapes[in.name], in.array.dtype(), dev);
    x.CopyFromBytes(in.array.data(), in.array.NumBytes());
    set_input(in.name, x);
    ++checks;
  }
  gmod.GetFunction("run")();
  int num_outputs = gmod.GetFunction("get_num_outputs")();
  std::vector<aotrt::NamedArray> expected = tvm_cpp_test::Npz(dir + "/expected.npz");
  Expect(num_outputs == static_cast<int>(expected.size()), dir + ": number of outputs");
  for (int i = 0; i < num_outputs && i < static_cast<int>(expected.size()); ++i) {
    tvm::runtime::NDArray out = gmod.GetFunction("get_output")(i);
    Expect(tvm_cpp_test::SameBytes(*out.operator->(), expected[i].array), dir + ": output " + std::to_string(i));
    ++checks;
  }
}

static void DeployFactory(const std::string& dir) {
  DLDevice dev{kDLCPU, 0};
  tvm::runtime::Module lib = tvm::runtime::Module::LoadFromFile(dir + "/model.so");
  tvm::runtime::Module gmod = lib.GetFunction("default")(dev);
  RunAndCompare(gmod, dir);
}

// The debug executor's profile(...) as a profiling::Report, one line per operator.
static void ProfileDebug(const std::string& dir) {
  DLDevice dev{kDLCPU, 0};
  tvm::runtime::Module lib = tvm::runtime::Module::LoadFromFile(dir + "/model.so");
  tvm::runtime::Module dmod = lib.GetFunction("debug_create")("default", dev);
  RunAndCompare(dmod, dir);
  tvm::runtime::profiling::Report report =
      dmod.GetFunction("profile")(tvm::runtime::Array<tvm::runtime::profiling::MetricCollector>());
  std::string table = report->AsTable(), csv = report->AsCSV();
  Expect(table.find("fused_add") != std::string::npos && csv.rfind("Name,Duration (us)", 0) == 0,
         dir + ": the profile's table names the operator:\n" + table);
  ++checks;
}

static void DeployClassic(const std::string& dir, const char* create) {
  std::string json_data = ReadFile(dir + "/mod.json");
  tvm::runtime::Module mod_lib = tvm::runtime::Module::LoadFromFile(dir + "/mod.so");
  int device_type = kDLCPU;
  int device_id = 0;
  tvm::runtime::Module mod =
      (*tvm::runtime::Registry::Get(create))(json_data, mod_lib, device_type, device_id);
  std::string params_data = ReadFile(dir + "/mod.params", std::ios::binary);
  TVMByteArray params_arr;
  params_arr.data = params_data.c_str();
  params_arr.size = params_data.length();
  tvm::runtime::PackedFunc load_params = mod.GetFunction("load_params");
  load_params(params_arr);
  RunAndCompare(mod, dir);
}

int Main(const std::string& fixtures) {
  if (fixtures.empty() || !tvm_cpp_test::Exists(fixtures + "/g_add_c/model.so")) {
    std::printf("skipped: the real TVM graph exports (%s) are absent\n", fixtures.c_str());
    return tvm_cpp_test::kSkip;
  }
  try {
    tvm::runtime::Module::LoadFromFile(fixtures + "/g_add_c/model.so");
  } catch (const tvm::runtime::Error& e) {
    if (std::string(e.what()).find("GraphExecutorFactory") == std::string::npos) throw;
    std::printf("skipped: this aotrt refuses graph exports: %s\n", e.what());
    return tvm_cpp_test::kSkip;
  }
  for (const char* name : {"g_add_c", "g_conv_llvm", "g_mobilenet_llvm"}) DeployFactory(fixtures + "/" + name);
  ProfileDebug(fixtures + "/g_add_c");
  Expect(tvm::runtime::Registry::Get("tvm.graph_executor.create") != nullptr, "tvm.graph_executor.create exists");
  ++checks;
  if (tvm::runtime::Registry::Get("tvm.graph_executor.create")) {
    DeployClassic(fixtures + "/g_classic_llvm", "tvm.graph_executor.create");
    DeployClassic(fixtures + "/g_classic_llvm", "tvm.graph_runtime.create");  // the name before TVM v0.8
  }
  return tvm_cpp_test::Finish("deploy_graph", checks);
}

int main(int argc, char** argv) {
  try {
    return Main(argc > 1 ? argv[1] : "");
  } catch (const tvm::runtime::Error& e) {
    std::fprintf(stderr, "deploy_graph: %s\n", e.what());
    return 1;
  }
}
