// A shader that needs a device feature the Vulkan device lacks is refused at executor create, naming
// the kernel, the feature and the device, instead of reaching the driver. lavapipe has every feature
// TVM's -supports_* flags ask for, so the test takes one away from device 0 for its duration.
#include <gtest/gtest.h>

#include <unistd.h>

#include <string>

#include "aotrt/model.h"
#include "common/expect_error.h"
#include "device/device_api.h"
#include "device/vulkan/vulkan_driver.h"

using namespace aotrt;

TEST(VulkanFeatures, AShaderNeedingAFeatureTheDeviceLacksIsRefusedNamingIt) {
  std::string path = std::string(AOTRT_TEST_ALL_FIXTURES_DIR) + "/gpu/k_add/model.so";
  if (::access(path.c_str(), R_OK) != 0) GTEST_SKIP() << path << " not present";
  if (VulkanState::Get().size() == 0) GTEST_SKIP() << "no Vulkan device: " << VulkanState::Get().why_none();
  VkDev& d = VulkanState::Get().device(0, "test");
  Model m = Model::Load(path);  // k_add adds uint8 tensors: its shader declares 8-bit storage buffers
  d.lacks.push_back({4448, "8-bit storage buffers (storageBuffer8BitAccess, the target's -supports_8bit_buffer)"});
  EXPECT_AOTRT_ERROR(m.CreateExecutor({kDLVulkan, 0}), ErrorCode::kNotImplemented,
                     {"Vulkan kernel 'tvmgen_default_fused_add_kernel' needs 8-bit storage buffers (storageBuffer8BitAccess",
                      "which Vulkan device 0 (", "lacks: compile the model for this device"});
  d.lacks.pop_back();
  Executor ex = m.CreateExecutor({kDLVulkan, 0});  // with the feature back, the same model builds and runs
  ex.Run();
}
