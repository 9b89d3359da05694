// TVM's DeviceAPI (tvm/runtime/device_api.h) over aotrt's device layer, for the device types aotrt
// has a driver for (the CPU, OpenCL, CUDA): DeviceAPI::Get(dev) returns that type's; every call goes
// through the TVM C ABI (TVMDeviceAllocDataSpace, TVMSynchronize, ...) and throws its error
// (tvm::runtime::Error: a device the machine lacks, out of memory). Get for a type without a driver
// throws (kInvalidArgument naming it), or returns nullptr with allow_missing, where TVM aborts.
// Thread-safe.
#pragma once

#include <cstddef>
#include <ostream>
#include <string>

#include <dlpack/dlpack.h>
#include <tvm/runtime/c_backend_api.h>
#include <tvm/runtime/c_runtime_api.h>
#include <tvm/runtime/data_type.h>
#include <tvm/runtime/logging.h>

namespace tvm {
namespace runtime {

constexpr int kAllocAlignment = 64;
constexpr int kTempAllocaAlignment = 64;
constexpr int kMaxStackAlloca = 1024;

// TVM's name of a device type ("cpu", "cuda", ...).
inline const char* DeviceName(int type) {
  switch (type) {
    case kDLCPU: return "cpu";
    case kDLCUDA: return "cuda";
    case kDLCUDAHost: return "cuda_host";
    case kDLOpenCL: return "opencl";
    case kDLVulkan: return "vulkan";
    case kDLMetal: return "metal";
    case kDLROCM: return "rocm";
    case kDLExtDev: return "ext_dev";
    default: return "unknown";
  }
}
inline const char* DLDeviceType2Str(int type) { return DeviceName(type); }
inline std::ostream& operator<<(std::ostream& os, DLDevice dev) {
  return os << DeviceName(static_cast<int>(dev.device_type)) << "(" << dev.device_id << ")";
}

class DeviceAPI {
 public:
  static DeviceAPI* Get(Device dev, bool allow_missing = false) {
    static DeviceAPI api;  // stateless: the C ABI dispatches on the device
    int type = static_cast<int>(dev.device_type);
    if (type == kDLCPU || type == kDLCUDAHost || type == kDLOpenCL || type == kDLCUDA || type == kDLVulkan) return &api;
    if (allow_missing) return nullptr;
    throw Error(aotrt::ErrorCode::kInvalidArgument, std::string("Device API ") + DeviceName(type) +
                                                        " is not enabled: aotrt runs on the CPU, OpenCL, CUDA and Vulkan");
  }
  static bool NeedSetDevice(int device_type) { return device_type != kDLCPU; }
  void SetDevice(Device) {}
  void* AllocDataSpace(Device dev, size_t nbytes, size_t alignment, DLDataType type_hint) {
    void* p = nullptr;
    Check(TVMDeviceAllocDataSpace(dev, nbytes, alignment, type_hint, &p));
    return p;
  }
  void FreeDataSpace(Device dev, void* ptr) { Check(TVMDeviceFreeDataSpace(dev, ptr)); }
  void CopyDataFromTo(DLTensor* from, DLTensor* to, TVMStreamHandle stream) {
    Check(TVMDeviceCopyDataFromTo(from, to, stream));
  }
  TVMStreamHandle CreateStream(Device dev) {
    TVMStreamHandle s = nullptr;
    Check(TVMStreamCreate(static_cast<int>(dev.device_type), dev.device_id, &s));
    return s;
  }
  void FreeStream(Device dev, TVMStreamHandle s) {
    Check(TVMStreamFree(static_cast<int>(dev.device_type), dev.device_id, s));
  }
  void SetStream(Device dev, TVMStreamHandle stream) {
    Check(TVMSetStream(static_cast<int>(dev.device_type), dev.device_id, stream));
  }
  void StreamSync(Device dev, TVMStreamHandle stream) {
    Check(TVMSynchronize(static_cast<int>(dev.device_type), dev.device_id, stream));
  }
  void SyncStreamFromTo(Device, TVMStreamHandle, TVMStreamHandle) {}
  void* AllocWorkspace(Device dev, size_t nbytes, DLDataType type_hint = {}) {
    void* p = TVMBackendAllocWorkspace(static_cast<int>(dev.device_type), dev.device_id, nbytes,
                                       type_hint.code, type_hint.bits);
    if (!p) throw Error(aotrt::ErrorCode::kOutOfMemory, TVMGetLastError());
    return p;
  }
  void FreeWorkspace(Device dev, void* ptr) {
    Check(TVMBackendFreeWorkspace(static_cast<int>(dev.device_type), dev.device_id, ptr));
  }

 private:
  static void Check(int rc) {
    if (rc != 0) throw Error(TVMGetLastError());
  }
};

}  // namespace runtime
}  // namespace tvm
