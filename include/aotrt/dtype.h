// Data type and shape helpers over DLPack's DLDataType and DLTensor (no allocation of tensors).
#pragma once

#include <cstdint>
#include <string>

#include <dlpack/dlpack.h>

#include "aotrt/export.h"

namespace aotrt {

constexpr size_t kAllocAlignment = 64;

// "float32", "int8", "uint1" printed as "bool", "float32x4"; see DataTypeFromString for the inverse.
AOTRT_API std::string DataTypeToString(DLDataType t);
// Parses the forms above plus "handle"; throws Error(kInvalidArgument) on anything else.
AOTRT_API DLDataType DataTypeFromString(const std::string& s);
AOTRT_API bool DataTypeEqual(DLDataType a, DLDataType b);
// Bytes of one element, (bits*lanes+7)/8 as TVM computes it.
AOTRT_API size_t DataTypeBytes(DLDataType t);
// "[1, 3, 64, 64]".
AOTRT_API std::string ShapeToString(const int64_t* shape, int ndim);
// Elements of a shape; throws Error(kShapeMismatch) on a negative dim or overflow past 2^62.
AOTRT_API int64_t ShapeElements(const int64_t* shape, int ndim);
// Byte size of a tensor's data (elements * element bytes). Throws like ShapeElements.
AOTRT_API size_t TensorBytes(const DLTensor& t);
// True when strides are null or describe a compact row-major layout.
AOTRT_API bool IsContiguous(const DLTensor& t);

}  // namespace aotrt
