// The Vulkan driver: instance and devices through the loader opened at run time, buffers, copies
// through host-visible staging, one recording command buffer per device submitted at a copy or a
// synchronize (kernels between them run without a host wait), and attributes as TVM answers them.
#include "device/vulkan/vulkan_driver.h"

#include <dlfcn.h>

#include <algorithm>
#include <cstring>
#include <utility>

#include "base/error_util.h"
#include "device/device_api.h"

namespace aotrt {
namespace {

constexpr size_t kUniformBytes = 64 << 10;  // the uniform buffer shared by one submit's kernels
constexpr uint32_t kPoolSets = 1024;         // descriptor sets per submit before one is forced
constexpr VkCommandBufferBeginInfo kBegin{VK_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO, nullptr,
                                          VK_COMMAND_BUFFER_USAGE_ONE_TIME_SUBMIT_BIT, nullptr};

// SPIR-V capabilities TVM's shaders declare for its -supports_* target flags, and the feature each needs.
constexpr VkLack kFeatures[] = {
    {39, "int8 arithmetic (shaderInt8, the target's -supports_int8)"},
    {4448, "8-bit storage buffers (storageBuffer8BitAccess, the target's -supports_8bit_buffer)"},
    {11, "int64 arithmetic (shaderInt64, the target's -supports_int64)"},
    {9, "float16 arithmetic (shaderFloat16, the target's -supports_float16)"},
    {10, "float64 arithmetic (shaderFloat64, the target's -supports_float64)"},
    {22, "int16 arithmetic (shaderInt16, the target's -supports_int16)"},
    {4433, "16-bit storage buffers (storageBuffer16BitAccess, the target's -supports_16bit_buffer)"},
};

// TVM's device order: discrete, integrated, virtual GPUs, CPUs, others (by VkPhysicalDeviceType).
int Preference(VkPhysicalDeviceType t) {
  constexpr int kRank[] = {4, 1, 0, 2, 3};
  return t >= 0 && t <= 4 ? kRank[t] : 4;
}

std::string VersionString(uint32_t v) {
  return StrCat(VK_VERSION_MAJOR(v), ".", VK_VERSION_MINOR(v), ".", VK_VERSION_PATCH(v));
}

// "VK_ERROR_OUT_OF_DEVICE_MEMORY (-2)".
std::string VkResultName(VkResult r) {
  const char* name = r == VK_ERROR_OUT_OF_HOST_MEMORY ? "VK_ERROR_OUT_OF_HOST_MEMORY"
                     : r == VK_ERROR_OUT_OF_DEVICE_MEMORY ? "VK_ERROR_OUT_OF_DEVICE_MEMORY"
                     : r == VK_ERROR_DEVICE_LOST ? "VK_ERROR_DEVICE_LOST"
                     : r == VK_ERROR_INCOMPATIBLE_DRIVER ? "VK_ERROR_INCOMPATIBLE_DRIVER" : "a Vulkan error";
  return StrCat(name, " (", static_cast<int>(r), ")");
}

}  // namespace

void ThrowVkError(VkResult r, const char* call, const std::string& what) {
  ThrowDriverError("Vulkan", call, VkResultName(r), r == VK_ERROR_OUT_OF_HOST_MEMORY || r == VK_ERROR_OUT_OF_DEVICE_MEMORY,
                   what);
}

VulkanState::VulkanState() {
  // Opened once and never closed: buffers and pipelines live as long as the process may use them.
  void* lib = ::dlopen("libvulkan.so.1", RTLD_NOW | RTLD_LOCAL);
  auto gipa = lib ? reinterpret_cast<PFN_vkGetInstanceProcAddr>(::dlsym(lib, "vkGetInstanceProcAddr")) : nullptr;
  if (!gipa) {
    why_none_ = "the Vulkan loader libvulkan.so.1 is not installed: install it with a driver, e.g. Debian's "
                "libvulkan1 and mesa-vulkan-drivers (lavapipe, Vulkan on the CPU), or your GPU vendor's driver";
    return;
  }
  auto version = reinterpret_cast<PFN_vkEnumerateInstanceVersion>(gipa(nullptr, "vkEnumerateInstanceVersion"));
  auto create = reinterpret_cast<PFN_vkCreateInstance>(gipa(nullptr, "vkCreateInstance"));
  uint32_t api = VK_API_VERSION_1_0;
  if (version) version(&api);
  if (!create || api < VK_API_VERSION_1_1) {
    why_none_ = "the Vulkan loader libvulkan.so.1 is older than Vulkan 1.1, which aotrt needs";
    return;
  }
  VkApplicationInfo app{VK_STRUCTURE_TYPE_APPLICATION_INFO, nullptr, "aotrt", 0, nullptr, 0,
                        std::min<uint32_t>(api, VK_API_VERSION_1_2)};
  VkInstanceCreateInfo info{VK_STRUCTURE_TYPE_INSTANCE_CREATE_INFO, nullptr, 0, &app};
  VkResult r = create(&info, nullptr, &instance_);
  if (r != VK_SUCCESS) {
    why_none_ = StrCat("no Vulkan driver found (vkCreateInstance: ", VkResultName(r),
                       "): install one, e.g. Debian's mesa-vulkan-drivers (lavapipe), or your GPU vendor's driver");
    return;
  }
  std::string missing;
#define AOTRT_VK_RESOLVE(name)                                                  \
  vk_.name = reinterpret_cast<PFN_##name>(gipa(instance_, #name));              \
  if (!vk_.name) missing += (missing.empty() ? "" : ", ") + std::string(#name);
  AOTRT_VK_FUNCTIONS(AOTRT_VK_RESOLVE)
#undef AOTRT_VK_RESOLVE
  if (!missing.empty()) {
    why_none_ = "the Vulkan loader lacks " + missing + " (Vulkan 1.1 is needed)";
    return;
  }
  uint32_t n = 0;
  vk_.vkEnumeratePhysicalDevices(instance_, &n, nullptr);
  std::vector<VkPhysicalDevice> phys(n);
  if (n) vk_.vkEnumeratePhysicalDevices(instance_, &n, phys.data());
  for (VkPhysicalDevice p : phys) AddDevice(p);
  std::stable_sort(devices_.begin(), devices_.end(), [](const auto& a, const auto& b) {
    return Preference(a->props.deviceType) < Preference(b->props.deviceType);
  });
  if (devices_.empty()) {
    why_none_ = n == 0 ? "no Vulkan device found: install a driver, e.g. Debian's mesa-vulkan-drivers (lavapipe), or "
                         "your GPU vendor's"
                       : "the Vulkan devices found have no usable compute queue or are older than Vulkan 1.1";
  }
}

bool VulkanState::AddDevice(VkPhysicalDevice phys) {
  auto d = std::make_unique<VkDev>();
  d->phys = phys;
  VkPhysicalDeviceDriverProperties driver{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_DRIVER_PROPERTIES};
  VkPhysicalDeviceSubgroupProperties subgroup{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_SUBGROUP_PROPERTIES};
  VkPhysicalDeviceProperties2 props{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_PROPERTIES_2, &subgroup};
  VkPhysicalDeviceProperties2 plain{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_PROPERTIES_2};
  vk_.vkGetPhysicalDeviceProperties2(phys, &plain);
  bool v12 = plain.properties.apiVersion >= VK_API_VERSION_1_2;
  if (plain.properties.apiVersion < VK_API_VERSION_1_1) return false;
  if (v12) subgroup.pNext = &driver;  // driver properties: core in 1.2
  vk_.vkGetPhysicalDeviceProperties2(phys, &props);
  d->props = props.properties;
  d->subgroup_size = std::max(subgroup.subgroupSize, 1u);
  d->api_version = d->props.apiVersion;
  auto conf = driver.conformanceVersion;
  if (v12 && (conf.major || conf.minor) &&
      (VK_VERSION_MAJOR(d->api_version) > conf.major ||
       (VK_VERSION_MAJOR(d->api_version) == conf.major && VK_VERSION_MINOR(d->api_version) > conf.minor))) {
    d->api_version = VK_MAKE_VERSION(conf.major, conf.minor, 0);  // as TVM reports it
  }
  // A compute queue: a compute-only family first, as TVM.
  uint32_t nf = 0;
  vk_.vkGetPhysicalDeviceQueueFamilyProperties(phys, &nf, nullptr);
  std::vector<VkQueueFamilyProperties> families(nf);
  vk_.vkGetPhysicalDeviceQueueFamilyProperties(phys, &nf, families.data());
  int family = -1;
  for (int pass = 0; pass < 2 && family < 0; ++pass) {
    for (uint32_t i = 0; i < nf && family < 0; ++i) {
      VkQueueFlags f = families[i].queueFlags;
      if ((f & VK_QUEUE_COMPUTE_BIT) && (pass == 1 || !(f & VK_QUEUE_GRAPHICS_BIT))) family = static_cast<int>(i);
    }
  }
  if (family < 0) return false;
  d->family = static_cast<uint32_t>(family);
  d->timestamp_bits = d->props.limits.timestampPeriod > 0 ? families[family].timestampValidBits : 0;
  // The features TVM's -supports_* flags use: each enabled where the device has it.
  VkPhysicalDeviceVulkan12Features f12{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_1_2_FEATURES};
  VkPhysicalDeviceVulkan11Features f11{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_1_1_FEATURES, v12 ? &f12 : nullptr};
  VkPhysicalDeviceFeatures2 f{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_FEATURES_2, v12 ? &f11 : nullptr};
  vk_.vkGetPhysicalDeviceFeatures2(phys, &f);
  VkPhysicalDeviceVulkan12Features e12{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_1_2_FEATURES};
  VkPhysicalDeviceVulkan11Features e11{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_1_1_FEATURES, &e12};
  VkPhysicalDeviceFeatures2 e{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_FEATURES_2, v12 ? &e11 : nullptr};
  const std::pair<VkBool32*, VkBool32> enable[] = {  // in kFeatures' order: the flag to set, the device's
      {&e12.shaderInt8, f12.shaderInt8}, {&e12.storageBuffer8BitAccess, f12.storageBuffer8BitAccess},
      {&e.features.shaderInt64, f.features.shaderInt64}, {&e12.shaderFloat16, f12.shaderFloat16},
      {&e.features.shaderFloat64, f.features.shaderFloat64}, {&e.features.shaderInt16, f.features.shaderInt16},
      {&e11.storageBuffer16BitAccess, f11.storageBuffer16BitAccess}};
  for (size_t i = 0; i < std::size(kFeatures); ++i) {
    *enable[i].first = enable[i].second;
    if (!enable[i].second) d->lacks.push_back(kFeatures[i]);
  }
  float priority = 1.0f;
  VkDeviceQueueCreateInfo queue{VK_STRUCTURE_TYPE_DEVICE_QUEUE_CREATE_INFO, nullptr, 0, d->family, 1, &priority};
  VkDeviceCreateInfo info{VK_STRUCTURE_TYPE_DEVICE_CREATE_INFO, &e, 0, 1, &queue};
  if (vk_.vkCreateDevice(phys, &info, nullptr, &d->dev) != VK_SUCCESS) return false;
  vk_.vkGetDeviceQueue(d->dev, d->family, 0, &d->queue);
  vk_.vkGetPhysicalDeviceMemoryProperties(phys, &d->memory);
  VkCommandPoolCreateInfo pool{VK_STRUCTURE_TYPE_COMMAND_POOL_CREATE_INFO, nullptr,
                               VK_COMMAND_POOL_CREATE_RESET_COMMAND_BUFFER_BIT, d->family};
  VkDescriptorPoolSize sizes[] = {{VK_DESCRIPTOR_TYPE_STORAGE_BUFFER, kPoolSets * kVkMaxArgs},
                                  {VK_DESCRIPTOR_TYPE_UNIFORM_BUFFER, kPoolSets}};
  VkDescriptorPoolCreateInfo dpool{VK_STRUCTURE_TYPE_DESCRIPTOR_POOL_CREATE_INFO, nullptr, 0, kPoolSets, 2, sizes};
  VkFenceCreateInfo fence{VK_STRUCTURE_TYPE_FENCE_CREATE_INFO};
  try {  // a device whose queue objects cannot be made is left out (its handles are kept: not on a hot path)
    AOTRT_VK_CALL(vk_.vkCreateCommandPool(d->dev, &pool, nullptr, &d->pool), "Vulkan device setup");
    VkCommandBufferAllocateInfo cmd{VK_STRUCTURE_TYPE_COMMAND_BUFFER_ALLOCATE_INFO, nullptr, d->pool,
                                    VK_COMMAND_BUFFER_LEVEL_PRIMARY, 1};
    AOTRT_VK_CALL(vk_.vkAllocateCommandBuffers(d->dev, &cmd, &d->cmd), "Vulkan device setup");
    AOTRT_VK_CALL(vk_.vkCreateFence(d->dev, &fence, nullptr, &d->fence), "Vulkan device setup");
    AOTRT_VK_CALL(vk_.vkCreateDescriptorPool(d->dev, &dpool, nullptr, &d->descriptors), "Vulkan device setup");
    AOTRT_VK_CALL(vk_.vkBeginCommandBuffer(d->cmd, &kBegin), "Vulkan device setup");
    VkQueryPoolCreateInfo queries{VK_STRUCTURE_TYPE_QUERY_POOL_CREATE_INFO, nullptr, 0, VK_QUERY_TYPE_TIMESTAMP, 2};
    if (d->timestamp_bits) {
      AOTRT_VK_CALL(vk_.vkCreateQueryPool(d->dev, &queries, nullptr, &d->timestamps), "Vulkan device setup");
    }
    d->uniforms = NewBuffer(*d, kUniformBytes, VK_BUFFER_USAGE_UNIFORM_BUFFER_BIT,
                            VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT | VK_MEMORY_PROPERTY_HOST_COHERENT_BIT, 0, 0);
  } catch (const Error&) {
    return false;
  }
  devices_.push_back(std::move(d));
  return true;
}

VkDev& VulkanState::device(int id, const char* what) const {
  RequireDeviceId(what, "Vulkan", id, devices_.size(), why_none_);
  return *devices_[id];
}

VkBuf VulkanState::NewBuffer(VkDev& d, size_t bytes, VkBufferUsageFlags usage, VkMemoryPropertyFlags required,
                             VkMemoryPropertyFlags prefer, VkMemoryPropertyFlags avoid) const {
  std::string what = StrCat("allocating ", bytes, " bytes on Vulkan device ", d.props.deviceName);
  VkBuf b;
  b.size = std::max<size_t>(bytes, 1);
  VkBufferCreateInfo info{VK_STRUCTURE_TYPE_BUFFER_CREATE_INFO, nullptr, 0, b.size, usage, VK_SHARING_MODE_EXCLUSIVE};
  AOTRT_VK_CALL(vk_.vkCreateBuffer(d.dev, &info, nullptr, &b.buffer), what);
  VkMemoryRequirements req;
  vk_.vkGetBufferMemoryRequirements(d.dev, b.buffer, &req);
  int best = -1, best_rank = -1;
  for (uint32_t k = 0; k < d.memory.memoryTypeCount; ++k) {
    VkMemoryPropertyFlags f = d.memory.memoryTypes[k].propertyFlags;
    if (!(req.memoryTypeBits & (1u << k)) || (f & required) != required) continue;
    int rank = ((f & prefer) == prefer ? 2 : 0) + ((f & avoid) ? 0 : 1);
    if (rank > best_rank) best = static_cast<int>(k), best_rank = rank;
  }
  VkMemoryAllocateInfo alloc{VK_STRUCTURE_TYPE_MEMORY_ALLOCATE_INFO, nullptr, req.size, static_cast<uint32_t>(best)};
  VkResult r = best < 0 ? VK_ERROR_FEATURE_NOT_PRESENT : vk_.vkAllocateMemory(d.dev, &alloc, nullptr, &b.memory);
  if (r == VK_SUCCESS) r = vk_.vkBindBufferMemory(d.dev, b.buffer, b.memory, 0);
  if (r == VK_SUCCESS && (required & VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT)) {
    r = vk_.vkMapMemory(d.dev, b.memory, 0, VK_WHOLE_SIZE, 0, &b.mapped);
  }
  if (r != VK_SUCCESS) {
    FreeBuffer(d, b);
    ThrowVkError(r, "vkAllocateMemory", best < 0 ? what + " (no memory type fits)" : what);
  }
  return b;
}

void VulkanState::FreeBuffer(VkDev& d, VkBuf& b) const noexcept {
  if (b.buffer) vk_.vkDestroyBuffer(d.dev, b.buffer, nullptr);
  if (b.memory) vk_.vkFreeMemory(d.dev, b.memory, nullptr);  // unmaps it
  b = VkBuf();
}

void VulkanState::Submit(VkDev& d) const {
  const char* what = "waiting for Vulkan device";
  AOTRT_VK_CALL(vk_.vkEndCommandBuffer(d.cmd), what);
  VkSubmitInfo submit{VK_STRUCTURE_TYPE_SUBMIT_INFO, nullptr, 0, nullptr, nullptr, 1, &d.cmd};
  VkResult r = vk_.vkQueueSubmit(d.queue, 1, &submit, d.fence);
  while (r == VK_SUCCESS && (r = vk_.vkWaitForFences(d.dev, 1, &d.fence, VK_TRUE, UINT64_MAX)) == VK_TIMEOUT) {
  }
  // Whatever happened, the next commands go to a fresh command buffer.
  vk_.vkResetFences(d.dev, 1, &d.fence);
  vk_.vkResetCommandBuffer(d.cmd, 0);
  vk_.vkResetDescriptorPool(d.dev, d.descriptors, 0);
  d.recorded = 0;
  d.sets = 0;
  d.uniforms_used = 0;
  VkResult rb = vk_.vkBeginCommandBuffer(d.cmd, &kBegin);
  if (r != VK_SUCCESS) ThrowVkError(r, "vkQueueSubmit", what);
  if (rb != VK_SUCCESS) ThrowVkError(rb, "vkBeginCommandBuffer", what);
}

void VulkanState::Drain(VkDev& d) const noexcept {
  try {
    if (d.recorded) Submit(d);
  } catch (const Error&) {  // a failed kernel was reported by the Sync that ran it, or is lost with its buffers
  }
}

void VulkanState::Barrier(VkDev& d) const {
  VkMemoryBarrier b{VK_STRUCTURE_TYPE_MEMORY_BARRIER};
  b.srcAccessMask = VK_ACCESS_SHADER_WRITE_BIT | VK_ACCESS_TRANSFER_WRITE_BIT;
  b.dstAccessMask = VK_ACCESS_SHADER_READ_BIT | VK_ACCESS_SHADER_WRITE_BIT | VK_ACCESS_TRANSFER_READ_BIT |
                    VK_ACCESS_TRANSFER_WRITE_BIT | VK_ACCESS_HOST_READ_BIT;
  VkPipelineStageFlags stages = VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT | VK_PIPELINE_STAGE_TRANSFER_BIT;
  vk_.vkCmdPipelineBarrier(d.cmd, stages, stages | VK_PIPELINE_STAGE_HOST_BIT, 0, 1, &b, 0, nullptr, 0, nullptr);
  ++d.recorded;
}

VkDescriptorSet VulkanState::BeginDispatch(VkDev& d, VkDescriptorSetLayout layout, size_t uniform_bytes,
                                           size_t* uniform_offset) const {
  AOTRT_REQUIRE(uniform_bytes <= kUniformBytes, kNotImplemented, "a Vulkan kernel's ", uniform_bytes,
                " bytes of scalar arguments exceed aotrt's uniform buffer (", kUniformBytes, " bytes)");
  // A submit's descriptor sets are bounded: so are its command buffer and what the driver holds for it.
  if (d.sets >= kPoolSets || d.uniforms_used + uniform_bytes > kUniformBytes) Submit(d);
  size_t align = std::max<size_t>(d.props.limits.minUniformBufferOffsetAlignment, 16);
  *uniform_offset = d.uniforms_used;
  d.uniforms_used = (d.uniforms_used + uniform_bytes + align - 1) / align * align;
  VkDescriptorSetAllocateInfo info{VK_STRUCTURE_TYPE_DESCRIPTOR_SET_ALLOCATE_INFO, nullptr, d.descriptors, 1, &layout};
  VkDescriptorSet set = VK_NULL_HANDLE;
  AOTRT_VK_CALL(vk_.vkAllocateDescriptorSets(d.dev, &info, &set), "a Vulkan kernel's buffers");
  ++d.sets;
  return set;
}

namespace {

class VulkanDriverImpl final : public DeviceAPI {
 public:
  const char* name() const override { return "vulkan"; }
  int NumDevices() override { return static_cast<int>(VulkanState::Get().size()); }
  std::string WhyNoDevice() override { return VulkanState::Get().why_none(); }

  void* Alloc(int id, size_t bytes, size_t, const std::string& scope) override {
    AOTRT_REQUIRE(scope.empty() || scope == "global", kNotImplemented, "memory scope '", scope,
                  "' is not supported on Vulkan: only 'global' buffers");
    const VulkanState& s = VulkanState::Get();
    VkDev& d = s.device(id, "Vulkan allocation");
    std::lock_guard<std::mutex> lock(d.mu);
    VkBufferUsageFlags usage =
        VK_BUFFER_USAGE_STORAGE_BUFFER_BIT | VK_BUFFER_USAGE_TRANSFER_SRC_BIT | VK_BUFFER_USAGE_TRANSFER_DST_BIT;
    return new VkBuf(s.NewBuffer(d, bytes, usage, VK_MEMORY_PROPERTY_DEVICE_LOCAL_BIT, 0,
                                 VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT));
  }

  void Free(int id, void* data) noexcept override {
    const VulkanState& s = VulkanState::Get();
    if (!data || id < 0 || static_cast<size_t>(id) >= s.size()) return;
    VkDev& d = s.device(id, "Vulkan free");
    std::lock_guard<std::mutex> lock(d.mu);
    s.Drain(d);  // recorded commands may use the buffer
    s.FreeBuffer(d, *static_cast<VkBuf*>(data));
    delete static_cast<VkBuf*>(data);
  }

  void Copy(const DLTensor& from, const DLTensor& to, size_t bytes, void*) override {
    if (bytes == 0) return;
    const VulkanState& s = VulkanState::Get();
    auto [from_dev, to_dev, id] = DeviceCopyEnds(from, to, kDLVulkan, "Vulkan");
    VkDev& d = s.device(id, "Vulkan copy");
    std::lock_guard<std::mutex> lock(d.mu);
    if (!(from_dev && to_dev) && d.staging.size < bytes) {  // staging grows to the largest copy (not in use)
      s.FreeBuffer(d, d.staging);
      d.staging = s.NewBuffer(d, bytes, VK_BUFFER_USAGE_TRANSFER_SRC_BIT | VK_BUFFER_USAGE_TRANSFER_DST_BIT,
                              VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT | VK_MEMORY_PROPERTY_HOST_COHERENT_BIT,
                              VK_MEMORY_PROPERTY_HOST_CACHED_BIT, 0);
    }
    VkBufferCopy region{from_dev ? from.byte_offset : 0, to_dev ? to.byte_offset : 0, bytes};
    VkBuffer src = from_dev ? static_cast<const VkBuf*>(from.data)->buffer : d.staging.buffer;
    VkBuffer dst = to_dev ? static_cast<const VkBuf*>(to.data)->buffer : d.staging.buffer;
    if (!from_dev) std::memcpy(d.staging.mapped, static_cast<const char*>(from.data) + from.byte_offset, bytes);
    s.vk().vkCmdCopyBuffer(d.cmd, src, dst, 1, &region);
    s.Barrier(d);
    if (from_dev && to_dev) return;  // ordered with the kernels; nothing of the host's to wait for
    s.Submit(d);
    if (!to_dev) std::memcpy(static_cast<char*>(to.data) + to.byte_offset, d.staging.mapped, bytes);
  }

  void Sync(int id, void*) override {
    const VulkanState& s = VulkanState::Get();
    VkDev& d = s.device(id, "Vulkan synchronize");
    std::lock_guard<std::mutex> lock(d.mu);
    if (d.recorded) s.Submit(d);
  }

  // The device's timestamps before and after the work (one submit). Work other threads record on the
  // device meanwhile is timed with it.
  double TimeOnDevice(int id, const std::function<void()>& enqueue) override {
    const VulkanState& s = VulkanState::Get();
    VkDev& d = s.device(id, "Vulkan timing");
    if (!d.timestamps) return DeviceAPI::TimeOnDevice(id, enqueue);
    const VkApi& vk = s.vk();
    {
      std::lock_guard<std::mutex> lock(d.mu);
      vk.vkCmdResetQueryPool(d.cmd, d.timestamps, 0, 2);
      vk.vkCmdWriteTimestamp(d.cmd, VK_PIPELINE_STAGE_BOTTOM_OF_PIPE_BIT, d.timestamps, 0);
    }
    enqueue();
    std::lock_guard<std::mutex> lock(d.mu);
    vk.vkCmdWriteTimestamp(d.cmd, VK_PIPELINE_STAGE_BOTTOM_OF_PIPE_BIT, d.timestamps, 1);
    s.Submit(d);
    uint64_t t[2] = {0, 0};
    AOTRT_VK_CALL(vk.vkGetQueryPoolResults(d.dev, d.timestamps, 0, 2, sizeof(t), t, sizeof(t[0]),
                                           VK_QUERY_RESULT_64_BIT | VK_QUERY_RESULT_WAIT_BIT),
                  "timing on Vulkan");
    uint64_t mask = d.timestamp_bits >= 64 ? ~uint64_t{0} : (uint64_t{1} << d.timestamp_bits) - 1;
    return static_cast<double>((t[1] - t[0]) & mask) * d.props.limits.timestampPeriod / 1e6;
  }

  void SetDevice(int id) override { VulkanState::current_device = id; }  // checked by RequireDevice

  void GetAttr(int id, DeviceAttr kind, TVMRetValue* rv) override {
    const VulkanState& s = VulkanState::Get();
    const VkDev& d = s.device(id, "runtime.GetDeviceAttr");
    const VkPhysicalDeviceLimits& l = d.props.limits;
    switch (kind) {  // as TVM's vulkan_device_api.cc answers
      case DeviceAttr::kMaxThreadsPerBlock: return rv->SetInt(l.maxComputeWorkGroupInvocations);
      case DeviceAttr::kMaxSharedMemoryPerBlock: return rv->SetInt(l.maxComputeSharedMemorySize);
      case DeviceAttr::kWarpSize: return rv->SetInt(d.subgroup_size);
      case DeviceAttr::kComputeVersion: return rv->SetString(VersionString(d.api_version));
      case DeviceAttr::kDeviceName: return rv->SetString(d.props.deviceName);
      case DeviceAttr::kMaxThreadDimensions:
        return rv->SetString(StrCat("[", l.maxComputeWorkGroupSize[0], ", ", l.maxComputeWorkGroupSize[1], ", ",
                                    l.maxComputeWorkGroupSize[2], "]"));
      case DeviceAttr::kApiVersion: return rv->SetInt(VK_HEADER_VERSION);
      case DeviceAttr::kDriverVersion: return rv->SetString(VersionString(d.props.driverVersion));
      default: return;  // not a Vulkan attribute: none, as TVM's Vulkan API answers
    }
  }
};

}  // namespace

DeviceAPI* VulkanDriver() { static auto* driver = new VulkanDriverImpl(); return driver; }  // never destroyed

}  // namespace aotrt
