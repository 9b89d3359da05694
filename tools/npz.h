// Reading and writing NumPy .npz files (zip archives of .npy members, as np.savez and
// np.savez_compressed write them: stored or deflated, zip64 or not).
//
// The zip layer is minizip (zlib's contrib/minizip, Debian libminizip-dev): it inflates with zlib
// and reads zip64, so nothing of the format is hand-written here beyond the .npy members (npy.h).
#pragma once

#include <string>
#include <utility>
#include <vector>

#include <aotrt/ndarray.h>

namespace aotrt_cli {

struct NamedTensor {
  std::string name;   // the member name without ".npy", e.g. "data" or "arr_0"
  aotrt::NDArray array;
};

// Every member of `path`, in archive order. Errors (aotrt::Error): kIOError when the file cannot
// be opened, kFormatError naming the file and member for a bad archive, a member that is not
// .npy, a duplicate name, or a member over 4 GiB.
std::vector<NamedTensor> ReadNpz(const std::string& path);

// Write `arrays` (contiguous CPU tensors, borrowed) as NAME.npy members, stored like np.savez.
// kIOError when `path` cannot be written.
void WriteNpz(const std::string& path, const std::vector<std::pair<std::string, const DLTensor*>>& arrays);

// Whether `path` names an .npz file (by its extension).
bool IsNpzPath(const std::string& path);

}  // namespace aotrt_cli
