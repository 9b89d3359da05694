// TVM's DeviceAPI (tvm/runtime/device_api.h) for the device types aotrt has a driver for (the CPU,
// OpenCL, CUDA, Vulkan): every call goes through the TVM C ABI and throws its error (a device the
// machine lacks, out of memory). Get for another type throws kInvalidArgument naming it (nullptr
// with allow_missing). Thread-safe.
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
  static const char* const kNames[] = {"unknown", "cpu", "cuda", "cuda_host", "opencl", "unknown", "unknown",
                                       "vulkan", "metal", "unknown", "rocm", "unknown", "ext_dev"};
  return type >= 0 && type <= kDLExtDev ? kNames[type] : "unknown";
}
inline const char* DLDeviceType2Str(int type) { return DeviceName(type); }
inline std::ostream& operator<<(std::ostream& os, DLDevice dev) {
  return os << DeviceName(static_cast<int>(dev.device_type)) << "(" << dev.device_id << ")";
}

class DeviceAPI {
 public:
  static DeviceAPI* Get(Device dev, bool allow_missing = false) {
    static DeviceAPI api;  // stateless: the C ABI dispatches on the device
    int type = dev.device_type;
    bool served = type == kDLCPU || type == kDLCUDAHost || type == kDLOpenCL || type == kDLCUDA || type == kDLVulkan;
    if (served || allow_missing) return served ? &api : nullptr;
    throw Error(aotrt::ErrorCode::kInvalidArgument, std::string("Device API ") + DeviceName(type) +
                                                        " is not enabled: aotrt runs on the CPU, OpenCL, CUDA and Vulkan");
  }
  static bool NeedSetDevice(int device_type) { return device_type != kDLCPU; }
  void SetDevice(Device) {}
  void* AllocDataSpace(Device dev, size_t nbytes, size_t alignment, DLDataType type_hint) {
    void* p = nullptr;
    detail::CheckCall(TVMDeviceAllocDataSpace(dev, nbytes, alignment, type_hint, &p));
    return p;
  }
  void FreeDataSpace(Device dev, void* ptr) { detail::CheckCall(TVMDeviceFreeDataSpace(dev, ptr)); }
  void CopyDataFromTo(DLTensor* from, DLTensor* to, TVMStreamHandle stream) {
    detail::CheckCall(TVMDeviceCopyDataFromTo(from, to, stream));
  }
  TVMStreamHandle CreateStream(Device dev) {
    TVMStreamHandle s = nullptr;
    detail::CheckCall(TVMStreamCreate(dev.device_type, dev.device_id, &s));
    return s;
  }
  void FreeStream(Device dev, TVMStreamHandle s) { detail::CheckCall(TVMStreamFree(dev.device_type, dev.device_id, s)); }
  void SetStream(Device dev, TVMStreamHandle s) { detail::CheckCall(TVMSetStream(dev.device_type, dev.device_id, s)); }
  void StreamSync(Device dev, TVMStreamHandle s) { detail::CheckCall(TVMSynchronize(dev.device_type, dev.device_id, s)); }
  void SyncStreamFromTo(Device, TVMStreamHandle, TVMStreamHandle) {}
  void* AllocWorkspace(Device dev, size_t nbytes, DLDataType type_hint = {}) {
    void* p = TVMBackendAllocWorkspace(dev.device_type, dev.device_id, nbytes, type_hint.code, type_hint.bits);
    detail::CheckCall(p ? 0 : -1);
    return p;
  }
  void FreeWorkspace(Device dev, void* p) { detail::CheckCall(TVMBackendFreeWorkspace(dev.device_type, dev.device_id, p)); }
};

}  // namespace runtime
}  // namespace tvm
