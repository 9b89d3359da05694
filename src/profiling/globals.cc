#include "ffi/registry.h"

namespace aotrt {
void RegisterProfilingGlobals(Registry&) {}
}  // namespace aotrt
