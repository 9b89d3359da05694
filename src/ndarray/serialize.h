// NDArray and params-dict binary formats (ABI.md 6.1, 6.2) over dmlc::Stream.
#pragma once

#include <dmlc/io.h>

#include <vector>

#include "aotrt/ndarray.h"
#include "aotrt/packed_func.h"
#include "base/byte_reader.h"

namespace aotrt {

struct NDArrayHeader {
  std::vector<int64_t> shape;
  DLDataType dtype;
  size_t bytes;  // of the data that follows
};

// A serialized NDArray in memory, read in place: its header, and its data (header.bytes bytes).
struct SerializedNDArray {
  NDArrayHeader header;
  const void* data;
};

// The params of a factory's payload (ABI.md 6.3): u64 count, the names, the arrays. The reader
// throws kFormatError naming what is wrong (a count that does not match, the param that is bad).
void WriteFactoryParams(dmlc::Stream* s, const std::vector<NamedArray>& params);
std::vector<NamedArray> ReadFactoryParams(BoundedReader& r);
// The NDArray at the reader's position, copied out. Throws kFormatError, through r.Fail.
NDArray ReadNDArray(BoundedReader& r);
// The NDArray serialized in [data, data + size), without copying its data. Throws kFormatError.
SerializedNDArray ViewSerializedNDArray(const void* data, size_t size);

// Params as TVM's Map<String, NDArray> and back (kTypeMismatch for another object), and whole files
// (ndarray/globals.cc): errors name `what` and the path (kNotFound, kIOError).
std::vector<NamedArray> ParamsFromMap(TVMArgValue arg);
ObjectPtr<Object> ParamsToMap(std::vector<NamedArray> params);
std::string ReadFile(const std::string& path, const char* what);
void WriteFile(const std::string& path, const std::string& bytes, const char* what);

}  // namespace aotrt
