// The command line's view of the .npz helpers: the public ones (aotrt/npy.h), plus IsNpzPath.
#pragma once

#include <string>

#include <aotrt/npy.h>

namespace aotrt_cli {

using NamedTensor = aotrt::NamedArray;
using aotrt::ReadNpz;
using aotrt::WriteNpz;

// Whether `path` names an .npz file (by its extension).
bool IsNpzPath(const std::string& path);

}  // namespace aotrt_cli
