// The blob loaders of the device code modules, by TVM's type key.
#include "module/load_context.h"

namespace aotrt {

ObjectPtr<ModuleNode> LoadOpenCLModule(BoundedReader& r, const LoadContext& ctx);  // opencl_module.cc
ObjectPtr<ModuleNode> LoadCUDAModule(BoundedReader& r, const LoadContext& ctx);    // cuda_module.cc
ObjectPtr<ModuleNode> LoadVulkanModule(BoundedReader& r, const LoadContext& ctx);  // vulkan_module.cc

namespace {
const BinaryLoaderDef kDeviceLoaderDefs[] = {
    {"opencl", &LoadOpenCLModule}, {"cuda", &LoadCUDAModule}, {"vulkan", &LoadVulkanModule}};
}  // namespace

extern const BinaryLoaderTable kDeviceBinaryLoaders(kDeviceLoaderDefs);

}  // namespace aotrt
