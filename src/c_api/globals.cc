// The lists of built-in globals and binary loaders (every layer's table), and the runtime-wide globals of TVM's
// `runtime.*` namespace that belong to no lower layer: devices, threads, enabled runtimes.
#include <cstring>
#include <iterator>
#include <string>

#include "aotrt/container.h"
#include "backend/thread_pool.h"
#include "base/error_util.h"
#include "base/device.h"
#include "device/device_api.h"
#include "ffi/registry.h"
#include "module/load_context.h"

namespace aotrt {

extern const GlobalTable kContainerGlobals;
extern const GlobalTable kNDArrayGlobals;
extern const GlobalTable kModuleGlobals;
extern const GlobalTable kAotGlobals;
extern const GlobalTable kGraphGlobals;
extern const GlobalTable kProfilingGlobals;
extern const GlobalTable kContribGlobals;
extern const GlobalTable kRuntimeGlobals;
extern const GlobalTable kLoadGlobals;
extern const GlobalTable kVMGlobals;
extern const GlobalTable kDeviceGlobals;

const GlobalTable* const kBuiltinGlobalTables[] = {&kContainerGlobals, &kNDArrayGlobals, &kModuleGlobals,
                                                   &kAotGlobals,       &kGraphGlobals, &kProfilingGlobals, &kContribGlobals,
                                                   &kRuntimeGlobals,   &kLoadGlobals, &kVMGlobals, &kDeviceGlobals};
const size_t kNumBuiltinGlobalTables = std::size(kBuiltinGlobalTables);

// The built-in loaders of module blob entries, by type key (module/load_context.h).
extern const BinaryLoaderTable kAotBinaryLoaders;
extern const BinaryLoaderTable kGraphBinaryLoaders;
extern const BinaryLoaderTable kVMBinaryLoaders;
extern const BinaryLoaderTable kDeviceBinaryLoaders;

const BinaryLoaderTable* const kBuiltinBinaryLoaderTables[] = {&kAotBinaryLoaders, &kGraphBinaryLoaders,
                                                               &kDeviceBinaryLoaders, &kVMBinaryLoaders};
const size_t kNumBuiltinBinaryLoaderTables = std::size(kBuiltinBinaryLoaderTables);

// The built-in loaders of whole files the module layer cannot read itself (module/load_context.h).
extern const FileLoaderTable kCInterfaceFileLoaders;
extern const FileLoaderTable kGraphFileLoaders;
extern const FileLoaderTable kVMFileLoaders;

const FileLoaderTable* const kBuiltinFileLoaderTables[] = {&kCInterfaceFileLoaders, &kGraphFileLoaders,
                                                           &kVMFileLoaders};
const size_t kNumBuiltinFileLoaderTables = std::size(kBuiltinFileLoaderTables);

namespace {

// (device_type, device_id, kind): kind 0 (exist) is 0 or 1 for any device; another attribute of a
// device that exists is its driver's (null where the driver has none, as TVM's CPU API).
void GetDeviceAttr(TVMArgs args, TVMRetValue* rv) {
  RequireArgCount("runtime.GetDeviceAttr", args, 3);
  DLDevice dev = MakeDevice(static_cast<int>(args[0].AsInt()), static_cast<int>(args[1].AsInt()));
  auto kind = static_cast<DeviceAttr>(args[2].AsInt());
  DeviceAPI* api = FindDeviceAPI(DeviceTypeOf(dev));
  if (kind == DeviceAttr::kExist) return rv->SetInt(api && dev.device_id >= 0 && dev.device_id < api->NumDevices());
  RequireDevice(dev, "runtime.GetDeviceAttr").GetAttr(dev.device_id, kind, rv);
}

// (device_type, device_id): the device that generated host code's kernels run on, for this thread.
void SetDevice(TVMArgs args, TVMRetValue*) {
  RequireArgCount("__tvm_set_device", args, 2);
  DLDevice dev = MakeDevice(static_cast<int>(args[0].AsInt()), static_cast<int>(args[1].AsInt()));
  RequireDevice(dev, "__tvm_set_device").SetDevice(dev.device_id);
}

// TVM's names of optional runtimes; aotrt has the CPU, OpenCL and CUDA ones.
void RuntimeEnabled(TVMArgs args, TVMRetValue* rv) {
  std::string t = args[0].AsString();
  static const char* const kKnown[] = {"cuda", "gpu", "nvptx", "cl", "opencl", "sdaccel", "mtl", "metal",
                                       "vulkan", "rpc", "hexagon", "rocm", "llvm", "stackvm", "tflite"};
  if (t == "cpu") return rv->SetInt(1);
  if (t.compare(0, 6, "opencl") == 0 || t == "cl" || t.compare(0, 6, "vulkan") == 0) return rv->SetInt(1);
  if (t.compare(0, 4, "cuda") == 0 || t == "gpu" || t == "nvptx") return rv->SetInt(1);
  for (const char* k : kKnown) {
    if (t.compare(0, std::strlen(k), k) == 0) return rv->SetInt(0);
  }
  AOTRT_THROW(kInvalidArgument, "Unknown optional runtime ", t);
}

void NumThreads(TVMArgs, TVMRetValue* rv) { rv->SetInt(DefaultNumThreads()); }

// (mode, nthreads[, cpus]): the worker count of parallel launches; CPU affinity is not supported.
void ConfigThreadPool(TVMArgs args, TVMRetValue*) {
  AOTRT_REQUIRE(args.size() >= 2 && args.size() <= 3, kInvalidArgument, "config_threadpool takes 2 or 3 arguments");
  args[0].AsInt();
  if (args.size() == 3 && args[2].type_code() != kTVMNullptr) {
    const auto* cpus = static_cast<const ArrayObj*>(args[2].AsObjectOf(kTypeArray, "Array of cpu ids"));
    AOTRT_REQUIRE(cpus->items.empty(), kNotImplemented, "config_threadpool: pinning threads to cpus is not supported");
  }
  int64_t n = args[1].AsInt();
  SetNumThreads(n > 0 && n < (1 << 20) ? static_cast<int>(n) : 0);
}

// (device_type, device_id, stream).
void SetStream(TVMArgs args, TVMRetValue*) {
  RequireArgCount("runtime.TVMSetStream", args, 3);
  DLDevice dev = MakeDevice(static_cast<int>(args[0].AsInt()), static_cast<int>(args[1].AsInt()));
  RequireDevice(dev, "runtime.TVMSetStream").SetStream(dev.device_id, args[2].AsHandle());
}

constexpr GlobalDef kDefs[] = {
    {"runtime.GetDeviceAttr", GetDeviceAttr}, {"runtime.RuntimeEnabled", RuntimeEnabled},
    {"runtime.NumThreads", NumThreads},       {"runtime.config_threadpool", ConfigThreadPool},
    {"runtime.TVMSetStream", SetStream},      {"__tvm_set_device", SetDevice},
};

}  // namespace

extern const GlobalTable kRuntimeGlobals{kDefs};

}  // namespace aotrt
