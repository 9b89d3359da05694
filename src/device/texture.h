// TVM's texture storage (memory scopes "global.texture", "global.texture-weight",
// "global.texture-nhwc", used by Adreno and Mali schedules): a tensor whose last dimension is 4
// (RGBA texels) held as an image2d. Which dimensions become rows and which columns is TVM's rule
// (src/runtime/texture.h): the first `separator` dimensions are the rows, the rest the columns.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

#include "aotrt/dtype.h"
#include "base/error_util.h"

namespace aotrt {

inline bool IsTextureScope(const std::string& scope) { return scope.find("texture") != std::string::npos; }

struct TextureShape {
  size_t width = 1, height = 1;
};

// The image of a tensor of `shape` in `scope`. Throws kInvalidArgument naming `what` for an unknown
// texture scope, a rank under 3, or a last dimension other than 4.
inline TextureShape FlattenToTexture(const int64_t* shape, int ndim, const std::string& scope, const std::string& what) {
  AOTRT_REQUIRE(ndim >= 3 && shape[ndim - 1] == 4, kInvalidArgument, what, ": texture storage (scope '", scope,
                "') holds tensors of rank 3 or more whose last dimension is 4 (RGBA texels), got ",
                ShapeToString(shape, ndim));
  int separator = scope == "global.texture" ? ndim - 2 : scope == "global.texture-weight" ? 1
                : scope == "global.texture-nhwc" ? (ndim == 3 ? 1 : 2) : -1;
  AOTRT_REQUIRE(separator >= 0, kInvalidArgument, what, ": unknown memory scope '", scope,
                "': texture scopes are global.texture, global.texture-weight and global.texture-nhwc");
  TextureShape t;
  for (int i = 0; i < ndim - 1; ++i) (i < separator ? t.height : t.width) *= static_cast<size_t>(shape[i]);
  return t;
}

}  // namespace aotrt
