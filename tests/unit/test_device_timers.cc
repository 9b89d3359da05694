// DeviceAPI::TimeOnDevice: the device's own clock where the driver has one (OpenCL kernel events,
// Vulkan timestamps), the host clock around the work and a wait otherwise (the CPU).
#include <gtest/gtest.h>

#include <chrono>
#include <thread>

#include "device/device_api.h"

using namespace aotrt;

namespace {

bool Exists(DLDevice dev) {
  DeviceAPI* api = FindDeviceAPI(dev.device_type);
  return api != nullptr && dev.device_id >= 0 && dev.device_id < api->NumDevices();
}

}  // namespace

TEST(DeviceTimers, TheCpuTimesTheWorkOnTheHostClock) {
  double ms = RequireDevice({kDLCPU, 0}, "test").TimeOnDevice(0, [] {
    std::this_thread::sleep_for(std::chrono::milliseconds(2));
  });
  EXPECT_GE(ms, 2.0);
}

// Work without a kernel takes no time on the device, whatever the host waited.
TEST(DeviceTimers, OpenCLSumsTheKernelsEvents) {
  if (!Exists({kDLOpenCL, 0})) GTEST_SKIP() << "no OpenCL device: " << FindDeviceAPI(kDLOpenCL)->WhyNoDevice();
  double ms = RequireDevice({kDLOpenCL, 0}, "test").TimeOnDevice(0, [] {
    std::this_thread::sleep_for(std::chrono::milliseconds(2));
  });
  EXPECT_EQ(ms, 0.0);
}

// The timestamps are written when the one submit executes, after the work was enqueued: the
// device's span lies within the host's time from the end of the sleep to the return, whatever the
// sleep (and however long a loaded machine takes to run the submit).
TEST(DeviceTimers, VulkanReadsTimestampsAroundTheWork) {
  if (!Exists({kDLVulkan, 0})) GTEST_SKIP() << "no Vulkan device: " << FindDeviceAPI(kDLVulkan)->WhyNoDevice();
  using Clock = std::chrono::steady_clock;
  Clock::time_point slept;
  double ms = RequireDevice({kDLVulkan, 0}, "test").TimeOnDevice(0, [&] {
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
    slept = Clock::now();
  });
  double after_sleep_ms = std::chrono::duration<double, std::milli>(Clock::now() - slept).count();
  EXPECT_GE(ms, 0.0);
  EXPECT_LE(ms, after_sleep_ms + 0.01);  // 0.01: the clocks' rounding
}
