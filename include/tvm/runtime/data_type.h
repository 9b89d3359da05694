// TVM's DataType (tvm/runtime/data_type.h), a value wrapper of DLDataType, and the dtype strings
// (aotrt::DataTypeToString / DataTypeFromString: "float32", "bool", "float32x4", "handle");
// String2DLDataType throws kInvalidArgument on a string it does not parse. Thread-safe.
#pragma once

#include <cstdint>
#include <ostream>
#include <string>

#include <dlpack/dlpack.h>
#include <tvm/runtime/c_runtime_api.h>
#include <tvm/runtime/logging.h>  // and the C++17 check

#include "aotrt/dtype.h"

namespace tvm {
namespace runtime {

using Device = DLDevice;

class DataType {
 public:
  enum TypeCode {
    kInt = kDLInt,
    kUInt = kDLUInt,
    kFloat = kDLFloat,
    kHandle = kTVMOpaqueHandle,
    kBFloat = kDLBfloat,
    kCustomBegin = 129
  };
  DataType() : DataType(Void()) {}
  explicit DataType(DLDataType dtype) : data_(dtype) {}
  DataType(int code, int bits, int lanes)
      : data_{static_cast<uint8_t>(code), static_cast<uint8_t>(bits), static_cast<uint16_t>(lanes)} {}
  int code() const { return data_.code; }
  int bits() const { return data_.bits; }
  int lanes() const { return data_.lanes; }
  int bytes() const { return (bits() + 7) / 8; }
  bool is_scalar() const { return lanes() == 1; }
  bool is_bool() const { return code() == kUInt && bits() == 1; }
  bool is_float() const { return code() == kFloat; }
  bool is_float16() const { return is_float() && bits() == 16; }
  bool is_bfloat16() const { return code() == kBFloat && bits() == 16; }
  bool is_int() const { return code() == kInt; }
  bool is_uint() const { return code() == kUInt; }
  bool is_handle() const { return code() == kHandle && !is_void(); }
  bool is_void() const { return code() == kHandle && bits() == 0 && lanes() == 0; }
  bool is_vector() const { return lanes() > 1; }
  bool is_vector_bool() const { return is_vector() && bits() == 1; }
  DataType with_lanes(int lanes) const { return DataType(code(), bits(), lanes); }
  DataType with_bits(int bits) const { return DataType(code(), bits, lanes()); }
  DataType element_of() const { return with_lanes(1); }
  bool operator==(const DataType& other) const {
    return data_.code == other.data_.code && data_.bits == other.data_.bits && data_.lanes == other.data_.lanes;
  }
  bool operator!=(const DataType& other) const { return !(*this == other); }
  operator DLDataType() const { return data_; }  // NOLINT(*)

  static DataType Int(int bits, int lanes = 1) { return DataType(kInt, bits, lanes); }
  static DataType UInt(int bits, int lanes = 1) { return DataType(kUInt, bits, lanes); }
  static DataType Float(int bits, int lanes = 1) { return DataType(kFloat, bits, lanes); }
  static DataType BFloat(int bits, int lanes = 1) { return DataType(kBFloat, bits, lanes); }
  static DataType Bool(int lanes = 1) { return UInt(1, lanes); }
  static DataType Handle(int bits = 64, int lanes = 1) { return DataType(kHandle, bits, lanes); }
  static DataType Void() { return DataType(kHandle, 0, 0); }
  static DataType ShapeIndex() { return Int(64); }

 private:
  DLDataType data_;
};

inline int GetVectorBytes(DataType dtype) { return dtype.bytes() * dtype.lanes(); }
inline bool TypeMatch(DLDataType t, int code, int bits, int lanes = 1) { return DataType(t) == DataType(code, bits, lanes); }
inline bool TypeEqual(DLDataType lhs, DLDataType rhs) { return aotrt::DataTypeEqual(lhs, rhs); }
inline std::string DLDataType2String(DLDataType t) { return aotrt::DataTypeToString(t); }
inline DLDataType String2DLDataType(const std::string& s) { return aotrt::DataTypeFromString(s); }
inline const char* DLDataTypeCode2Str(DLDataTypeCode code) {
  static const char* const kNames[] = {"int", "uint", "float", "handle", "bfloat"};  // by code, kDLInt on
  return static_cast<unsigned>(code) <= kDLBfloat ? kNames[code] : "unknown";
}
inline std::ostream& operator<<(std::ostream& os, DLDataType t) { return os << DLDataType2String(t); }
inline std::ostream& operator<<(std::ostream& os, const DataType& t) { return os << DLDataType2String(t); }

}  // namespace runtime
using runtime::DataType;
using runtime::Device;
}  // namespace tvm
