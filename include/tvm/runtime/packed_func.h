// TVM's packed functions (tvm/runtime/packed_func.h) over aotrt's (aotrt/packed_func.h), with TVM's
// C++ face: PackedFunc (f(args...) takes numbers, strings, DLDevice, DLDataType/DataType,
// DLTensor*, NDArray, Module, PackedFunc, TVMByteArray, any ObjectRef, TVMArgValue and TVMRetValue,
// borrowed for the call), TVMArgs / TVMArgsSetter / CallPacked, TypedPackedFunc<R(Args...)>, and
// TVMArgValue / TVMRetValue converting implicitly to each of those types: another type throws
// kTypeMismatch (e.g. "result: expected Module, got str"). Thread-safety is the wrapped function's.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <string>
#include <type_traits>
#include <utility>

#include <tvm/runtime/c_runtime_api.h>
#include <tvm/runtime/container/adt.h>
#include <tvm/runtime/container/array.h>
#include <tvm/runtime/container/map.h>
#include <tvm/runtime/container/optional.h>
#include <tvm/runtime/container/shape_tuple.h>
#include <tvm/runtime/container/string.h>
#include <tvm/runtime/data_type.h>
#include <tvm/runtime/logging.h>
#include <tvm/runtime/module.h>
#include <tvm/runtime/ndarray.h>
#include <tvm/runtime/object.h>

#include "aotrt/packed_func.h"

