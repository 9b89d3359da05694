// The command line's view of the .npy helpers: the public ones (aotrt/npy.h), plus ReadFile.
#pragma once

#include <string>

#include <aotrt/npy.h>

namespace aotrt_cli {

using aotrt::ParseNpy;
using aotrt::ReadNpy;
using aotrt::SerializeNpy;
using aotrt::WriteNpy;

// Read a whole file; kIOError naming the path and strerror.
std::string ReadFile(const std::string& path);

}  // namespace aotrt_cli
