// The device registry, the CPU driver, and copies between any two devices.
#include "device/device_api.h"

#include <chrono>
#include <cstdlib>
#include <cstring>
#include <memory>

#include "base/device.h"
#include "aotrt/dtype.h"
#include "base/error_util.h"

namespace aotrt {

DeviceAPI* OpenCLDriver();  // device/opencl/opencl_driver.cc
DeviceAPI* CUDADriver();  // device/cuda/cuda_driver.cc
DeviceAPI* VulkanDriver();  // device/vulkan/vulkan_driver.cc

namespace {

// `bytes` of host memory aligned to max(alignment, 64). Throws kInvalidArgument, kOutOfMemory.
void* HostAlloc(size_t bytes, size_t alignment, const char* what) {
  size_t align = alignment < kAllocAlignment ? kAllocAlignment : alignment;
  AOTRT_REQUIRE((align & (align - 1)) == 0, kInvalidArgument, what, ": alignment ", alignment, " is not a power of two");
  AOTRT_REQUIRE(bytes <= (size_t{1} << 46), kOutOfMemory, what, ": cannot allocate ", bytes, " bytes: too large (at most 2^46)");
  void* p = std::aligned_alloc(align, bytes == 0 ? align : (bytes + align - 1) / align * align);
  AOTRT_REQUIRE(p != nullptr, kOutOfMemory, what, ": cannot allocate ", bytes, " bytes: out of memory");
  return p;
}

// The host: memory from aligned_alloc, copies by memcpy, nothing to wait for.
class CpuDriver final : public DeviceAPI {
 public:
  const char* name() const override { return "cpu"; }
  int NumDevices() override { return 1; }
  void* Alloc(int, size_t bytes, size_t alignment, const std::string& scope) override {
    AOTRT_REQUIRE(scope.empty() || scope == "global", kNotImplemented, "memory scope '", scope,
                  "' is not supported on the CPU (only 'global')");
    return HostAlloc(bytes, alignment, "CPU data space");
  }
  void Free(int, void* data) noexcept override { std::free(data); }
  void Copy(const DLTensor& from, const DLTensor& to, size_t bytes, void*) override {
    if (bytes) std::memmove(static_cast<char*>(to.data) + to.byte_offset,
                            static_cast<const char*>(from.data) + from.byte_offset, bytes);
  }
  void Sync(int, void*) override {}
  void GetAttr(int, DeviceAttr, TVMRetValue*) override {}  // none, as TVM's CPU API
};

}  // namespace

void* DeviceAPI::AllocTexture(int, const int64_t*, int, DLDataType, const std::string& scope) {
  AOTRT_THROW(kNotImplemented, "memory scope '", scope, "' (image2d texture storage) is not supported on ", name(),
              ": it is OpenCL's, on devices with image support");
}

double DeviceAPI::TimeOnDevice(int id, const std::function<void()>& enqueue) {
  auto start = std::chrono::steady_clock::now();
  enqueue();
  Sync(id, nullptr);
  return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
}

// The drivers are never destroyed: an array released at exit (a static model's) still frees through its own.
DeviceAPI* FindDeviceAPI(int device_type) {
  static auto* cpu = new CpuDriver();
  switch (device_type) {
    case kDLCPU:
    case kDLCUDAHost:
      return cpu;
    case kDLOpenCL:
      return OpenCLDriver();
    case kDLCUDA:
      return CUDADriver();
    case kDLVulkan:
      return VulkanDriver();
    default:
      return nullptr;
  }
}

std::string DeviceName(DLDevice dev) {
  static const char* const kNames[] = {"", "cpu", "cuda", "cuda_host", "opencl", "", "", "vulkan", "metal", "", "rocm"};
  int type = DeviceTypeOf(dev);
  bool known = type >= 0 && type < static_cast<int>(std::size(kNames)) && *kNames[type];
  return known ? kNames[type] : StrCat("device type ", type);
}

DeviceAPI& RequireDevice(DLDevice dev, const std::string& what) {
  int type = DeviceTypeOf(dev);
  if (IsAcceptedCpuDevice(dev)) return *FindDeviceAPI(type);
  std::string got = StrCat("got device type ", type, " id ", dev.device_id);
  DeviceAPI* api = FindDeviceAPI(type);
  if (api == nullptr) {
    std::string drivers;
    for (int t = kDLCPU; t <= kDLROCMHost; ++t) {
      if (t != kDLCUDAHost && FindDeviceAPI(t)) drivers += StrCat(drivers.empty() ? "" : ", ", DeviceName({static_cast<DLDeviceType>(t), 0}), " (type ", t, ")");
    }
    AOTRT_THROW(kInvalidArgument, what, ": aotrt has no driver for ", DeviceName(dev), " (", got, "); it runs on ", drivers);
  }
  int n = api->NumDevices();
  AOTRT_REQUIRE(n > 0, kInvalidArgument, what, ": no ", api->name(), " device on this machine (", got, "): ",
                api->WhyNoDevice());
  AOTRT_REQUIRE(dev.device_id >= 0 && dev.device_id < n, kInvalidArgument, what, ": ", api->name(), " device ",
                dev.device_id, " does not exist (", got, "); this machine has ", n, " (ids 0 to ", n - 1, ")");
  return *api;
}

void RequireDeviceId(const char* what, const char* api, int id, size_t count, const std::string& why_none) {
  AOTRT_REQUIRE(count > 0, kInvalidArgument, what, ": no ", api, " device on this machine: ", why_none);
  AOTRT_REQUIRE(id >= 0 && static_cast<size_t>(id) < count, kInvalidArgument, what, ": ", api, " device ", id,
                " does not exist; this machine has ", count, " (ids 0 to ", count - 1, ")");
}

CopyEnds DeviceCopyEnds(const DLTensor& from, const DLTensor& to, int type, const char* api) {
  CopyEnds e{DeviceTypeOf(from.device) == type, DeviceTypeOf(to.device) == type, from.device.device_id};
  if (!e.from_dev) e.id = to.device.device_id;
  AOTRT_REQUIRE(!e.from_dev || !e.to_dev || e.id == to.device.device_id, kNotImplemented, "copy between two ", api,
                " devices (", e.id, " and ", to.device.device_id, ") is not supported; copy through the CPU");
  return e;
}

void ThrowDriverError(const char* api, const char* call, const std::string& error, bool memory,
                      const std::string& what) {
  std::string fn(call, std::strcspn(call, "("));
  fn = fn.substr(fn.rfind('.') + 1);  // npos + 1: all of it
  throw Error(memory ? ErrorCode::kOutOfMemory : ErrorCode::kModelError,
              StrCat(what, ": ", api, " ", fn, " failed with ", error, memory ? ": the device is out of memory" : ""));
}

void CopyAcrossDevices(const DLTensor& from, const DLTensor& to, size_t bytes) {
  bool from_cpu = IsAcceptedCpuDevice(from.device), to_cpu = IsAcceptedCpuDevice(to.device);
  if (!from_cpu && !to_cpu && DeviceTypeOf(from.device) != DeviceTypeOf(to.device)) {
    // Between two device types: through the host.
    void* staging = HostAlloc(bytes, kAllocAlignment, "staging buffer of a copy between devices");
    std::unique_ptr<void, void (*)(void*)> hold(staging, std::free);
    DLTensor host{staging, DLDevice{kDLCPU, 0}, from.ndim, from.dtype, from.shape, from.strides, 0};
    CopyAcrossDevices(from, host, bytes);
    return CopyAcrossDevices(host, to, bytes);
  }
  DLDevice dev = from_cpu ? to.device : from.device;
  RequireDevice(dev, "copy").Copy(from, to, bytes, nullptr);
}

}  // namespace aotrt