namespace tvm {
namespace runtime {

class TVMArgs;
class TVMArgValue;
class TVMRetValue;
template <typename FType>
class TypedPackedFunc;

namespace detail {
template <typename T>
struct IsTypedPackedFunc : std::false_type {};
template <typename F>
struct IsTypedPackedFunc<TypedPackedFunc<F>> : std::true_type {};
template <typename T>
inline constexpr bool kIsObjectRef = std::is_base_of_v<ObjectRef, T>;
// A handle on an object: an ObjectRef, or one of aotrt's NDArray, Module and PackedFunc handles.
template <typename T>
inline constexpr bool kIsHandle = kIsObjectRef<T> || std::is_base_of_v<aotrt::NDArray, T> ||
                                  std::is_base_of_v<aotrt::Module, T> || std::is_base_of_v<aotrt::PackedFunc, T>;
// Conversions between packed values and C++ types (below).
template <typename T>
T ArgAs(const aotrt::TVMArgValue& v);
template <typename T>
T RetAs(const aotrt::TVMRetValue& v);
template <typename T>
void SetRet(aotrt::TVMRetValue* rv, const T& x);
template <typename T>
void PackValue(TVMValue* v, int* code, T&& x);
}  // namespace detail

class PackedFunc : public detail::HandleOf<aotrt::PackedFunc, aotrt::PackedFuncObj> {
 public:
  using HandleOf::HandleOf;
  PackedFunc() = default;
  // A function whose body is `void(TVMArgs args, TVMRetValue* rv)`.
  template <typename TCallable,
            typename = std::enable_if_t<!std::is_base_of_v<aotrt::PackedFunc, std::decay_t<TCallable>> &&
                                        std::is_invocable_v<TCallable&, TVMArgs, TVMRetValue*>>>
  explicit PackedFunc(TCallable body);
  // Throws kInvalidArgument on a null function, and what the function throws.
  template <typename... Args>
  TVMRetValue operator()(Args&&... args) const;
  using aotrt::PackedFunc::CallPacked;  // (TVMArgs, TVMRetValue*)
};

// The implicit conversions TVM's argument and return values offer (each a detail::Get<T>()).
#define TVM_COMPAT_VALUE_CONVERSIONS(Get)                                                   \
  operator double() const { return Get<double>(*this); }                                  \
  operator int64_t() const { return Get<int64_t>(*this); }                                \
  operator uint64_t() const { return Get<uint64_t>(*this); }                              \
  operator int() const { return Get<int>(*this); }                                        \
  operator bool() const { return Get<bool>(*this); }                                      \
  operator void*() const { return Get<void*>(*this); }                                    \
  operator DLTensor*() const { return Get<DLTensor*>(*this); }                            \
  operator DLDevice() const { return Get<DLDevice>(*this); }                              \
  operator DLDataType() const { return Get<DLDataType>(*this); }                          \
  operator DataType() const { return Get<DataType>(*this); }                              \
  operator std::string() const { return Get<std::string>(*this); }                        \
  operator NDArray() const { return Get<NDArray>(*this); }                                \
  operator Module() const { return Get<Module>(*this); }                                  \
  operator PackedFunc() const { return Get<PackedFunc>(*this); }                          \
  template <typename F>                                                                   \
  operator TypedPackedFunc<F>() const {                                                   \
    return Get<TypedPackedFunc<F>>(*this);                                                \
  }                                                                                       \
  template <typename T, typename = std::enable_if_t<detail::kIsObjectRef<T>>>             \
  operator T() const {                                                                    \
    return Get<T>(*this);                                                                 \
  }                                                                                       \
  template <typename T>                                                                   \
  T AsObjectRef() const {                                                                 \
    return Get<T>(*this);                                                                 \
  }

// One borrowed argument.
class TVMArgValue : public aotrt::TVMArgValue {
 public:
  TVMArgValue(const aotrt::TVMArgValue& v) : aotrt::TVMArgValue(v) {}  // NOLINT(*)
  TVMArgValue(TVMValue value, int type_code) : aotrt::TVMArgValue(value, type_code, 0) {}
  TVM_COMPAT_VALUE_CONVERSIONS(detail::ArgAs)
};

// The borrowed argument list of one call (TVM's public fields).
class TVMArgs {
 public:
  const TVMValue* values;
  const int* type_codes;
  int num_args;
  TVMArgs(const TVMValue* values, const int* type_codes, int num_args)
      : values(values), type_codes(type_codes), num_args(num_args) {}
  TVMArgs(const aotrt::TVMArgs& args)  // NOLINT(*)
      : values(args.values()), type_codes(args.type_codes()), num_args(args.size()) {}
  operator aotrt::TVMArgs() const { return aotrt::TVMArgs(values, type_codes, num_args); }  // NOLINT(*)
  int size() const { return num_args; }
  // Throws kInvalidArgument past the end.
  TVMArgValue operator[](int i) const { return aotrt::TVMArgs(*this)[i]; }
};

// An owned return value; unlike aotrt's it is also copyable (objects shared, strings copied).
class TVMRetValue : public aotrt::TVMRetValue {
 public:
  TVMRetValue() = default;
  TVMRetValue(aotrt::TVMRetValue&& other) : aotrt::TVMRetValue(std::move(other)) {}  // NOLINT(*)
  TVMRetValue(TVMRetValue&& other) = default;
  TVMRetValue(const TVMRetValue& other) : aotrt::TVMRetValue() { detail::SetRet(this, other); }
  TVMRetValue& operator=(TVMRetValue&& other) = default;
  TVMRetValue& operator=(const TVMRetValue& other) {
    if (this != &other) detail::SetRet<aotrt::TVMRetValue>(this, other);
    return *this;
  }
  // Any value a PackedFunc may take as an argument.
  template <typename T, typename = std::enable_if_t<!std::is_base_of_v<aotrt::TVMRetValue, std::decay_t<T>>>>
  TVMRetValue& operator=(const T& value) {
    detail::SetRet(this, value);
    return *this;
  }
  TVM_COMPAT_VALUE_CONVERSIONS(detail::RetAs)
};
#undef TVM_COMPAT_VALUE_CONVERSIONS

// Fills a TVMValue array and its type codes: setter(i, value) for the argument types of f(...).
class TVMArgsSetter {
 public:
  TVMArgsSetter(TVMValue* values, int* type_codes) : values_(values), type_codes_(type_codes) {}
  template <typename T>
  void operator()(size_t i, const T& value) const { detail::PackValue(&values_[i], &type_codes_[i], value); }

