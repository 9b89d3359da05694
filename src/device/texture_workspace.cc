// TVM's texture workspaces: the image2d scratch that Adreno schedules' host code takes around a kernel
// (texture2d_alloca) through the globals device_api.opencl.alloc_nd and free_nd. Pooled per thread as
// TVM's texture pool: a run takes back the images its last run freed, so it allocates nothing.
#include <algorithm>
#include <string>
#include <vector>

#include "base/device.h"
#include "base/error_util.h"
#include "device/device_api.h"
#include "device/texture.h"
#include "ffi/registry.h"

namespace aotrt {
namespace {

struct PooledTexture {
  DLDevice dev;
  DLDataType dtype;
  int64_t width, height;
  void* image;
  bool in_use;
};

// This thread's images, released when it ends.
struct TexturePool {
  std::vector<PooledTexture> textures;
  ~TexturePool() {
    for (const PooledTexture& t : textures) FindDeviceAPI(t.dev.device_type)->Free(t.dev.device_id, t.image);
  }
};
thread_local TexturePool pool;

// (device_type, device_id, dtype code, dtype bits, scope, ndim, shape): an image of shape[0] x shape[1]
// texels of 4 lanes: a free one of this thread at least that large, or a new one.
void AllocNd(TVMArgs args, TVMRetValue* rv) {
  RequireArgCount("device_api.opencl.alloc_nd", args, 7);
  DLDevice dev = MakeDevice(static_cast<int>(args[0].AsInt()), static_cast<int>(args[1].AsInt()));
  DLDataType dtype{static_cast<uint8_t>(args[2].AsInt()), static_cast<uint8_t>(args[3].AsInt()), 1};
  std::string scope = args[4].AsString();
  const auto* shape = static_cast<const int64_t*>(args[6].AsHandle());
  AOTRT_REQUIRE(IsTextureScope(scope) && args[5].AsInt() == 2 && shape && shape[0] > 0 && shape[1] > 0,
                kInvalidArgument, "device_api.opencl.alloc_nd: expected a texture scope and a 2-d texel shape, got "
                "scope '", scope, "' and ", args[5].AsInt(), " dimensions");
  DeviceAPI& api = RequireDevice(dev, "device_api.opencl.alloc_nd");
  PooledTexture* best = nullptr;
  for (PooledTexture& t : pool.textures) {
    bool fits = !t.in_use && t.dev.device_type == dev.device_type && t.dev.device_id == dev.device_id &&
                t.dtype.code == dtype.code && t.dtype.bits == dtype.bits && t.width >= shape[0] && t.height >= shape[1];
    if (fits && (!best || t.width * t.height < best->width * best->height)) best = &t;
  }
  if (!best) {
    const int64_t image_shape[] = {shape[1], shape[0], 4};  // rows, columns, RGBA: "global.texture"'s layout
    void* image = api.AllocTexture(dev.device_id, image_shape, 3, dtype, "global.texture");
    pool.textures.push_back({dev, dtype, shape[0], shape[1], image, false});
    best = &pool.textures.back();
  }
  best->in_use = true;
  rv->SetHandle(best->image);
}

// (device_type, device_id, scope, data): gives an image of alloc_nd back to this thread's pool.
void FreeNd(TVMArgs args, TVMRetValue* rv) {
  RequireArgCount("device_api.opencl.free_nd", args, 4);
  void* image = args[3].AsHandle();
  auto it = std::find_if(pool.textures.begin(), pool.textures.end(),
                         [&](const PooledTexture& t) { return t.image == image && t.in_use; });
  AOTRT_REQUIRE(it != pool.textures.end(), kInvalidArgument,
                "device_api.opencl.free_nd: the image is not one this thread took from alloc_nd, or is already free");
  it->in_use = false;
  rv->SetInt(0);
}

constexpr GlobalDef kDefs[] = {{"device_api.opencl.alloc_nd", AllocNd}, {"device_api.opencl.free_nd", FreeNd}};

}  // namespace

extern const GlobalTable kDeviceGlobals{kDefs};

}  // namespace aotrt
