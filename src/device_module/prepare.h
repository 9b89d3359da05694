// Readying the device code of a module tree for a device before its first run.
#pragma once

#include <dlpack/dlpack.h>

#include "aotrt/module.h"

namespace aotrt {

// Builds the kernels of every device module under `root` (itself and its imports) for `device`
// (OpenCL: each kernel's program, from the program cache where it is there), so that no run builds
// one. Throws as a kernel's first launch would (a build error with its log, kNotFound device).
void PrepareDeviceModules(ModuleNode* root, DLDevice device);

}  // namespace aotrt
