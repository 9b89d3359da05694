// A deployment program for an OpenCL graph export written against TVM's C++ runtime headers, as
// TVM's Android and Jetson demos are: DeviceAPI::Get, NDArray::Empty on the device, CopyFrom, the
// factory on Device{kDLOpenCL, 0}, CopyTo the CPU, TVMSynchronize; run on the real TVM v0.14 OpenCL
// exports (../shared/fixtures/gpu), outputs compared with TVM's own on the same device; with
// `vulkan`, the same on the Vulkan exports (k_*) and Device{kDLVulkan, 0}.
//   deploy_opencl GPU_FIXTURES_DIR [vulkan]   (exit 77 when the folder or the device is absent)
#include <dlpack/dlpack.h>
#include <tvm/runtime/device_api.h>
#include <tvm/runtime/module.h>
#include <tvm/runtime/ndarray.h>
#include <tvm/runtime/packed_func.h>

#include <cstdio>
#include <string>

#include "check.h"

using tvm_cpp_test::Expect;

static int checks = 0;

static void Deploy(const std::string& dir, DLDevice dev) {
  tvm::runtime::Module lib = tvm::runtime::Module::LoadFromFile(dir + "/model.so");
  tvm::runtime::Module gmod = lib.GetFunction("default")(dev);
  tvm::runtime::PackedFunc set_input = gmod.GetFunction("set_input");
  for (const aotrt::NamedArray& in : tvm_cpp_test::Npz(dir + "/inputs.npz")) {
    tvm::runtime::NDArray host = tvm::runtime::NDArray::Empty(in.array.Shape(), in.array.dtype(), DLDevice{kDLCPU, 0});
    host.CopyFromBytes(in.array.data(), in.array.NumBytes());
    tvm::runtime::NDArray x = tvm::runtime::NDArray::Empty(in.array.Shape(), in.array.dtype(), dev);
    x.CopyFrom(host);
    set_input(in.name, x);
  }
  gmod.GetFunction("run")();
  tvm::runtime::DeviceAPI::Get(dev)->StreamSync(dev, nullptr);
  std::vector<aotrt::NamedArray> expected = tvm_cpp_test::Npz(dir + "/expected.npz");
  for (size_t i = 0; i < expected.size(); ++i) {
    tvm::runtime::NDArray out = gmod.GetFunction("get_output")(static_cast<int>(i));
    Expect(out->device.device_type == dev.device_type, dir + ": output " + std::to_string(i) + " is on the device");
    tvm::runtime::NDArray host = out.CopyTo(DLDevice{kDLCPU, 0});
    Expect(tvm_cpp_test::SameBytes(*host.operator->(), expected[i].array), dir + ": output " + std::to_string(i));
    checks += 2;
  }
  Expect(TVMSynchronize(dev.device_type, dev.device_id, nullptr) == 0, "TVMSynchronize on the device");
  ++checks;
}

int Main(const std::string& fixtures, bool vulkan) {
  const char* p = vulkan ? "k_" : "o_";
  if (fixtures.empty() || !tvm_cpp_test::Exists(fixtures + "/" + p + "add/model.so")) {
    std::printf("skipped: the real TVM GPU exports (%s) are absent\n", fixtures.c_str());
    return tvm_cpp_test::kSkip;
  }
  DLDevice dev{vulkan ? kDLVulkan : kDLOpenCL, 0};
  try {
    tvm::runtime::DeviceAPI::Get(dev)->FreeDataSpace(dev, tvm::runtime::DeviceAPI::Get(dev)->AllocDataSpace(
                                                              dev, 16, 64, DLDataType{kDLFloat, 32, 1}));
  } catch (const tvm::runtime::Error& e) {
    std::printf("skipped: no device: %s\n", e.what());
    return tvm_cpp_test::kSkip;
  }
  for (const char* name : {"add", "conv"}) Deploy(fixtures + "/" + p + name, dev);
  return tvm_cpp_test::Finish(vulkan ? "deploy_opencl vulkan" : "deploy_opencl", checks);
}

int main(int argc, char** argv) {
  try {
    return Main(argc > 1 ? argv[1] : "", argc > 2 && std::string(argv[2]) == "vulkan");
  } catch (const tvm::runtime::Error& e) {
    std::fprintf(stderr, "deploy_opencl: %s\n", e.what());
    return 1;
  }
}
