// TVM's texture storage on OpenCL: image2d allocation through the C ABI in each texture scope,
// with TVM's texel layout checked by a kernel of an opencl module that reads the texels, and
// copies between images, buffers and the host.
#include <gtest/gtest.h>
#include <tvm/runtime/c_runtime_api.h>

#include <cstring>
#include <memory>
#include <numeric>
#include <string>
#include <vector>

#include "common/expect_error.h"
#include "module/library_module.h"
#include "module/loader/load.h"

using namespace aotrt;

namespace {

constexpr DLDevice kCL{kDLOpenCL, 0};
constexpr DLDataType kF32{kDLFloat, 32, 1};

class NoSymbols : public SymbolSource {
 public:
  void* Lookup(const std::string&) const override { return nullptr; }
  uint64_t SymbolSize(const std::string&) const override { return 0; }
  const std::string& name() const override { return name_; }

 private:
  std::string name_ = "texel test";
};

// A blob of one opencl module whose kernel copies each texel (x, y) of an image to element
// y * width + x of a float4 buffer: the module, read by the built-in loader.
ObjectPtr<ModuleNode> TexelCopyModule() {
  std::string out(8, '\0');
  auto u64 = [&](uint64_t v) { out.append(reinterpret_cast<const char*>(&v), 8); };
  auto str = [&](const std::string& s) { u64(s.size()); out += s; };
  u64(1);
  str("opencl");
  str("cl");
  u64(1);
  str("copy_texels");
  str("copy_texels");
  u64(2);
  for (int i = 0; i < 2; ++i) out.append("\x03\x40\x01\x00", 4);  // handles
  u64(2);
  str("blockIdx.x");
  str("blockIdx.y");
  str("// Function: copy_texels\n"
      "__kernel void copy_texels(__read_only image2d_t img, __global float4* out) {\n"
      "  const sampler_t s = CLK_NORMALIZED_COORDS_FALSE | CLK_ADDRESS_CLAMP | CLK_FILTER_NEAREST;\n"
      "  int x = get_group_id(0), y = get_group_id(1);\n"
      "  out[y * get_num_groups(0) + x] = read_imagef(img, s, (int2)(x, y));\n"
      "}\n");
  uint64_t n = out.size() - 8;
  std::memcpy(out.data(), &n, 8);
  auto symbols = std::make_shared<NoSymbols>();
  LoadContext ctx;
  ctx.display_name = "texel test";
  ObjectPtr<ModuleNode> root = ProcessModuleBlob(out.data(), out.size(), MakeObject<LibraryModuleNode>(symbols), ctx);
  return root->imports().at(0);
}

DLTensor On(DLDevice dev, void* data, std::vector<int64_t>& shape) {
  return DLTensor{data, dev, static_cast<int>(shape.size()), kF32, shape.data(), nullptr, 0};
}

TEST(OpenCLTextures, EachScopeLaysTexelsOutAsTvmAndCopiesRoundTrip) {
  void* probe = nullptr;
  int64_t one[3] = {1, 1, 4};
  if (TVMDeviceAllocDataSpaceWithScope(kCL, 3, one, kF32, "global.texture", &probe) != 0) {
    GTEST_SKIP() << "no OpenCL device with images here: " << TVMGetLastError();
  }
  TVMDeviceFreeDataSpace(kCL, probe);
  ObjectPtr<ModuleNode> mod = TexelCopyModule();
  PackedFunc copy = mod->GetFunction("copy_texels", mod);
  ASSERT_TRUE(copy);
  // {scope, shape, rows (height), columns (width)}: TVM's flattening (src/runtime/texture.h).
  struct Layout { const char* scope; std::vector<int64_t> shape; int64_t height, width; };
  for (Layout l : {Layout{"global.texture", {2, 3, 5, 4}, 6, 5}, Layout{"global.texture-weight", {2, 3, 5, 4}, 2, 15},
                   Layout{"global.texture-nhwc", {2, 3, 5, 4}, 6, 5}, Layout{"global.texture-nhwc", {3, 5, 4}, 3, 5}}) {
    SCOPED_TRACE(l.scope);
    size_t n = 1;
    for (int64_t d : l.shape) n *= d;
    std::vector<float> host(n), back(n, -1), via_kernel(n, -1);
    std::iota(host.begin(), host.end(), 0.5f);
    void *img = nullptr, *img2 = nullptr, *buf = nullptr;
    ASSERT_EQ(TVMDeviceAllocDataSpaceWithScope(kCL, l.shape.size(), l.shape.data(), kF32, l.scope, &img), 0)
        << TVMGetLastError();
    ASSERT_EQ(TVMDeviceAllocDataSpaceWithScope(kCL, l.shape.size(), l.shape.data(), kF32, l.scope, &img2), 0);
    ASSERT_EQ(TVMDeviceAllocDataSpace(kCL, n * 4, 64, kF32, &buf), 0);
    DLTensor h = On(DLDevice{kDLCPU, 0}, host.data(), l.shape), i1 = On(kCL, img, l.shape), i2 = On(kCL, img2, l.shape),
             b = On(kCL, buf, l.shape), hb = On(DLDevice{kDLCPU, 0}, back.data(), l.shape),
             hk = On(DLDevice{kDLCPU, 0}, via_kernel.data(), l.shape);
    ASSERT_EQ(TVMArrayCopyFromTo(&h, &i1, nullptr), 0) << TVMGetLastError();  // host -> image
    ASSERT_EQ(TVMArrayCopyFromTo(&i1, &i2, nullptr), 0);                        // image -> image
    copy(img2, buf, l.width, l.height);
    ASSERT_EQ(TVMArrayCopyFromTo(&b, &hk, nullptr), 0);
    EXPECT_EQ(std::memcmp(via_kernel.data(), host.data(), n * 4), 0) << "texel (x, y) is not element (y * width + x)";
    ASSERT_EQ(TVMArrayCopyFromTo(&b, &i1, nullptr), 0);  // buffer -> image
    ASSERT_EQ(TVMArrayCopyFromTo(&i1, &b, nullptr), 0);  // image -> buffer
    ASSERT_EQ(TVMArrayCopyFromTo(&b, &hb, nullptr), 0);
    EXPECT_EQ(std::memcmp(back.data(), host.data(), n * 4), 0);
    for (void* p : {img, img2, buf}) EXPECT_EQ(TVMDeviceFreeDataSpace(kCL, p), 0);
  }
}

// Generated host code's texture workspaces (device_api.opencl.alloc_nd / free_nd): an image of
// shape[0] x shape[1] texels, taken back from this thread's pool when one that large is free.
TEST(OpenCLTextures, WorkspacesOfGeneratedCodeArePooledImages) {
  PackedFunc alloc = GetGlobalFunction("device_api.opencl.alloc_nd");
  PackedFunc free_nd = GetGlobalFunction("device_api.opencl.free_nd");
  ASSERT_TRUE(alloc && free_nd);
  int64_t texels[2] = {5, 3};  // width, height
  void* img = nullptr;
  try {
    img = alloc(kDLOpenCL, 0, kDLFloat, 32, "global.texture", 2, static_cast<void*>(texels)).As<void*>();
  } catch (const Error& e) {
    GTEST_SKIP() << "no OpenCL device with images here: " << e.what();
  }
  std::vector<int64_t> shape = {3, 5, 4};  // rows, columns, RGBA
  std::vector<float> host(60), via_kernel(60, -1);
  std::iota(host.begin(), host.end(), 0.25f);
  void* buf = nullptr;
  ASSERT_EQ(TVMDeviceAllocDataSpace(kCL, 60 * 4, 64, kF32, &buf), 0);
  DLTensor h = On(DLDevice{kDLCPU, 0}, host.data(), shape), i = On(kCL, img, shape), b = On(kCL, buf, shape),
           hk = On(DLDevice{kDLCPU, 0}, via_kernel.data(), shape);
  ASSERT_EQ(TVMArrayCopyFromTo(&h, &i, nullptr), 0) << TVMGetLastError();
  ObjectPtr<ModuleNode> mod = TexelCopyModule();
  mod->GetFunction("copy_texels", mod)(img, buf, 5, 3);
  ASSERT_EQ(TVMArrayCopyFromTo(&b, &hk, nullptr), 0);
  EXPECT_EQ(via_kernel, host);
  EXPECT_EQ(TVMDeviceFreeDataSpace(kCL, buf), 0);

  free_nd(kDLOpenCL, 0, "global.texture", img);
  int64_t smaller[2] = {4, 2};
  void* again = alloc(kDLOpenCL, 0, kDLFloat, 32, "global.texture", 2, static_cast<void*>(smaller)).As<void*>();
  EXPECT_EQ(again, img);  // the free one fits
  void* other = alloc(kDLOpenCL, 0, kDLFloat, 32, "global.texture", 2, static_cast<void*>(smaller)).As<void*>();
  EXPECT_NE(other, img);  // that one is in use
  free_nd(kDLOpenCL, 0, "global.texture", other);
  free_nd(kDLOpenCL, 0, "global.texture", again);
  EXPECT_AOTRT_ERROR(free_nd(kDLOpenCL, 0, "global.texture", again), ErrorCode::kInvalidArgument,
                     {"device_api.opencl.free_nd", "already free"});
  EXPECT_AOTRT_ERROR(alloc(kDLOpenCL, 0, kDLFloat, 32, "global", 2, static_cast<void*>(texels)),
                     ErrorCode::kInvalidArgument, {"expected a texture scope", "scope 'global'"});
}

}  // namespace
