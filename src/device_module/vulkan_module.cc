// The `vulkan` module of a GPU export's blob (TVM's vulkan_module.cc): the function map and a SPIR-V
// shader per kernel (its words and a flag word whose bit 0 says the scalars come in a uniform
// buffer), read by the built-in loader of type key "vulkan". A kernel is a packed function that the
// host code calls with its buffers (storage-buffer descriptors), scalars (push constants, 8 bytes
// each, or the uniform buffer) and launch extents; it is recorded into its device's command buffer,
// not submitted. A compute pipeline is built per kernel and device at create (Prepare) or first
// launch, through a VkPipelineCache kept in the cache directory, so a second process compiles none.
#include <algorithm>
#include <chrono>
#include <cstring>

#include "aotrt/module.h"
#include "base/byte_reader.h"
#include "base/error_util.h"
#include "base/logging.h"
#include "device/vulkan/vulkan_driver.h"
#include "device_module/device_module.h"
#include "device_module/function_info.h"
#include "module/load_context.h"

namespace aotrt {
namespace {

constexpr uint32_t kSpirvMagic = 0x07230203;

struct Shader {
  uint32_t flag = 0;
  std::vector<uint32_t> words;
};

struct Pipeline {
  VkShaderModule shader = VK_NULL_HANDLE;
  VkDescriptorSetLayout set_layout = VK_NULL_HANDLE;
  VkPipelineLayout layout = VK_NULL_HANDLE;
  VkPipeline pipeline = VK_NULL_HANDLE;
};

struct VkKernel {
  const KernelInfo& info;  // the module's
  size_t num_buffers = 0, num_scalars = 0;
  LaunchConfig launch;
  const Shader* shader;
  bool use_ubo;
  std::vector<uint32_t> caps;  // the shader's SPIR-V capabilities
  std::vector<Pipeline> built;  // by device id; each guarded by its device's mutex
};

// A kernel checked against its shader: buffers first, then scalars TVM passes, a SPIR-V module
// whose instructions fit. Throws kFormatError, kNotImplemented naming the kernel.
VkKernel MakeKernel(const std::string& what, const KernelInfo& info, const Shader* shader) {
  const std::string& name = info.name;
  AOTRT_REQUIRE(shader, kFormatError, what, ": kernel '", name, "' has no shader in the module's shader map");
  VkKernel k{info, 0, 0, LaunchConfig(info), shader, (shader->flag & 1) != 0, {}, {}};
  for (size_t i = 0; i < k.info.arg_types.size(); ++i) {
    DLDataType t = k.info.arg_types[i];
    bool buffer = t.code == kTVMOpaqueHandle;
    AOTRT_REQUIRE(!buffer || k.num_scalars == 0, kFormatError, what, ": kernel '", name, "' argument ", i,
                  " is a buffer after a scalar (TVM's Vulkan kernels take their buffers first)");
    RequirePassableArg(StrCat(what, ": kernel '", name, "'"), i, t);
    ++(buffer ? k.num_buffers : k.num_scalars);
  }
  AOTRT_REQUIRE(k.num_buffers + k.num_scalars <= kVkMaxArgs, kNotImplemented, what, ": kernel '", name, "' takes ",
                k.info.arg_types.size(), " arguments; aotrt passes at most ", kVkMaxArgs, " to a Vulkan kernel");
  const std::vector<uint32_t>& w = shader->words;
  AOTRT_REQUIRE(w.size() >= 5 && w[0] == kSpirvMagic, kFormatError, what, ": the shader of kernel '", name,
                "' is not SPIR-V (no magic number)");
  for (size_t i = 5; i < w.size();) {
    uint32_t n = w[i] >> 16;
    AOTRT_REQUIRE(n > 0 && n <= w.size() - i, kFormatError, what, ": the shader of kernel '", name,
                  "' is corrupt: its SPIR-V instruction at word ", i, " has length ", n);
    if ((w[i] & 0xffff) == 17 && n >= 2) k.caps.push_back(w[i + 1]);  // OpCapability
    i += n;
  }
  return k;
}

class VulkanModuleNode final : public DeviceModuleNode {
 public:
  VulkanModuleNode(std::string fmt, std::map<std::string, KernelInfo> infos, std::map<std::string, Shader> shaders,
                   std::string cache_dir, const std::string& what)
      : DeviceModuleNode("Vulkan", kDLVulkan, std::move(fmt), std::move(infos)), shaders_(std::move(shaders)),
        cache_dir_(std::move(cache_dir)), caches_(VulkanState::Get().size()) {
    for (const auto& [key, info] : infos_) {  // each kernel with its shader, checked by MakeKernel
      auto sh = shaders_.find(info.name);
      VkKernel& k = kernels_.emplace(info.name, MakeKernel(what, info, sh == shaders_.end() ? nullptr : &sh->second))
                        .first->second;
      k.built.resize(caches_.size());
      code_ += StrCat(info.name, "|", k.shader->flag, "|");
      code_.append(reinterpret_cast<const char*>(k.shader->words.data()), k.shader->words.size() * 4);
    }
  }
  ~VulkanModuleNode() override;
  const char* type_key() const override { return "vulkan"; }
  PackedFunc GetFunction(const std::string& name, const ObjectPtr<ModuleNode>& self) override {
    auto it = kernels_.find(name);
    if (it == kernels_.end()) return PackedFunc();
    return PackedFunc([this, k = &it->second, self](TVMArgs args, TVMRetValue*) { Launch(*k, args); });
  }
  void SaveCode(std::string* out) const override {
    WriteU64(shaders_.size(), out);
    for (const auto& [name, sh] : shaders_) {
      WriteString(name, out);
      out->append(reinterpret_cast<const char*>(&sh.flag), 4);
      WriteU64(sh.words.size(), out);
      out->append(reinterpret_cast<const char*>(sh.words.data()), sh.words.size() * 4);
    }
  }
  // Builds every pipeline for device `id` that is not built yet, then saves the pipeline cache.
  void Prepare(int id) override;

