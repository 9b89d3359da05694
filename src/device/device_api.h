// The device layer: one interface (DeviceAPI) that every device type implements, a driver per type
// beside it (device/cpu_driver.cc, device/opencl/), looked up by DLDeviceType. What is allocated on
// a device is named by an opaque data pointer that only its driver reads (OpenCL: a cl_mem). The
// vendor libraries are opened at first use, so a machine without them runs every CPU path.
// Thread-safety: every call may be made from any thread; a driver's state is built once.
#pragma once

#include <dlpack/dlpack.h>

#include <cstddef>
#include <functional>
#include <string>

#include "aotrt/packed_func.h"

namespace aotrt {

// TVM's DeviceAttrKind values (runtime.GetDeviceAttr's third argument).
enum class DeviceAttr : int {
  kExist = 0,
  kMaxThreadsPerBlock = 1,
  kWarpSize = 2,
  kMaxSharedMemoryPerBlock = 3,
  kComputeVersion = 4,
  kDeviceName = 5,
  kMaxClockRate = 6,
  kMultiProcessorCount = 7,
  kMaxThreadDimensions = 8,
  kMaxRegistersPerBlock = 9,
  kGcnArch = 10,
  kApiVersion = 11,
  kDriverVersion = 12,
  kL2CacheSizeBytes = 13,
  kTotalGlobalMemory = 14,
  kAvailableGlobalMemory = 15,
};

class DeviceAPI {
 public:
  virtual ~DeviceAPI() = default;
  // "cpu", "opencl", "cuda": as users name the device type.
  virtual const char* name() const = 0;
  // How many devices of this type the machine has: 0 when the vendor library or platform is absent.
  virtual int NumDevices() = 0;
  // Why NumDevices() is 0 and what to install; "" when there are devices.
  virtual std::string WhyNoDevice() { return ""; }
  // `bytes` (0 allowed) on device `id`, aligned to at least `alignment`; `scope` is a memory scope
  // ("" or "global"; another scope throws kNotImplemented naming it). Throws kOutOfMemory.
  virtual void* Alloc(int id, size_t bytes, size_t alignment, const std::string& scope) = 0;
  // A tensor of `shape` in texture storage (`scope` "global.texture*", device/texture.h) as an
  // image2d; freed by Free. Throws kNotImplemented where the driver or device has no images,
  // kInvalidArgument for a shape or dtype an image cannot hold.
  virtual void* AllocTexture(int id, const int64_t* shape, int ndim, DLDataType dtype, const std::string& scope);
  virtual void Free(int id, void* data) noexcept = 0;
  // Copies `bytes` from `from` to `to` (their byte offsets honoured), one of them on this driver's
  // device, the other on it or on the CPU. Ordered after the work already enqueued on `stream`
  // (null: the device's default queue); returns when host memory may be read or reused.
  virtual void Copy(const DLTensor& from, const DLTensor& to, size_t bytes, void* stream) = 0;
  virtual void* CreateStream(int id) { return nullptr; }
  virtual void FreeStream(int id, void* stream) {}
  // The stream later work of this thread on device `id` goes to (null: the default queue).
  virtual void SetStream(int id, void* stream) {}
  // Waits until all work enqueued on `stream` of device `id` is done. Throws kModelError for a
  // kernel that failed.
  virtual void Sync(int id, void* stream) = 0;
  // The value of `kind` for device `id`, one that exists (kExist: runtime.GetDeviceAttr asks NumDevices).
  virtual void GetAttr(int id, DeviceAttr kind, TVMRetValue* rv) = 0;
  // The device later kernels of this thread run on (generated code's __tvm_set_device).
  virtual void SetDevice(int id) {}
  // Milliseconds device `id` spent on the work `enqueue` puts on its default queue, timed by the
  // device (queue events, timestamp queries) where the driver can; waits for that work. The
  // default: the host clock around `enqueue` and Sync. Throws as `enqueue` and Sync.
  virtual double TimeOnDevice(int id, const std::function<void()>& enqueue);
};

// The driver of `device_type`, or null when aotrt has none for it.
DeviceAPI* FindDeviceAPI(int device_type);
// The driver of `dev`, checked: a known type with a device of that id on this machine (the one
// device rule of every call that takes a device). Throws kInvalidArgument naming `what` and the
// device: no driver for the type, no device of the type (the message says what to install), or no
// device of that id (it says how many there are).
DeviceAPI& RequireDevice(DLDevice dev, const std::string& what);
// "cpu", "cuda", "opencl", "vulkan", ... for messages; "device type N" for others.
std::string DeviceName(DLDevice dev);
// Throws kInvalidArgument naming `what` unless `id` is one of the `count` devices of `api` ("OpenCL");
// `why_none` says why there are none.
void RequireDeviceId(const char* what, const char* api, int id, size_t count, const std::string& why_none);
// A copy's ends on the driver of `type` (one or both; the other on the CPU) and the id of its device.
// Throws kNotImplemented naming `api` for a copy between two devices of the type.
struct CopyEnds {
  bool from_dev, to_dev;
  int id;
};
CopyEnds DeviceCopyEnds(const DLTensor& from, const DLTensor& to, int type, const char* api);
// Throws kOutOfMemory (`memory`) or kModelError: "<what>: <api> <call> failed with <error>", where
// <call> is the function `call` names ("cl.clFinish(q)": clFinish).
[[noreturn]] void ThrowDriverError(const char* api, const char* call, const std::string& error, bool memory,
                                   const std::string& what);
// Copies the bytes of `from` into `to` (contiguous, equal sizes checked by the caller) between any
// two devices through their drivers, on the default queues. Throws as Copy.
void CopyAcrossDevices(const DLTensor& from, const DLTensor& to, size_t bytes);

}  // namespace aotrt
