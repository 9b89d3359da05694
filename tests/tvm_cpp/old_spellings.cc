// A deployment program as written for TVM releases before v0.8/v0.9, unchanged spellings:
// DLContext and TVMContext (now DLDevice), the single tvm/runtime/container.h header,
// NDArray::Shape() as a std::vector<int64_t>, NDArray::Empty with a std::vector, kDLGPU. Built with
// TVM's headers found through a plain -I<prefix>/include, as vendor trees ship them. Runs the
// conv2d AOT exports and compares with expected.npz.
//   old_spellings FIXTURES_DIR     (exit 77 when the folder is absent)
#include <dlpack/dlpack.h>
#include <tvm/runtime/c_runtime_api.h>
#include <tvm/runtime/container.h>
#include <tvm/runtime/device_api.h>
#include <tvm/runtime/module.h>
#include <tvm/runtime/ndarray.h>
#include <tvm/runtime/packed_func.h>
#include <tvm/runtime/registry.h>

#include <cstdio>
#include <string>
#include <vector>

#include "check.h"

static int checks = 0;

static void Run(const std::string& dir) {
  DLContext ctx{kDLCPU, 0};
  TVMContext same = ctx;
  ICHECK(same.device_type == kDLCPU && ctx.device_id == 0);
  tvm::runtime::Module mod = tvm::runtime::Module::LoadFromFile(dir + "/model.so");
  TVMValue arg;
  arg.v_ctx = ctx;  // TVMValue::v_ctx, v_device's name before v0.8, as clients of that era call functions
  int code = kDLDevice;
  tvm::runtime::TVMRetValue made;
  mod.GetFunction("default").CallPacked(tvm::runtime::TVMArgs(&arg, &code, 1), &made);
  tvm::runtime::Module gmod = made;
  ICHECK(&arg.v_ctx == &arg.v_device && arg.v_device.device_type == kDLCPU);
  for (const aotrt::NamedArray& in : tvm_cpp_test::Npz(dir + "/inputs.npz")) {
    std::vector<int64_t> shape(in.array->shape, in.array->shape + in.array->ndim);
    tvm::runtime::NDArray x = tvm::runtime::NDArray::Empty(shape, in.array.dtype(), ctx);
    x.CopyFromBytes(in.array.data(), in.array.NumBytes());
    gmod.GetFunction("set_input")(in.name, x);
  }
  gmod.GetFunction("run")();
  tvm::runtime::NDArray out = gmod.GetFunction("get_output")(0);
  std::vector<int64_t> out_shape = out.Shape();  // a std::vector before TVM v0.9
  std::vector<aotrt::NamedArray> expected = tvm_cpp_test::Npz(dir + "/expected.npz");
  tvm_cpp_test::Expect(out_shape == expected[0].array.Shape(), dir + ": output shape");
  tvm_cpp_test::Expect(tvm_cpp_test::SameBytes(*out.operator->(), expected[0].array), dir + ": output 0");
  checks += 2;
}

int main(int argc, char** argv) {
  std::string fixtures = argc > 1 ? argv[1] : "";
  if (fixtures.empty() || !tvm_cpp_test::Exists(fixtures + "/conv2d_c_usmp/model.so")) {
    std::printf("skipped: the real TVM exports (%s) are absent\n", fixtures.c_str());
    return tvm_cpp_test::kSkip;
  }
  try {
    std::vector<std::string> names = tvm::runtime::Registry::ListNames();  // std::string before v0.9
    tvm_cpp_test::Expect(names.size() > 10, "ListNames as std::vector<std::string>");
    ++checks;
    DLContext gpu{kDLGPU, 0};
    tvm_cpp_test::Expect(tvm::runtime::DeviceAPI::Get(gpu, true) != nullptr, "kDLGPU is CUDA, which has a device API");
    ++checks;
    Run(fixtures + "/conv2d_c_usmp");
    Run(fixtures + "/conv2d_llvm_nousmp");
  } catch (const tvm::runtime::Error& e) {
    std::fprintf(stderr, "old_spellings: %s\n", e.what());
    return 1;
  }
  return tvm_cpp_test::Finish("old_spellings", checks);
}