 private:
  TVMValue* values_;
  int* type_codes_;
};

// A packed function with a C++ signature: calls convert the arguments and the result.
template <typename R, typename... Args>
class TypedPackedFunc<R(Args...)> {
 public:
  using TSelf = TypedPackedFunc<R(Args...)>;
  TypedPackedFunc() = default;
  TypedPackedFunc(std::nullptr_t) {}                                 // NOLINT(*)
  TypedPackedFunc(PackedFunc packed) : packed_(std::move(packed)) {}  // NOLINT(*)
  // Wrap a C++ callable; calls with another number of arguments throw kInvalidArgument naming `name`.
  template <typename F, typename = std::enable_if_t<std::is_invocable_r_v<R, F&, Args...> &&
                                                    !std::is_base_of_v<aotrt::PackedFunc, std::decay_t<F>> &&
                                                    !detail::IsTypedPackedFunc<std::decay_t<F>>::value>>
  TypedPackedFunc(F f, std::string name = "<anonymous>");  // NOLINT(*)
  R operator()(Args... args) const {
    if constexpr (std::is_void_v<R>) {
      packed_(std::forward<Args>(args)...);
    } else {
      return detail::RetAs<R>(packed_(std::forward<Args>(args)...));
    }
  }
  operator PackedFunc() const { return packed_; }  // NOLINT(*)
  const PackedFunc& packed() const { return packed_; }
  bool operator==(std::nullptr_t) const { return !packed_.defined(); }
  bool operator!=(std::nullptr_t) const { return packed_.defined(); }