 private:
  struct Cache {
    VkPipelineCache handle = VK_NULL_HANDLE;
    std::string path;
    size_t saved = 0;  // the bytes the file holds
  };
  void Launch(VkKernel& k, TVMArgs args);
  Pipeline Build(const VkKernel& k, int id, VkDev& d);
  void Destroy(VkDev& d, Pipeline& p);
  void SaveCache(int id, VkDev& d);

  std::map<std::string, Shader> shaders_;  // the kernels point into it
  std::map<std::string, VkKernel> kernels_;
  std::string cache_dir_, code_;  // code_: what the pipeline cache files are keyed by, besides the device
  std::vector<Cache> caches_;  // by device id; each guarded by its device's mutex
};

VulkanModuleNode::~VulkanModuleNode() {
  const VulkanState& s = VulkanState::Get();
  for (size_t id = 0; id < caches_.size(); ++id) {
    VkDev& d = s.device(static_cast<int>(id), "Vulkan module");
    std::lock_guard<std::mutex> lock(d.mu);
    s.Drain(d);  // recorded dispatches may use the pipelines
    for (auto& [name, k] : kernels_) Destroy(d, k.built[id]);
    if (caches_[id].handle) s.vk().vkDestroyPipelineCache(d.dev, caches_[id].handle, nullptr);
  }
}

void VulkanModuleNode::Destroy(VkDev& d, Pipeline& p) {
  const VkApi& vk = VulkanState::Get().vk();
  if (p.pipeline) vk.vkDestroyPipeline(d.dev, p.pipeline, nullptr);
  if (p.layout) vk.vkDestroyPipelineLayout(d.dev, p.layout, nullptr);
  if (p.set_layout) vk.vkDestroyDescriptorSetLayout(d.dev, p.set_layout, nullptr);
  if (p.shader) vk.vkDestroyShaderModule(d.dev, p.shader, nullptr);
  p = Pipeline();
}

Pipeline VulkanModuleNode::Build(const VkKernel& k, int id, VkDev& d) {
  const VkApi& vk = VulkanState::Get().vk();
  for (const VkLack& lack : d.lacks) {
    AOTRT_REQUIRE(std::find(k.caps.begin(), k.caps.end(), lack.capability) == k.caps.end(), kNotImplemented,
                  "Vulkan kernel '", k.info.name, "' needs ", lack.feature, ", which Vulkan device ", id, " (",
                  d.props.deviceName, ") lacks: compile the model for this device (target 'vulkan -from_device=", id,
                  "') or run it on a device that has it");
  }
  uint32_t scalar_bytes = static_cast<uint32_t>(k.num_scalars * 8);
  AOTRT_REQUIRE(k.use_ubo || scalar_bytes <= d.props.limits.maxPushConstantsSize, kNotImplemented, "Vulkan kernel '",
                k.info.name, "' takes ", scalar_bytes, " bytes of push constants; Vulkan device ", id, " (",
                d.props.deviceName, ") supports ", d.props.limits.maxPushConstantsSize,
                ": compile the model with -max_push_constants_size or -from_device=", id);
  Cache& cache = caches_[id];
  if (!cache.handle) {  // the first pipeline of this module on the device: its cache from the file
    cache.path = KernelCachePath(cache_dir_, "vulkan", StrCat("aotrt-vulkan-1|", d.props.deviceName, "|",
                                 d.props.vendorID, ":", d.props.deviceID, "|", d.props.driverVersion, "|",
                                 std::string(reinterpret_cast<const char*>(d.props.pipelineCacheUUID), VK_UUID_SIZE)),
                                 code_);
    std::string data = ReadKernelCache(cache.path);
    VkPipelineCacheCreateInfo info{VK_STRUCTURE_TYPE_PIPELINE_CACHE_CREATE_INFO, nullptr, 0, data.size(), data.data()};
    if (vk.vkCreatePipelineCache(d.dev, &info, nullptr, &cache.handle) != VK_SUCCESS) {
      info.initialDataSize = 0;  // data the driver refuses: an empty cache
      AOTRT_VK_CALL(vk.vkCreatePipelineCache(d.dev, &info, nullptr, &cache.handle), "a Vulkan pipeline cache");
    }
    cache.saved = data.size();
  }
  Pipeline p;
  std::string what = StrCat("building Vulkan kernel '", k.info.name, "' on device ", id, " (", d.props.deviceName, ")");
  try {
    VkShaderModuleCreateInfo sm{VK_STRUCTURE_TYPE_SHADER_MODULE_CREATE_INFO, nullptr, 0, k.shader->words.size() * 4,
                                k.shader->words.data()};
    AOTRT_VK_CALL(vk.vkCreateShaderModule(d.dev, &sm, nullptr, &p.shader), what);
    VkDescriptorSetLayoutBinding bindings[kVkMaxArgs + 1];
    uint32_t n = static_cast<uint32_t>(k.num_buffers + (k.use_ubo ? 1 : 0));
    for (uint32_t i = 0; i < n; ++i) {
      bool ubo = i == k.num_buffers;
      bindings[i] = {i, ubo ? VK_DESCRIPTOR_TYPE_UNIFORM_BUFFER : VK_DESCRIPTOR_TYPE_STORAGE_BUFFER, 1,
                     VK_SHADER_STAGE_COMPUTE_BIT, nullptr};
    }
    VkDescriptorSetLayoutCreateInfo sl{VK_STRUCTURE_TYPE_DESCRIPTOR_SET_LAYOUT_CREATE_INFO, nullptr, 0, n, bindings};
    AOTRT_VK_CALL(vk.vkCreateDescriptorSetLayout(d.dev, &sl, nullptr, &p.set_layout), what);
    VkPushConstantRange range{VK_SHADER_STAGE_COMPUTE_BIT, 0, scalar_bytes};
    VkPipelineLayoutCreateInfo pl{VK_STRUCTURE_TYPE_PIPELINE_LAYOUT_CREATE_INFO, nullptr, 0, 1, &p.set_layout,
                                  scalar_bytes && !k.use_ubo ? 1u : 0u, &range};
    AOTRT_VK_CALL(vk.vkCreatePipelineLayout(d.dev, &pl, nullptr, &p.layout), what);
    VkComputePipelineCreateInfo cp{VK_STRUCTURE_TYPE_COMPUTE_PIPELINE_CREATE_INFO, nullptr, 0,
                                   {VK_STRUCTURE_TYPE_PIPELINE_SHADER_STAGE_CREATE_INFO, nullptr, 0,
                                    VK_SHADER_STAGE_COMPUTE_BIT, p.shader, k.info.name.c_str(), nullptr},
                                   p.layout};
    AOTRT_VK_CALL(vk.vkCreateComputePipelines(d.dev, cache.handle, 1, &cp, nullptr, &p.pipeline), what);
  } catch (...) {
    Destroy(d, p);
    throw;
  }
  return p;
}

void VulkanModuleNode::SaveCache(int id, VkDev& d) {
  Cache& c = caches_[id];
  const VkApi& vk = VulkanState::Get().vk();
  size_t size = 0;
  if (c.path.empty() || vk.vkGetPipelineCacheData(d.dev, c.handle, &size, nullptr) != VK_SUCCESS || size == c.saved) {
    return;
  }
  std::string data(size, '\0');
  if (vk.vkGetPipelineCacheData(d.dev, c.handle, &size, data.data()) != VK_SUCCESS) return;
  data.resize(size);
  WriteKernelCache(c.path, data);
  c.saved = size;
}

void VulkanModuleNode::Prepare(int id) {
  VkDev& d = VulkanState::Get().device(id, "Vulkan kernels");
  std::lock_guard<std::mutex> lock(d.mu);
  auto start = std::chrono::steady_clock::now();
  for (auto& [name, k] : kernels_) {
    if (!k.built[id].pipeline) k.built[id] = Build(k, id, d);
  }
  SaveCache(id, d);
  AOTRT_LOG_DEBUG("Vulkan device ", id, ": pipelines ready in ",
                  std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count(), " ms");
}

void VulkanModuleNode::Launch(VkKernel& k, TVMArgs args) {
  k.launch.CheckCount("Vulkan", k.info.name, args.size());
  const TVMValue* v = args.values();
  uint64_t pack[kVkMaxArgs];  // TVM's ArgUnion64: each scalar in 8 bytes, 32-bit ones in the low half
  for (size_t i = 0; i < k.num_scalars; ++i) {
    DLDataType t = k.info.arg_types[k.num_buffers + i];
    const TVMValue& x = v[k.num_buffers + i];
    float f = static_cast<float>(x.v_float64);
    uint32_t low = static_cast<uint32_t>(x.v_int64);
    if (t.code == kDLFloat) std::memcpy(&low, &f, 4);
    pack[i] = low;
    if (t.bits == 64) std::memcpy(&pack[i], &x, 8);
  }
  KernelLaunch l = k.launch.Read(v);
  const VulkanState& s = VulkanState::Get();
  const VkApi& vk = s.vk();
  int id = VulkanState::current_device;
  VkDev& d = s.device(id, "a Vulkan kernel's launch");
  std::lock_guard<std::mutex> lock(d.mu);
  Pipeline& p = k.built[id];
  if (!p.pipeline) {
    p = Build(k, id, d);
    SaveCache(id, d);
  }
  size_t bytes = k.num_scalars * 8, offset = 0;
  VkDescriptorSet set = s.BeginDispatch(d, p.set_layout, k.use_ubo ? bytes : 0, &offset);
  VkDescriptorBufferInfo infos[kVkMaxArgs + 1];
  VkWriteDescriptorSet writes[kVkMaxArgs + 1];
  uint32_t nw = static_cast<uint32_t>(k.num_buffers + (k.use_ubo ? 1 : 0));
  if (k.use_ubo) std::memcpy(static_cast<char*>(d.uniforms.mapped) + offset, pack, bytes);
  for (uint32_t i = 0; i < nw; ++i) {
    bool ubo = i == k.num_buffers;
    AOTRT_REQUIRE(ubo || v[i].v_handle, kInvalidArgument, "Vulkan kernel '", k.info.name, "' argument ", i, " is null");
    infos[i] = {ubo ? d.uniforms.buffer : static_cast<const VkBuf*>(v[i].v_handle)->buffer, ubo ? offset : 0,
                ubo ? bytes : VK_WHOLE_SIZE};
    writes[i] = {VK_STRUCTURE_TYPE_WRITE_DESCRIPTOR_SET, nullptr, set, i, 0, 1,
                 ubo ? VK_DESCRIPTOR_TYPE_UNIFORM_BUFFER : VK_DESCRIPTOR_TYPE_STORAGE_BUFFER, nullptr, &infos[i], nullptr};
  }
  vk.vkUpdateDescriptorSets(d.dev, nw, writes, 0, nullptr);
  vk.vkCmdBindPipeline(d.cmd, VK_PIPELINE_BIND_POINT_COMPUTE, p.pipeline);
  vk.vkCmdBindDescriptorSets(d.cmd, VK_PIPELINE_BIND_POINT_COMPUTE, p.layout, 0, 1, &set, 0, nullptr);
  if (bytes && !k.use_ubo) {
    vk.vkCmdPushConstants(d.cmd, p.layout, VK_SHADER_STAGE_COMPUTE_BIT, 0, static_cast<uint32_t>(bytes), pack);
  }
  vk.vkCmdDispatch(d.cmd, static_cast<uint32_t>(l.grid[0]), static_cast<uint32_t>(l.grid[1]),
                   static_cast<uint32_t>(l.grid[2]));
  s.Barrier(d);
}

}  // namespace

ObjectPtr<ModuleNode> LoadVulkanModule(BoundedReader& r, const LoadContext& ctx) {
  std::string fmt = r.ReadString("Vulkan module format");
  std::map<std::string, KernelInfo> infos = ReadKernelMap(r);
  std::map<std::string, Shader> shaders;
  uint64_t n = r.ReadCount("Vulkan shader map size", 20);
  for (uint64_t i = 0; i < n; ++i) {
    std::string name = r.ReadString("shader name");
    Shader sh;
    sh.flag = r.Read<uint32_t>("shader flag");
    sh.words.resize(r.ReadCount("shader words", 4));
    r.ReadBytes(sh.words.data(), sh.words.size() * 4, "shader words");
    if (!shaders.emplace(name, std::move(sh)).second) r.Fail(StrCat("shader '", name, "' appears twice"));
  }
  AOTRT_REQUIRE(fmt == "vulkan", kNotImplemented, r.what(), ": Vulkan module of format '", fmt,
                "': aotrt runs SPIR-V shaders (format 'vulkan') only");
  std::string cache = ctx.options.compile_cache ? ctx.options.cache_dir : std::string();
  return MakeObject<VulkanModuleNode>(std::move(fmt), std::move(infos), std::move(shaders), std::move(cache), r.what());
}

}  // namespace aotrt
