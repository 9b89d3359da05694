// The Vulkan driver's state, shared with the Vulkan kernel module (device_module/vulkan_module.cc):
// the loader's functions (libvulkan.so.1, opened at first use, never linked) and every device with a
// compute queue in TVM's order, each with one command buffer that records until a submit. A device's
// recording state is guarded by its mutex; the rest is built once and then read-only.
#pragma once

#define VK_NO_PROTOTYPES
#include <vulkan/vulkan.h>

#include <memory>
#include <mutex>
#include <string>
#include <vector>

// Vulkan structs are written {sType, pNext} with the other fields zero, the Vulkan idiom.
#pragma GCC diagnostic ignored "-Wmissing-field-initializers"

namespace aotrt {

// The entry points aotrt calls, resolved through vkGetInstanceProcAddr.
#define AOTRT_VK_FUNCTIONS(X)                                                                                    \
  X(vkEnumeratePhysicalDevices) X(vkGetPhysicalDeviceProperties2)                          \
  X(vkGetPhysicalDeviceFeatures2) X(vkGetPhysicalDeviceQueueFamilyProperties) X(vkGetPhysicalDeviceMemoryProperties) \
  X(vkCreateDevice) X(vkGetDeviceQueue) X(vkCreateBuffer) X(vkDestroyBuffer) X(vkGetBufferMemoryRequirements)   \
  X(vkAllocateMemory) X(vkFreeMemory) X(vkBindBufferMemory) X(vkMapMemory) X(vkCreateCommandPool)               \
  X(vkAllocateCommandBuffers) X(vkBeginCommandBuffer) X(vkEndCommandBuffer) X(vkResetCommandBuffer)             \
  X(vkCreateFence) X(vkWaitForFences) X(vkResetFences) X(vkQueueSubmit) X(vkCmdCopyBuffer)                      \
  X(vkCmdPipelineBarrier) X(vkCmdBindPipeline) X(vkCmdBindDescriptorSets) X(vkCmdPushConstants)                 \
  X(vkCmdDispatch) X(vkCreateShaderModule) X(vkDestroyShaderModule) X(vkCreateDescriptorSetLayout)              \
  X(vkDestroyDescriptorSetLayout) X(vkCreatePipelineLayout) X(vkDestroyPipelineLayout)                          \
  X(vkCreateComputePipelines) X(vkDestroyPipeline) X(vkCreatePipelineCache) X(vkGetPipelineCacheData)           \
  X(vkDestroyPipelineCache) X(vkCreateDescriptorPool) X(vkAllocateDescriptorSets) X(vkUpdateDescriptorSets)     \
  X(vkResetDescriptorPool) X(vkCreateQueryPool) X(vkCmdResetQueryPool) X(vkCmdWriteTimestamp)                   \
  X(vkGetQueryPoolResults)

struct VkApi {
#define AOTRT_VK_MEMBER(name) PFN_##name name = nullptr;
  AOTRT_VK_FUNCTIONS(AOTRT_VK_MEMBER)
#undef AOTRT_VK_MEMBER
};

// The most buffers and scalars one kernel takes (TVM's kernels take a few; the loader checks).
constexpr uint32_t kVkMaxArgs = 64;

// What a data pointer on a Vulkan device points to: a buffer and its own memory.
struct VkBuf {
  VkBuffer buffer = VK_NULL_HANDLE;
  VkDeviceMemory memory = VK_NULL_HANDLE;
  size_t size = 0;
  void* mapped = nullptr;  // host-visible buffers only
};

// A SPIR-V capability and the device feature it needs ("int8 arithmetic (shaderInt8, ...)").
struct VkLack {
  uint32_t capability;
  const char* feature;
};

struct VkDev {
  VkPhysicalDevice phys = VK_NULL_HANDLE;
  VkDevice dev = VK_NULL_HANDLE;
  VkQueue queue = VK_NULL_HANDLE;
  uint32_t family = 0;
  VkPhysicalDeviceProperties props{};
  uint32_t subgroup_size = 1;
  uint32_t api_version = 0;     // clamped to the driver's conformance version, as TVM reports it
  std::vector<VkLack> lacks;  // what TVM's shaders may need that the device lacks
  VkPhysicalDeviceMemoryProperties memory{};
  VkQueryPool timestamps = VK_NULL_HANDLE;  // two, for TimeOnDevice; none where the queue cannot time
  uint32_t timestamp_bits = 0;              // the valid bits of a timestamp
  // Guarded by mu: the recording command buffer and what its commands use until the next submit.
  std::mutex mu;
  VkCommandPool pool = VK_NULL_HANDLE;
  VkCommandBuffer cmd = VK_NULL_HANDLE;
  VkFence fence = VK_NULL_HANDLE;
  VkDescriptorPool descriptors = VK_NULL_HANDLE;
  size_t recorded = 0;  // commands since the last submit
  uint32_t sets = 0;    // descriptor sets since the last submit
  VkBuf staging, uniforms;
  size_t uniforms_used = 0;
};

class VulkanState {
 public:
  // The process's one state, built at the first call (thread-safe). Never throws: a machine
  // without the loader or a device has no devices and a reason.
  static VulkanState& Get() { static VulkanState* s = new VulkanState(); return *s; }  // never destroyed: used at exit
  const VkApi& vk() const { return vk_; }
  size_t size() const { return devices_.size(); }
  const std::string& why_none() const { return why_none_; }
  // Device `id`, checked: throws kInvalidArgument naming `what` and how many there are.
  VkDev& device(int id, const char* what) const;
  static inline thread_local int current_device = 0;  // this thread's kernels' (__tvm_set_device)

  // The rest are called with d.mu held. Throws kOutOfMemory, kModelError.
  // A buffer of memory with `required` properties, preferring types with `prefer` and without `avoid`.
  VkBuf NewBuffer(VkDev& d, size_t bytes, VkBufferUsageFlags usage, VkMemoryPropertyFlags required,
                  VkMemoryPropertyFlags prefer, VkMemoryPropertyFlags avoid) const;
  void FreeBuffer(VkDev& d, VkBuf& b) const noexcept;
  // Ends the command buffer, submits it, waits for it, and begins the next; resets what its
  // commands used (descriptor sets, uniform slots).
  void Submit(VkDev& d) const;
  // Submit when commands are recorded, ignoring errors (before their objects are destroyed).
  void Drain(VkDev& d) const noexcept;
  // A barrier after a dispatch or copy: its writes are seen by the commands after it and the host.
  void Barrier(VkDev& d) const;
  // A descriptor set of `layout` and `uniform_bytes` of the uniform buffer at *uniform_offset for
  // a dispatch, valid until the next submit (made first when this submit has no room left).
  VkDescriptorSet BeginDispatch(VkDev& d, VkDescriptorSetLayout layout, size_t uniform_bytes,
                                size_t* uniform_offset) const;

 private:
  VulkanState();
  bool AddDevice(VkPhysicalDevice phys);
  VkInstance instance_ = VK_NULL_HANDLE;
  VkApi vk_;
  std::vector<std::unique_ptr<VkDev>> devices_;
  std::string why_none_;
};

// Throws kOutOfMemory for the allocation failures, kModelError for the rest, naming `call` and `what`.
[[noreturn]] void ThrowVkError(VkResult r, const char* call, const std::string& what);
#define AOTRT_VK_CALL(call_expr, what)                                         \
  do {                                                                         \
    VkResult aotrt_vk_res_ = (call_expr);                                      \
    if (aotrt_vk_res_ != VK_SUCCESS) ThrowVkError(aotrt_vk_res_, #call_expr, what); \
  } while (0)

}  // namespace aotrt
