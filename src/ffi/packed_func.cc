// Argument conversion and owned return values of packed functions.
#include "aotrt/packed_func.h"

#include "aotrt/container.h"
#include "aotrt/dtype.h"
#include "base/error_util.h"
#include "ffi/handle.h"

namespace aotrt {

PackedFunc PackedFunc::Missing(std::string what) {
  PackedFunc f;
  f.missing_ = MakeObject<StringObj>(std::move(what));
  return f;
}

void PackedFunc::ThrowUndefined() const {
  AOTRT_REQUIRE(!missing_, kNotFound, "calling a function a lookup did not find: ",
                static_cast<StringObj*>(missing_.get())->value);
  AOTRT_THROW(kInvalidArgument, "calling an undefined PackedFunc (default-constructed, or a lookup that found "
              "nothing)");
}

const char* TypeCodeName(int code) {
  static const char* const kNames[] = {  // by code, from kTVMArgInt (0) to kTVMArgBool (15)
      "int",    "uint",   "float",      "handle", "null",  "DLDataType", "DLDevice",        "DLTensor*",
      "Object", "Module", "PackedFunc", "str",    "bytes", "NDArray",    "ObjectRValueRef", "bool"};
  static_assert(sizeof(kNames) / sizeof(kNames[0]) == kTVMArgBool + 1, "a name per type code");
  return code >= 0 && code <= kTVMArgBool ? kNames[code] : "unknown type code";
}

void ThrowMissingArgument(int index, int num) {
  AOTRT_THROW(kInvalidArgument, "argument ", index, " is required but the call passed ", num, " argument",
              num == 1 ? "" : "s");
}

std::string TVMArgValue::Where() const { return index_ < 0 ? "result" : StrCat("argument ", index_); }

void TVMArgValue::Mismatch(const char* expected) const {
  AOTRT_THROW(kTypeMismatch, Where(), ": expected ", expected, ", got ", TypeCodeName(code_),
              " (type code ", code_, ")");
}

int64_t TVMArgValue::AsInt() const {
  if (code_ != kTVMArgInt && code_ != kTVMArgBool) Mismatch("int");
  return value_.v_int64;
}

double TVMArgValue::AsFloat() const {
  if (code_ == kTVMArgFloat) return value_.v_float64;
  if (code_ == kTVMArgInt || code_ == kTVMArgBool) return static_cast<double>(value_.v_int64);
  Mismatch("float");
}

std::string TVMArgValue::AsString() const {
  if (code_ == kTVMObjectHandle || code_ == kTVMObjectRValueRefArg) {
    return static_cast<StringObj*>(AsObjectOf(kTypeString, "str"))->value;
  }
  if (code_ == kTVMStr) {
    if (!value_.v_str) Mismatch("str (not a null pointer)");
    return value_.v_str;
  }
  if (code_ == kTVMBytes) {
    auto* b = static_cast<const TVMByteArray*>(value_.v_handle);
    if (!b || (!b->data && b->size)) Mismatch("bytes (not a null pointer)");
    return std::string(b->data, b->size);
  }
  Mismatch("str");
}

DLDevice TVMArgValue::AsDevice() const {
  if (code_ != kDLDevice) Mismatch("DLDevice");
  int type = DeviceTypeOf(value_.v_device);
  AOTRT_REQUIRE(type >= kDLCPU && type <= 15, kInvalidArgument, Where(), ": device type ", type,
                " is not a DLPack device type");
  return value_.v_device;
}

DLDataType TVMArgValue::AsDataType() const {
  if (code_ == kTVMDataType) return value_.v_type;
  if (code_ == kTVMStr) return DataTypeFromString(AsString());
  Mismatch("DLDataType or dtype string");
}

void* TVMArgValue::AsHandle() const {
  if (code_ == kTVMOpaqueHandle || code_ == kTVMNullptr) return value_.v_handle;
  Mismatch("handle");
}

DLTensor* TVMArgValue::AsDLTensor() const {
  if (code_ != kTVMDLTensorHandle && code_ != kTVMNDArrayHandle && code_ != kTVMOpaqueHandle) {
    Mismatch("a tensor (DLTensor* or NDArray)");
  }
  if (!value_.v_handle) AOTRT_THROW(kInvalidArgument, Where(), ": tensor handle is null");
  auto* t = static_cast<DLTensor*>(value_.v_handle);
  ValidateTensorHeader(*t, Where().c_str());
  return t;
}

ObjectPtr<Object> TVMArgValue::AsObject() const {
  switch (code_) {
    case kTVMNullptr: return nullptr;
    case kTVMStr:
    case kTVMBytes: return MakeObject<StringObj>(AsString());
    case kTVMObjectHandle:
    case kTVMModuleHandle:
    case kTVMPackedFuncHandle:
    case kTVMNDArrayHandle: return ObjectPtr<Object>(ObjectFromValue(value_.v_handle, code_, Where().c_str()));
    case kTVMObjectRValueRefArg: {
      auto** slot = static_cast<Object**>(value_.v_handle);
      return ObjectPtr<Object>(slot ? *slot : nullptr);
    }
    default: Mismatch("Object");
  }
}

Object* TVMArgValue::AsObjectOf(uint32_t type_index, const char* what) const {
  void* handle = code_ == kTVMObjectRValueRefArg && value_.v_handle ? *static_cast<void**>(value_.v_handle)
                                                                     : value_.v_handle;
  if ((code_ != kTVMObjectHandle && code_ != kTVMObjectRValueRefArg) || !handle) Mismatch(what);
  Object* obj = ObjectFromHandle(handle, kTypeObject, Where().c_str());
  if (obj->type_index() != type_index) Mismatch(what);
  return obj;
}

ObjectPtr<PackedFuncObj> TVMArgValue::AsFunction() const {
  if (code_ == kTVMNullptr) return nullptr;
  if (code_ != kTVMPackedFuncHandle) Mismatch("PackedFunc");
  if (!value_.v_handle) return nullptr;
  return ObjectPtr<PackedFuncObj>(
      static_cast<PackedFuncObj*>(ObjectFromHandle(value_.v_handle, kTypePackedFunc, Where().c_str())));
}

void TVMRetValue::Clear() {
  if (object_) object_->DecRef();
  delete str_;
  Release();
}

const std::string& TVMRetValue::str() const {
  static const std::string kEmpty;
  return str_ ? *str_ : kEmpty;
}

namespace {
// A TVMValue with `field` set to `v`.
template <typename T>
TVMValue Pod(T TVMValue::*field, T v) {
  TVMValue value;
  value.*field = v;
  return value;
}
}  // namespace

void TVMRetValue::SetInt(int64_t v) { SetFromC(Pod(&TVMValue::v_int64, v), kTVMArgInt); }
void TVMRetValue::SetFloat(double v) { SetFromC(Pod(&TVMValue::v_float64, v), kTVMArgFloat); }
void TVMRetValue::SetHandle(void* v) { SetFromC(Pod(&TVMValue::v_handle, v), v ? kTVMOpaqueHandle : kTVMNullptr); }
void TVMRetValue::SetDevice(DLDevice v) { SetFromC(Pod(&TVMValue::v_device, v), kDLDevice); }
void TVMRetValue::SetDataType(DLDataType v) { SetFromC(Pod(&TVMValue::v_type, v), kTVMDataType); }

void TVMRetValue::SetText(int code, std::string v) {
  Clear();
  str_ = new std::string(std::move(v));
  code_ = code;
}

void TVMRetValue::SetString(std::string v) { SetText(kTVMStr, std::move(v)); }

void TVMRetValue::SetBytes(std::string v) { SetText(kTVMBytes, std::move(v)); }

void TVMRetValue::SetObject(ObjectPtr<Object> obj, int code) {
  Clear();
  if (!obj) return;
  object_ = obj.release();
  code_ = code;
  value_.v_handle = code == kTVMNDArrayHandle ? static_cast<void*>(&static_cast<TensorObj*>(object_)->dl_tensor)
                                               : static_cast<void*>(object_);
}

void TVMRetValue::SetObject(ObjectPtr<Object> obj) {
  uint32_t t = obj ? obj->type_index() : kTypeObject;
  SetObject(std::move(obj), t == kTypeModule        ? kTVMModuleHandle
                            : t == kTypePackedFunc  ? kTVMPackedFuncHandle
                            : t == kTypeNDArray     ? kTVMNDArrayHandle
                                                    : kTVMObjectHandle);
}

void TVMRetValue::SetFromC(TVMValue value, int code) {
  switch (code) {
    case kTVMStr: SetString(value.v_str ? value.v_str : ""); return;
    case kTVMBytes: {
      auto* b = static_cast<const TVMByteArray*>(value.v_handle);
      SetBytes(b ? std::string(b->data, b->size) : std::string());
      return;
    }
    case kTVMNDArrayHandle:
    case kTVMModuleHandle:
    case kTVMPackedFuncHandle:
    case kTVMObjectHandle:
      SetObject(ObjectPtr<Object>(ObjectFromValue(value.v_handle, code, "return value")), code);
      return;
    case kTVMObjectRValueRefArg: {  // moved out of the caller's slot, as TVM does
      auto** slot = static_cast<Object**>(value.v_handle);
      ObjectPtr<Object> obj = ObjectPtr<Object>::Adopt(slot ? *slot : nullptr);
      if (slot) *slot = nullptr;
      SetObject(std::move(obj));
      return;
    }
    default:  // a plain value (int, bool, float, handle, null, DLDataType, DLDevice, DLTensor*), copied
      AOTRT_REQUIRE(code == kTVMArgBool || (code >= kTVMArgInt && code <= kTVMDLTensorHandle && code != kDLUInt),
                    kTypeMismatch, "cannot return a value of type code ", code, " (", TypeCodeName(code), ")");
      Clear();
      code_ = code;
      value_ = value;
  }
}

void TVMRetValue::MoveToC(TVMValue* value, int* code) {
  if (code_ != kTVMStr && code_ != kTVMBytes && code_ != kTVMDataType) {
    *value = value_;
    *code = code_;
    Release();  // ownership goes with the handle
    return;
  }
  // Text, bytes and dtypes (as a string) move to this thread's storage.
  static thread_local std::string t_str;
  static thread_local TVMByteArray t_bytes;
  if (code_ == kTVMDataType) {
    t_str = DataTypeToString(value_.v_type);
  } else {
    t_str.swap(*str_);
  }
  t_bytes = TVMByteArray{t_str.data(), t_str.size()};
  if (code_ == kTVMBytes) {
    value->v_handle = &t_bytes;
  } else {
    value->v_str = t_str.c_str();
  }
  *code = code_ == kTVMBytes ? kTVMBytes : kTVMStr;
  Clear();
}

}  // namespace aotrt
