// NDArray and params-dict binary formats (ABI.md 6.1, 6.2) over dmlc::Stream.
#pragma once

#include <dmlc/io.h>

#include "aotrt/ndarray.h"
#include "base/byte_reader.h"

namespace aotrt {

constexpr uint64_t kNDArrayMagic = 0xDD5E40F096B4A13FULL;
constexpr uint64_t kParamsMagic = 0xF7E58D4F05049CB7ULL;

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

void WriteNDArray(dmlc::Stream* s, const DLTensor& t);
// The header of the NDArray at the reader's position, validated, with its data known to follow in
// full; the reader is left at the data. Throws kFormatError.
NDArrayHeader ReadNDArrayHeader(BoundedReader& r);
NDArray ReadNDArray(BoundedReader& r);
// The NDArray serialized in [data, data + size), without copying its data. Throws kFormatError.
SerializedNDArray ViewSerializedNDArray(const void* data, size_t size);
// The u64-counted list of `names.size()` arrays following a name list (params and factory payload).
void WriteNamedArrays(dmlc::Stream* s, const std::vector<NamedArray>& arrays);

}  // namespace aotrt
