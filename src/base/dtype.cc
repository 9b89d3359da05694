// Data type and shape helpers.
#include <cstring>
#include <limits>

#include "aotrt/dtype.h"
#include "base/error_util.h"

namespace aotrt {

std::string DataTypeToString(DLDataType t) {
  if (t.code == kDLUInt && t.bits == 1 && t.lanes == 1) return "bool";
  if (t.code == kDLOpaqueHandle && t.bits == 0 && t.lanes == 0) return "void";
  if (t.code == 6 || t.code == 7) return t.code == 6 ? "e4m3_float8" : "e5m2_float8";
  static const char* const kNames[] = {"int", "uint", "float", "handle", "bfloat"};  // by code: kDLInt ..
  static_assert(kDLInt == 0 && kDLUInt == 1 && kDLFloat == 2 && kDLOpaqueHandle == 3 && kDLBfloat == 4);
  std::string s = t.code <= kDLBfloat ? kNames[t.code] : StrCat("custom[", static_cast<int>(t.code), "]");
  s += std::to_string(t.bits);
  if (t.lanes != 1) s += "x" + std::to_string(t.lanes);
  return s;
}

DLDataType DataTypeFromString(const std::string& str) {
  if (str == "bool") return DLDataType{kDLUInt, 1, 1};
  if (str == "handle") return DLDataType{kDLOpaqueHandle, 64, 1};
  struct Prefix { const char* name; uint8_t code; };
  static const Prefix kPrefixes[] = {{"uint", kDLUInt}, {"int", kDLInt}, {"float", kDLFloat},
                                     {"bfloat", kDLBfloat}, {"handle", kDLOpaqueHandle}};
  for (const Prefix& p : kPrefixes) {
    size_t n = std::char_traits<char>::length(p.name);
    if (str.compare(0, n, p.name) != 0) continue;
    size_t pos = n;
    auto number = [&](const char* what) {
      size_t start = pos;
      unsigned long v = 0;
      while (pos < str.size() && str[pos] >= '0' && str[pos] <= '9' && pos - start < 6) v = v * 10 + (str[pos++] - '0');
      if (pos == start) AOTRT_THROW(kInvalidArgument, "invalid dtype '", str, "': missing ", what);
      return v;
    };
    // As TVM reads it: "float", "int", "uint" are 32 bits wide, "bfloat" 16.
    bool sized = pos < str.size() && str[pos] >= '0' && str[pos] <= '9';
    unsigned long bits = sized ? number("bit width") : p.code == kDLBfloat ? 16 : 32;
    unsigned long lanes = 1;
    if (pos < str.size() && str[pos] == 'x') {
      ++pos;
      lanes = number("lane count");
    }
    if (pos != str.size() || bits == 0 || bits > 255 || lanes == 0 || lanes > 65535) break;
    // TVM's widths: int/uint 1, 4, 8 .. 64; float 16, 32, 64; bfloat 16 ("float33" is no type).
    bool power = bits >= (p.code == kDLFloat ? 16u : 1u) && bits <= 64 && (bits & (bits - 1)) == 0 && bits != 2;
    if (p.code != kDLOpaqueHandle && (p.code == kDLBfloat ? bits != 16 : !power)) break;
    return DLDataType{p.code, static_cast<uint8_t>(bits), static_cast<uint16_t>(lanes)};
  }
  AOTRT_THROW(kInvalidArgument, "invalid dtype '", str, "': expected int or uint of 1, 4, 8, 16, 32 or 64 bits, float of 16, 32 or 64, bfloat16 or bool, ",
              "with lanes as in float32x4");
}

bool DataTypeEqual(DLDataType a, DLDataType b) {
  return a.code == b.code && a.bits == b.bits && a.lanes == b.lanes;
}

size_t DataTypeBytes(DLDataType t) { return (static_cast<size_t>(t.bits) * t.lanes + 7) / 8; }

std::string ShapeToString(const int64_t* shape, int ndim) {
  if (ndim < 0 || ndim > kMaxNdim || (ndim > 0 && !shape)) return StrCat("[? (ndim ", ndim, ")]");
  std::string s = "[";
  for (int i = 0; i < ndim; ++i) {
    if (i) s += ", ";
    s += std::to_string(shape[i]);
  }
  return s + "]";
}

int64_t ShapeElements(const int64_t* shape, int ndim) {
  constexpr int64_t kMax = int64_t{1} << 62;
  int64_t n = 1;
  for (int i = 0; i < ndim; ++i) {
    AOTRT_REQUIRE(shape[i] >= 0, kShapeMismatch, "negative dimension ", shape[i], " in shape ", ShapeToString(shape, ndim));
    if (shape[i] != 0 && n > kMax / shape[i]) {
      AOTRT_THROW(kShapeMismatch, "shape ", ShapeToString(shape, ndim), " has too many elements");
    }
    n *= shape[i];
  }
  return n;
}

int DeviceTypeOf(const DLDevice& device) {
  int32_t v;
  std::memcpy(&v, &device.device_type, sizeof(v));
  return v;
}

namespace {

void RequireShape(const DLTensor& t, const char* what) {
  AOTRT_REQUIRE(t.ndim >= 0 && t.ndim <= kMaxNdim, kInvalidArgument, what, ": ndim ", t.ndim, " is outside [0, ",
                kMaxNdim, "]");
  AOTRT_REQUIRE(t.ndim == 0 || t.shape, kInvalidArgument, what, ": ndim ", t.ndim, " with a null shape pointer");
}

}  // namespace

void ValidateTensorHeader(const DLTensor& t, const char* what) {
  int device_type = DeviceTypeOf(t.device);
  // 15: the largest value DLDeviceType can hold (its enumerators end at 13 in this DLPack).
  AOTRT_REQUIRE(device_type >= kDLCPU && device_type <= 15, kInvalidArgument, what, ": device type ", device_type,
                " is not a DLPack device type");
  RequireShape(t, what);
}

size_t TensorBytes(const DLTensor& t) {
  RequireShape(t, "tensor");
  int64_t n = ShapeElements(t.shape, t.ndim);
  size_t eb = DataTypeBytes(t.dtype);
  AOTRT_REQUIRE(eb == 0 || static_cast<uint64_t>(n) <= std::numeric_limits<uint64_t>::max() / 8 / eb, kShapeMismatch,
                "tensor of shape ", ShapeToString(t.shape, t.ndim), " is too large");
  return static_cast<size_t>(n) * eb;
}

bool IsContiguous(const DLTensor& t) {
  if (!t.strides) return true;
  RequireShape(t, "tensor");
  int64_t expected = 1;
  for (int i = t.ndim - 1; i >= 0; --i) {
    if (t.shape[i] == 1) continue;  // any stride is fine for a unit dimension
    if (t.strides[i] != expected || __builtin_mul_overflow(expected, t.shape[i], &expected)) return false;
  }
  return true;
}

}  // namespace aotrt
