// Reading and writing NumPy .npy files (format versions 1.0, 2.0 and 3.0).
//
// Supported: little-endian (or byte-order-free) C-order arrays of bool, int8..int64, uint8..uint64,
// float16, float32 and float64. Everything else (Fortran order, big-endian, other dtypes, truncated
// data, malformed headers) is an aotrt::Error(kFormatError) naming the file and the problem.
#pragma once

#include <string>

#include <aotrt/ndarray.h>

namespace aotrt_cli {

// Parse .npy bytes; `what` names the source in messages. Returns a new 64-byte aligned array.
aotrt::NDArray ParseNpy(const std::string& bytes, const std::string& what);
// Read a file (kIOError when it cannot be read) and parse it.
aotrt::NDArray ReadNpy(const std::string& path);
// The .npy bytes (version 1.0, or 2.0 for headers over 64 KiB) of a contiguous CPU tensor.
// Throws kFormatError for a dtype .npy cannot express here.
std::string SerializeNpy(const DLTensor& t);
// Write SerializeNpy(t) to `path` (kIOError on failure).
void WriteNpy(const std::string& path, const DLTensor& t);

// Read a whole file; kIOError naming the path and strerror.
std::string ReadFile(const std::string& path);

}  // namespace aotrt_cli