 private:
  PackedFunc packed_;
};

namespace detail {
// The signature R(Args...) of a function, function pointer, lambda, std::function or TypedPackedFunc
// (as std::function deduces it).
template <typename F>
struct function_signature : function_signature<decltype(std::function(std::declval<F>()))> {};
template <typename R, typename... A>
struct function_signature<std::function<R(A...)>> {
  using FType = R(A...);
};

// The conversions and call bodies, once every class they name is complete.
// A handle type TVM's functions may return as text (profiling::Report from the debug executor's JSON).
template <typename T, typename = void>
struct HasFromJSON : std::false_type {};
template <typename T>
struct HasFromJSON<T, std::void_t<decltype(T::FromJSON(std::string()))>> : std::true_type {};

template <typename T>
T ArgAs(const aotrt::TVMArgValue& v) {
  const int code = v.type_code();
  if constexpr (std::is_base_of_v<aotrt::TVMArgValue, T>) {
    return T(v);
  } else if constexpr (std::is_same_v<T, bool>) {
    return v.AsInt() != 0;
  } else if constexpr (std::is_integral_v<T> || std::is_enum_v<T>) {
    return static_cast<T>(v.AsInt());
  } else if constexpr (std::is_floating_point_v<T>) {
    return static_cast<T>(v.AsFloat());
  } else if constexpr (std::is_same_v<T, std::string>) {
    return v.AsString();
  } else if constexpr (std::is_same_v<T, DLDevice>) {
    return v.AsDevice();
  } else if constexpr (std::is_same_v<T, DLDataType> || std::is_same_v<T, DataType>) {
    return T(v.AsDataType());
  } else if constexpr (std::is_same_v<T, void*>) {
    return code == kTVMDLTensorHandle ? v.value().v_handle : v.AsHandle();
  } else if constexpr (std::is_same_v<T, DLTensor*>) {
    return code == kTVMNullptr ? nullptr : v.AsDLTensor();
  } else if constexpr (std::is_same_v<T, NDArray>) {
    if (code == kTVMNullptr) return NDArray();
    if (aotrt::NDArrayObj* obj = v.AsNDArrayObjOrNull()) return NDArray(ObjectPtr<Object>(obj));
    throw Error(aotrt::ErrorCode::kTypeMismatch, v.Where() + ": expected NDArray, got " + aotrt::TypeCodeName(code));
  } else if constexpr (std::is_same_v<T, Module>) {
    return code == kTVMNullptr ? Module() : Module(aotrt::Module(v.AsModule()));
  } else if constexpr (std::is_same_v<T, PackedFunc>) {
    return PackedFunc(aotrt::PackedFunc(v.AsFunction()));
  } else if constexpr (IsTypedPackedFunc<T>::value) {
    return T(ArgAs<PackedFunc>(v));
  } else if constexpr (kIsObjectRef<T>) {
    return CheckedCast<T>(v.AsObject(), v.Where());
  } else {
    static_assert(aotrt::detail::kAlwaysFalse<T>, "TVMArgValue: no conversion to this type");
  }
}

// A result converts as an argument does (its messages say "result"), and TVM's report JSON to a Report.
template <typename T>
T RetAs(const aotrt::TVMRetValue& rv) {
  if constexpr (HasFromJSON<T>::value) {
    if (rv.type_code() == kTVMStr) return T::FromJSON(rv.str());
  }
  TVMValue v = rv.value();
  int code = rv.type_code();
  TVMByteArray bytes{rv.str().data(), rv.str().size()};
  const bool whole = code == kTVMBytes || (code == kTVMStr && rv.str().find('\0') != std::string::npos);
  if (code == kTVMStr) v.v_str = rv.str().c_str();
  if (whole) v.v_handle = &bytes, code = kTVMBytes;  // bytes, and text holding a NUL, go whole
  return ArgAs<T>(aotrt::TVMArgValue(v, code, -1));
}

template <typename T>
void SetRet(aotrt::TVMRetValue* rv, const T& x) {
  using D = std::decay_t<T>;
  if constexpr (std::is_base_of_v<aotrt::TVMRetValue, D>) {  // a copy: objects shared, strings copied
    const int code = x.type_code();
    if (code == kTVMStr || code == kTVMBytes) {
      code == kTVMStr ? rv->SetString(x.str()) : rv->SetBytes(x.str());
    } else if (x.object()) {
      rv->SetObject(ObjectPtr<Object>(x.object()), code);
    } else {
      rv->SetFromC(x.value(), code);
    }
  } else if constexpr (std::is_base_of_v<aotrt::TVMArgValue, D>) {
    rv->SetFromC(x.value(), x.type_code());
  } else if constexpr (std::is_integral_v<D> || std::is_enum_v<D>) {
    rv->SetInt(static_cast<int64_t>(x));  // bool too, as TVM returns it
  } else if constexpr (std::is_floating_point_v<D>) {
    rv->SetFloat(x);
  } else if constexpr (std::is_same_v<D, std::nullptr_t>) {
    rv->SetNull();
  } else if constexpr (std::is_same_v<D, std::string>) {
    rv->SetString(x);
  } else if constexpr (std::is_same_v<D, const char*> || std::is_same_v<D, char*>) {
    const char* s = x;
    s ? rv->SetString(s) : rv->SetNull();
  } else if constexpr (std::is_same_v<D, DLDevice>) {
    rv->SetDevice(x);
  } else if constexpr (std::is_same_v<D, DLDataType> || std::is_same_v<D, DataType>) {
    rv->SetDataType(x);
  } else if constexpr (std::is_same_v<D, void*>) {
    rv->SetHandle(x);
  } else if constexpr (std::is_same_v<D, TVMByteArray>) {
    rv->SetBytes(std::string(x.data, x.size));
  } else if constexpr (IsTypedPackedFunc<D>::value) {
    SetRet(rv, x.packed());
  } else if constexpr (kIsHandle<D>) {
    rv->SetObject(PtrOf(x));  // with the type code of the object's type
  } else {
    static_assert(aotrt::detail::kAlwaysFalse<D>, "TVMRetValue: cannot hold a value of this type");
  }
}

template <typename T>
void PackValue(TVMValue* v, int* code, T&& x) {
  using D = std::decay_t<T>;
  if constexpr (std::is_base_of_v<aotrt::TVMArgValue, D>) {
    *v = x.value(), *code = x.type_code();
  } else if constexpr (std::is_base_of_v<aotrt::TVMRetValue, D>) {
    const bool text = x.type_code() == kTVMStr || x.type_code() == kTVMBytes;  // bytes pass as str
    text ? (v->v_str = x.str().c_str(), *code = kTVMStr) : (*v = x.value(), *code = x.type_code());
  } else if constexpr (std::is_same_v<D, DataType>) {
    v->v_type = x, *code = kTVMDataType;
  } else if constexpr (std::is_same_v<D, TVMByteArray>) {
    v->v_handle = const_cast<TVMByteArray*>(&x), *code = kTVMBytes;
  } else if constexpr (kIsHandle<D> && !kIsObjectRef<D>) {  // NDArray, Module, PackedFunc
    aotrt::detail::PackObjectArg(v, code, x);
  } else if constexpr (IsTypedPackedFunc<D>::value) {
    PackValue(v, code, x.packed());
  } else if constexpr (kIsObjectRef<D>) {
    Object* p = x.object_ptr().get();
    uint32_t t = p ? p->type_index() : aotrt::kTypeObject;
    // An rvalue is passed as TVM passes it: the address of its reference, which the callee may take.
    const bool rvalue = !std::is_lvalue_reference_v<T>;
    *code = !p ? kTVMNullptr
               : t == aotrt::kTypeNDArray    ? kTVMNDArrayHandle
               : t == aotrt::kTypeModule     ? kTVMModuleHandle
               : t == aotrt::kTypePackedFunc ? kTVMPackedFuncHandle
               : rvalue                      ? kTVMObjectRValueRefArg
                                             : kTVMObjectHandle;
    v->v_handle = t == aotrt::kTypeNDArray           ? &static_cast<aotrt::TensorObj*>(p)->dl_tensor
                  : *code == kTVMObjectRValueRefArg ? const_cast<ObjectPtr<Object>*>(&x.object_ptr())
                                                    : static_cast<void*>(p);
  } else {
    aotrt::detail::PackArg(v, code, x);  // scalars, strings, DLDevice, DLDataType, DLTensor*, void*
  }
}

// Calls `f` with the arguments converted to Args (TypedPackedFunc's body).
template <typename R, typename... Args, typename F, size_t... I>
void TypedCall(const F& f, const TVMArgs& args, TVMRetValue* rv, std::index_sequence<I...>) {
  if constexpr (std::is_void_v<R>) {
    f(ArgAs<std::decay_t<Args>>(args[I])...);
  } else {
    *rv = R(f(ArgAs<std::decay_t<Args>>(args[I])...));
  }
}

}  // namespace detail

template <typename TCallable, typename>
PackedFunc::PackedFunc(TCallable body)
    : HandleOf(aotrt::PackedFunc(aotrt::PackedFuncBody([body](aotrt::TVMArgs args, aotrt::TVMRetValue* rv) mutable {
        TVMRetValue ret;
        body(TVMArgs(args), &ret);
        *rv = std::move(ret);
      }))) {}

template <typename... Args>
TVMRetValue PackedFunc::operator()(Args&&... args) const {
  if (!defined()) ThrowUndefined();  // says what a lookup asked of whom
  constexpr int kNum = static_cast<int>(sizeof...(Args));
  TVMValue values[kNum > 0 ? kNum : 1];
  int codes[kNum > 0 ? kNum : 1];
  int i = 0;
  ((detail::PackValue(&values[i], &codes[i], std::forward<Args>(args)), ++i), ...);
  (void)i;
  TVMRetValue rv;
  object()->Call(aotrt::TVMArgs(values, codes, kNum), &rv);
  return rv;
}

inline PackedFunc Module::GetFunction(const std::string& name, bool query_imports) const {
  return PackedFunc(aotrt::Module::GetFunction(name, query_imports));
}

template <typename R, typename... Args>
template <typename F, typename>
TypedPackedFunc<R(Args...)>::TypedPackedFunc(F f, std::string name)
    : packed_([f, name](TVMArgs args, TVMRetValue* rv) {
        if (args.size() != static_cast<int>(sizeof...(Args))) {
          throw Error(aotrt::ErrorCode::kInvalidArgument,
                      "Function " + name + " expects " + std::to_string(sizeof...(Args)) + " arguments, but " +
                          std::to_string(args.size()) + " were provided.");
        }
        detail::TypedCall<R, Args...>(f, args, rv, std::index_sequence_for<Args...>());
      }) {}

}  // namespace runtime
using runtime::PackedFunc;
using runtime::TVMArgs;
using runtime::TVMArgValue;
using runtime::TVMRetValue;
using runtime::TypedPackedFunc;
}  // namespace tvm
