// Packed functions: the calling convention that crosses every language boundary.
//
// A PackedFunc takes (TVMValue[], type code[], count) and may set one return value. Arguments are
// borrowed for the duration of the call. PackedFunc is a reference to a shared, immutable function
// object: copying it is cheap and calling it is as thread-safe as the function it wraps.
#pragma once

#include <functional>
#include <string>
#include <utility>
#include <vector>

#include <tvm/runtime/c_runtime_api.h>

#include "aotrt/error.h"
#include "aotrt/export.h"
#include "aotrt/object.h"

namespace aotrt {

class Module;
class ModuleNode;
class NDArray;
class NDArrayObj;
class PackedFunc;
class PackedFuncObj;

// Human-readable name of a TVM type code, e.g. "int", "DLTensor*", "str".
AOTRT_API const char* TypeCodeName(int type_code);

// One borrowed argument with checked conversions. Each As* throws Error(kTypeMismatch) naming
// the argument position and the type found when the code does not fit.
class AOTRT_API TVMArgValue {
 public:
  // `index` names it in messages: "argument <index>", or "result" when negative.
  TVMArgValue(TVMValue value, int code, int index) : value_(value), code_(code), index_(index) {}
  int type_code() const { return code_; }
  const TVMValue& value() const { return value_; }
  int64_t AsInt() const;           // kTVMArgInt or kTVMArgBool (TVM v0.18+; 0 or 1)
  double AsFloat() const;          // kTVMArgFloat, kTVMArgInt or kTVMArgBool
  std::string AsString() const;    // kTVMStr, kTVMBytes or a String object
  DLDevice AsDevice() const;       // kDLDevice
  DLDataType AsDataType() const;   // kTVMDataType or a dtype string
  void* AsHandle() const;          // kTVMOpaqueHandle or kTVMNullptr
  // A tensor: kTVMDLTensorHandle, kTVMNDArrayHandle (or kTVMOpaqueHandle). Never null.
  DLTensor* AsDLTensor() const;
  // The NDArray object behind a kTVMNDArrayHandle, or nullptr for any other code (in ndarray/).
  NDArrayObj* AsNDArrayObjOrNull() const;
  // Any object (codes 8, 9, 10, 13, 14; kTVMNullptr gives null). A kTVMStr/kTVMBytes becomes a
  // new String object, as TVM converts strings to ObjectRef.
  ObjectPtr<Object> AsObject() const;
  // The object if it has type index `type_index`; throws kTypeMismatch naming `what` otherwise.
  Object* AsObjectOf(uint32_t type_index, const char* what) const;
  ObjectPtr<ModuleNode> AsModule() const;        // kTVMModuleHandle (defined in module/)
  ObjectPtr<PackedFuncObj> AsFunction() const;   // kTVMPackedFuncHandle (null for kTVMNullptr)
  // kTVMStr or a String object (TVM's String::CanConvertFrom).
  bool IsString() const {
    return code_ == kTVMStr || (code_ == kTVMObjectHandle && value_.v_handle &&
                                static_cast<const Object*>(value_.v_handle)->type_index() == kTypeString);
  }
  bool IsInt() const { return code_ == kTVMArgInt || code_ == kTVMArgBool; }
  std::string Where() const;  // "argument <index>" or "result", for messages

 private:
  [[noreturn]] void Mismatch(const char* expected) const;
  TVMValue value_;
  int code_;
  int index_;
};

// Throws Error(kInvalidArgument): argument `index` was asked of a call that passed `num`.
[[noreturn]] AOTRT_API void ThrowMissingArgument(int index, int num);

// The borrowed argument list of one call. Indexing past the end throws (a caller may pass fewer
// arguments than a function reads).
class TVMArgs {
 public:
  TVMArgs(const TVMValue* values, const int* codes, int num) : values_(values), codes_(codes), num_(num) {}
  int size() const { return num_; }
  TVMArgValue operator[](int i) const {
    if (__builtin_expect(i < 0 || i >= num_, 0)) ThrowMissingArgument(i, num_);
    return TVMArgValue(values_[i], codes_[i], i);
  }
  const TVMValue* values() const { return values_; }
  const int* type_codes() const { return codes_; }

 private:
  const TVMValue* values_;
  const int* codes_;
  int num_;
};

// An owned return value. Holds one reference for object codes and its own copy of strings.
class AOTRT_API TVMRetValue {
 public:
  TVMRetValue() { value_.v_handle = nullptr; }
  TVMRetValue(const TVMRetValue&) = delete;
  TVMRetValue& operator=(const TVMRetValue&) = delete;
  // Moving transfers the reference or string; `other` is left null.
  TVMRetValue(TVMRetValue&& other) noexcept : TVMRetValue() { *this = std::move(other); }
  TVMRetValue& operator=(TVMRetValue&& other) noexcept {
    if (this != &other) {
      Clear();
      value_ = other.value_, code_ = other.code_, object_ = other.object_, str_ = other.str_;
      other.Release();
    }
    return *this;
  }
  ~TVMRetValue() {
    if (object_ || str_) Clear();
  }

  int type_code() const { return code_; }
  const TVMValue& value() const { return value_; }
  const std::string& str() const;  // for kTVMStr and kTVMBytes; empty otherwise

