// The one rule for the devices aotrt accepts, used by every check of a device or a tensor's device.
#pragma once

#include <dlpack/dlpack.h>

#include <cstring>

#include "aotrt/dtype.h"

namespace aotrt {

// CPU memory: kDLCPU, or kDLCUDAHost (pinned host memory, which is plain host memory to a
// CPU-only runtime, as TVM's CPU device API treats it), with device id 0: a CPU-only runtime has
// one CPU, and any other id (negative ones included) names a device that does not exist.
inline bool IsAcceptedCpuDevice(int device_type, int device_id) {
  return (device_type == kDLCPU || device_type == kDLCUDAHost) && device_id == 0;
}
inline bool IsAcceptedCpuDevice(const DLDevice& d) { return IsAcceptedCpuDevice(DeviceTypeOf(d), d.device_id); }
// Whether a tensor on `at` is on `want` (any of the host's device types for the CPU).
inline bool SameDevice(DLDevice at, DLDevice want) {
  if (want.device_type == kDLCPU) return IsAcceptedCpuDevice(at);
  return DeviceTypeOf(at) == want.device_type && at.device_id == want.device_id;
}

// A DLDevice of any int type: a caller's or a file's type need not be a DLDeviceType enumerator,
// and converting such an int to the enum (or loading it as one) is undefined; DeviceTypeOf reads it.
inline DLDevice MakeDevice(int device_type, int device_id) {
  DLDevice d{kDLCPU, device_id};
  std::memcpy(&d.device_type, &device_type, sizeof(device_type));
  return d;
}

}  // namespace aotrt
