// A deployment program in the style of TVM's apps/howto_deploy/cpp_deploy.cc, written against
// TVM's C++ runtime headers and run on real TVM v0.14 AOT exports (../shared/fixtures/tvm):
//   - Verify: an operator of the export's library called with DLTensors from TVMArrayAlloc;
//   - DeploySystemLib (when built with the syslib_llvm objects linked in, DEPLOY_SYSLIB):
//     Registry::Get("runtime.SystemLib"), its factory and executor;
//   - DeployExecutor: Module::LoadFromFile, factory.GetFunction("default")(dev), set_input / run /
//     get_output as PackedFuncs with NDArray::Empty arrays, outputs compared with expected.npz.
//   deploy_aot FIXTURES_DIR     (exit 77 when the folder is absent)
#include <dlpack/dlpack.h>
#include <tvm/runtime/module.h>
#include <tvm/runtime/packed_func.h>
#include <tvm/runtime/registry.h>

#include <cstdio>
#include <cstring>
#include <string>

#include "check.h"

using tvm_cpp_test::Expect;

static int checks = 0;

// tiny_add: out = a + b on float32 [1], through the operator's packed function.
void Verify(tvm::runtime::Module mod, std::string fname) {
  tvm::runtime::PackedFunc f = mod.GetFunction(fname, true);
  ICHECK(f != nullptr) << fname << " not found";
  DLTensor* a;
  DLTensor* b;
  DLTensor* y;
  int64_t shape[1] = {1};
  TVMArrayAlloc(shape, 1, kDLFloat, 32, 1, kDLCPU, 0, &a);
  TVMArrayAlloc(shape, 1, kDLFloat, 32, 1, kDLCPU, 0, &b);
  TVMArrayAlloc(shape, 1, kDLFloat, 32, 1, kDLCPU, 0, &y);
  static_cast<float*>(a->data)[0] = 3;
  float four = 4;
  TVMArrayCopyFromBytes(b, &four, sizeof(four));
  f(a, b, y);
  TVMSynchronize(kDLCPU, 0, nullptr);
  ICHECK_EQ(static_cast<float*>(y->data)[0], 7.0f);
  ++checks;
  LOG(INFO) << "Finish verification...";
  TVMArrayFree(a);
  TVMArrayFree(b);
  TVMArrayFree(y);
}

#ifdef DEPLOY_SYSLIB
// syslib_llvm: y = x * x on float32 [3].
void DeploySystemLib() {
  DLDevice dev{kDLCPU, 0};
  tvm::runtime::Module mod_syslib = (*tvm::runtime::Registry::Get("runtime.SystemLib"))();
  tvm::runtime::Module ex = mod_syslib.GetFunction("default")(dev);
  tvm::runtime::NDArray x = tvm::runtime::NDArray::Empty({3}, DLDataType{kDLFloat, 32, 1}, dev);
  tvm::runtime::NDArray y = tvm::runtime::NDArray::Empty({3}, DLDataType{kDLFloat, 32, 1}, dev);
  for (int i = 0; i < 3; ++i) static_cast<float*>(x->data)[i] = i + 1.0f;
  ex.GetFunction("set_input")("x", x);
  ex.GetFunction("run")();
  ex.GetFunction("get_output")(0, y);
  for (int i = 0; i < 3; ++i) ICHECK_EQ(static_cast<float*>(y->data)[i], (i + 1.0f) * (i + 1.0f));
  ++checks;
}
#endif

void DeployExecutor(const std::string& dir) {
  LOG(INFO) << "Running the AOT executor on " << dir;
  DLDevice dev{kDLCPU, 0};
  tvm::runtime::Module mod_factory = tvm::runtime::Module::LoadFromFile(dir + "/model.so");
  tvm::runtime::Module gmod = mod_factory.GetFunction("default")(dev);
  tvm::runtime::PackedFunc set_input = gmod.GetFunction("set_input");
  tvm::runtime::PackedFunc get_output = gmod.GetFunction("get_output");
  tvm::runtime::PackedFunc get_num_outputs = gmod.GetFunction("get_num_outputs");
  tvm::runtime::PackedFunc run = gmod.GetFunction("run");

  for (const aotrt::NamedArray& in : tvm_cpp_test::Npz(dir + "/inputs.npz")) {
    tvm::runtime::NDArray x = tvm::runtime::NDArray::Empty(in.array.Shape(), in.array.dtype(), dev);
    x.CopyFromBytes(in.array.data(), in.array.NumBytes());
    set_input(in.name, x);
  }
  run();
  int num_outputs = get_num_outputs();
  std::vector<aotrt::NamedArray> expected = tvm_cpp_test::Npz(dir + "/expected.npz");
  Expect(num_outputs == static_cast<int>(expected.size()), dir + ": number of outputs");
  for (int i = 0; i < num_outputs && i < static_cast<int>(expected.size()); ++i) {
    tvm::runtime::NDArray out = get_output(i);  // the executor's output
    tvm::runtime::NDArray y = tvm::runtime::NDArray::Empty(out.Shape(), out.DataType(), dev);
    get_output(i, y);                           // copied into our array
    Expect(tvm_cpp_test::SameBytes(*out.operator->(), expected[i].array), dir + ": output " + std::to_string(i));
    Expect(tvm_cpp_test::SameBytes(*y.operator->(), expected[i].array), dir + ": copied output " + std::to_string(i));
    checks += 2;
  }
}

int Main(int argc, char** argv) {
  std::string fixtures = argc > 1 ? argv[1] : "";
  if (fixtures.empty() || !tvm_cpp_test::Exists(fixtures + "/tiny_add_c/model.so")) {
    std::printf("skipped: the real TVM exports (%s) are absent\n", fixtures.c_str());
    return tvm_cpp_test::kSkip;
  }
  Verify(tvm::runtime::Module::LoadFromFile(fixtures + "/tiny_add_c/model.so"), "tvmgen_default_fused_add");
  Verify(tvm::runtime::Module::LoadFromFile(fixtures + "/tiny_add_llvm/model.so"), "tvmgen_default_fused_add");
#ifdef DEPLOY_SYSLIB
  DeploySystemLib();
#endif
  for (const char* name : {"tiny_add_c", "tiny_add_llvm", "conv2d_c_usmp", "conv2d_llvm_nousmp",
                           "mobilenet_c_usmp", "mobilenet_llvm_nousmp"}) {
    DeployExecutor(fixtures + "/" + name);
  }
  return tvm_cpp_test::Finish("deploy_aot", checks);
}

int main(int argc, char** argv) {
  try {
    return Main(argc, argv);
  } catch (const tvm::runtime::Error& e) {
    std::fprintf(stderr, "deploy_aot: %s\n", e.what());
    return 1;
  }
}