  void Clear();
  void SetNull() { Clear(); }
  void SetInt(int64_t v);
  void SetFloat(double v);
  void SetHandle(void* v);
  void SetDevice(DLDevice v);
  void SetDataType(DLDataType v);
  void SetString(std::string v);
  void SetBytes(std::string v);
  // Take one reference to `obj`; code is kTVMModuleHandle, kTVMPackedFuncHandle, kTVMNDArrayHandle
  // or kTVMObjectHandle.
  void SetObject(ObjectPtr<Object> obj, int code);
  // The same with the code TVM uses for the object's type (9, 10, 13, else 8; null gives kTVMNullptr).
  void SetObject(ObjectPtr<Object> obj);
  // Copy a C value (as TVMCFuncSetReturn does): objects get a new reference, strings are copied.
  void SetFromC(TVMValue value, int code);
  // Hand the value to a C caller: objects are released into the handle (the caller owns it),
  // strings and bytes move to thread-local storage valid until the next call on this thread.
  void MoveToC(TVMValue* value, int* code);
  // The object held, or nullptr when the code is not an object code.
  Object* object() const { return object_; }
  // The value as T (defined in aotrt/packed_func_call.h): int64_t or any integer type (throws
  // kOutOfRange if it does not fit), double/float (from float or int), bool (from int), std::string
  // (str, bytes or String), void* (handle or null), Module, NDArray, PackedFunc (null gives an
  // undefined one). Throws Error(kTypeMismatch) naming the type found, e.g. "result: expected int,
  // got str". Module and NDArray results need aotrt/module.h and aotrt/ndarray.h included.
  template <typename T>
  T As() const;

 private:
  void Release() {
    value_.v_handle = nullptr, code_ = kTVMNullptr, object_ = nullptr, str_ = nullptr;
  }
  void SetText(int code, std::string v);
  TVMValue value_;
  int code_ = kTVMNullptr;
  Object* object_ = nullptr;    // owned reference for object codes
  std::string* str_ = nullptr;  // owned, for kTVMStr and kTVMBytes
};

using PackedFuncBody = std::function<void(TVMArgs args, TVMRetValue* rv)>;

// The function object behind a TVMFunctionHandle.
class AOTRT_API PackedFuncObj : public Object {
 public:
  // A plain function with a context pointer; `keep` owns whatever `ctx` points into.
  using RawFn = void (*)(void* ctx, TVMArgs args, TVMRetValue* rv);

  explicit PackedFuncObj(PackedFuncBody body) : Object(kTypePackedFunc), body_(std::move(body)) {}
  PackedFuncObj(RawFn fn, void* ctx, ObjectPtr<Object> keep)
      : Object(kTypePackedFunc), raw_(fn), ctx_(ctx), keep_(std::move(keep)) {}
  void Call(TVMArgs args, TVMRetValue* rv) const {
    if (raw_) return raw_(ctx_, args, rv);
    body_(args, rv);
  }

 private:
  RawFn raw_ = nullptr;
  void* ctx_ = nullptr;
  ObjectPtr<Object> keep_;
  PackedFuncBody body_;
};

// A reference to a packed function; empty when a lookup found nothing.
class AOTRT_API PackedFunc {
 public:
  PackedFunc() = default;
  explicit PackedFunc(PackedFuncBody body) : obj_(MakeObject<PackedFuncObj>(std::move(body))) {}
  explicit PackedFunc(ObjectPtr<PackedFuncObj> obj) : obj_(std::move(obj)) {}
  PackedFunc(PackedFuncObj::RawFn fn, void* ctx, ObjectPtr<Object> keep)
      : obj_(MakeObject<PackedFuncObj>(fn, ctx, std::move(keep))) {}
  // The empty PackedFunc a failed lookup returns (Module::GetFunction), remembering what was asked of
  // whom (`what`, e.g. "module 'X' has no function 'y': ..."), which calling it throws (kNotFound).
  static PackedFunc Missing(std::string what);
  explicit operator bool() const { return static_cast<bool>(obj_); }
  // False for the empty PackedFunc a failed lookup returns (as Module::defined, NDArray::defined).
  bool defined() const { return static_cast<bool>(obj_); }
  // Throws on an undefined function: ThrowUndefined's error.
  void CallPacked(TVMArgs args, TVMRetValue* rv) const {
    if (__builtin_expect(!obj_, 0)) ThrowUndefined();
    obj_->Call(args, rv);
  }
  // What calling an undefined function throws: kNotFound naming what a lookup asked of whom
  // (Missing), else kInvalidArgument (a default-constructed PackedFunc).
  [[noreturn]] void ThrowUndefined() const;
  // Call with C++ values, as TVM's C++ API does: f(1, 2.5, "name", dev, tensor). Arguments may be
  // integers, floating point, bool, const char* / std::string, DLDevice, DLDataType, DLTensor*,
  // void*, NDArray, Module, PackedFunc or nullptr; they are borrowed for the call only. Returns the
  // owned result (see TVMRetValue::As). Throws Error(kInvalidArgument) if !defined(), and whatever
  // the function throws. Defined in aotrt/packed_func_call.h.
  template <typename... Args>
  TVMRetValue operator()(Args&&... args) const;
  // The same with the result converted: f.Call<int64_t>("x"), or Call<void>(...) to drop it.
  template <typename R, typename... Args>
  R Call(Args&&... args) const;
  const ObjectPtr<PackedFuncObj>& object() const { return obj_; }

 private:
  ObjectPtr<PackedFuncObj> obj_;
  ObjectPtr<Object> missing_;  // undefined ones from Missing: a String, what was asked of whom
};

// The global function registry (TVMFuncGetGlobal and friends). Thread-safe.
// Returns an empty PackedFunc when `name` is not registered.
AOTRT_API PackedFunc GetGlobalFunction(const std::string& name);
// Throws Error(kInvalidArgument) if `name` exists and `override` is false.
AOTRT_API void RegisterGlobalFunction(const std::string& name, PackedFunc f, bool override = false);

}  // namespace aotrt

// The templates of the typed calls, after every class they name is declared.
#include "aotrt/packed_func_call.h"
