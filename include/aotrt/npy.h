// Reading and writing NumPy .npy and .npz files: a library of its own, aotrt::aotrt_npy (how to
// link it: README, "One-call inference, data files, serving many requests").
//
// Supported: .npy format versions 1.0, 2.0 and 3.0; little-endian (or byte-order-free) C-order
// arrays of bool, int8..int64, uint8..uint64, float16, float32 and float64. Everything else
// (Fortran order, big-endian, other dtypes, truncated data, malformed headers) is an
// aotrt::Error(kFormatError) naming the file and the problem. .npz: zip archives of .npy members
// as np.savez and np.savez_compressed write them (stored or deflated, zip64 or not).
// Ownership: arrays returned are new, 64-byte aligned CPU arrays owned by the caller; tensors
// passed in are borrowed for the call. Thread-safety: every function may be called from any
// thread; concurrent writes to the same path are the caller's to avoid.
#pragma once

#include <string>
#include <utility>
#include <vector>

#include "aotrt/export.h"
#include "aotrt/ndarray.h"

namespace aotrt {

// Parse .npy bytes; `what` names the source in messages. Throws kFormatError.
AOTRT_API NDArray ParseNpy(const std::string& bytes, const std::string& what);
// Read a file and parse it. Throws kIOError (cannot be read, naming the path and the reason) or
// kFormatError.
AOTRT_API NDArray ReadNpy(const std::string& path);
// The .npy bytes (version 1.0, or 2.0 for headers over 64 KiB) of a contiguous CPU tensor.
// Throws kFormatError for a dtype .npy cannot express here, kInvalidArgument for a tensor that
// is not CPU or not contiguous.
AOTRT_API std::string SerializeNpy(const DLTensor& t);
// Write SerializeNpy(t) to `path`, replacing it. Throws as SerializeNpy, and kIOError.
AOTRT_API void WriteNpy(const std::string& path, const DLTensor& t);

// Every member of the .npz at `path`, in archive order, named without ".npy" ("arr_0", "data").
// Throws kIOError when the file cannot be opened, kFormatError naming the file and member for a
// bad archive, a member that is not .npy, a duplicate name, or a member over 4 GiB.
AOTRT_API std::vector<NamedArray> ReadNpz(const std::string& path);
// Write `arrays` (contiguous CPU tensors, borrowed) as NAME.npy members, stored (not
// compressed) like np.savez. Throws kIOError when `path` cannot be written, as SerializeNpy.
AOTRT_API void WriteNpz(const std::string& path, const std::vector<std::pair<std::string, const DLTensor*>>& arrays);

}  // namespace aotrt
