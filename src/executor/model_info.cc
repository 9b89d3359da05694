// aotrt/model_info.h: the description every executor gives of its model.
#include "aotrt/model_info.h"

namespace aotrt {

const char* ConstantSourceName(ConstantSource source) {
  switch (source) {
    case ConstantSource::kNone: return "none";
    case ConstantSource::kMappedCache: return "mapped from cache";
    case ConstantSource::kBuiltCache: return "own copy, cache file written";
    case ConstantSource::kPrivateCopy: return "private copy";
  }
  return "unknown";
}

}  // namespace aotrt
