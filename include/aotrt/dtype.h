// Data type and shape helpers over DLPack's DLDataType and DLTensor (no allocation of tensors).
#pragma once

#include <cstdint>
#include <string>

#include <dlpack/dlpack.h>

#include "aotrt/export.h"

namespace aotrt {

constexpr size_t kAllocAlignment = 64;
// Most dimensions a tensor may have (a caller's ndim is checked against it before shape is read).
constexpr int kMaxNdim = 64;

// "float32", "int8", "uint1" printed as "bool", "float32x4"; see DataTypeFromString for the inverse.
AOTRT_API std::string DataTypeToString(DLDataType t);
// Parses the forms above plus "handle"; throws Error(kInvalidArgument) on anything else.
AOTRT_API DLDataType DataTypeFromString(const std::string& s);
AOTRT_API bool DataTypeEqual(DLDataType a, DLDataType b);
// Bytes of one element, (bits*lanes+7)/8 as TVM computes it.
AOTRT_API size_t DataTypeBytes(DLDataType t);
// "[1, 3, 64, 64]". Reads no shape entry when ndim is outside [0, kMaxNdim] or shape is null.
AOTRT_API std::string ShapeToString(const int64_t* shape, int ndim);
// The device type as an integer, read without loading the enum: a caller's value may lie outside it.
AOTRT_API int DeviceTypeOf(const DLDevice& device);
// Throws Error(kInvalidArgument) naming `what` unless the device type is one of DLPack's and ndim
// is in [0, kMaxNdim] with a non-null shape (when ndim > 0). Reads no shape entry.
AOTRT_API void ValidateTensorHeader(const DLTensor& t, const char* what);
// Elements of a shape; throws Error(kShapeMismatch) on a negative dim or overflow past 2^62.
AOTRT_API int64_t ShapeElements(const int64_t* shape, int ndim);
// Byte size of a tensor's data (elements * element bytes). Throws like ShapeElements, and
// kInvalidArgument for ndim outside [0, kMaxNdim] or a null shape.
AOTRT_API size_t TensorBytes(const DLTensor& t);
// True when strides are null or describe a compact row-major layout (false when the products
// overflow). Throws like TensorBytes.
AOTRT_API bool IsContiguous(const DLTensor& t);

}  // namespace aotrt
