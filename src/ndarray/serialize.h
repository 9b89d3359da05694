// NDArray and params-dict binary formats (ABI.md 6.1, 6.2) over dmlc::Stream.
#pragma once

#include <dmlc/io.h>

#include "aotrt/ndarray.h"
#include "base/byte_reader.h"

namespace aotrt {

constexpr uint64_t kNDArrayMagic = 0xDD5E40F096B4A13FULL;
constexpr uint64_t kParamsMagic = 0xF7E58D4F05049CB7ULL;

void WriteNDArray(dmlc::Stream* s, const DLTensor& t);
NDArray ReadNDArray(BoundedReader& r);
// The u64-counted list of `names.size()` arrays following a name list (params and factory payload).
void WriteNamedArrays(dmlc::Stream* s, const std::vector<NamedArray>& arrays);

}  // namespace aotrt
