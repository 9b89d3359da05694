// TVM's packed functions (tvm/runtime/packed_func.h) over aotrt's (aotrt/packed_func.h): the same
// function objects and calling convention, with TVM's C++ face:
//   - PackedFunc: a thin subclass of aotrt::PackedFunc. f(args...) takes ints, floats, strings,
//     DLDevice, DLDataType/DataType, DLTensor*, NDArray, Module, PackedFunc, TVMByteArray, any
//     ObjectRef (String, Array, Map, ShapeTuple, ADT), TVMArgValue and TVMRetValue, borrowed for
//     the call; it returns a TVMRetValue.
//   - TVMRetValue / TVMArgValue convert implicitly to int, int64_t, uint64_t, bool, double,
//     std::string, void*, DLTensor*, DLDevice, DLDataType, DataType, NDArray, Module, PackedFunc,
//     TypedPackedFunc and any ObjectRef type. A value of another type throws tvm::runtime::Error
//     (kTypeMismatch, e.g. "result: expected Module, got str") where TVM aborts.
//   - TVMArgs / TVMArgsSetter / CallPacked for the raw convention; TypedPackedFunc<R(Args...)>.
// A function's thread-safety is the wrapped function's; values are owned as in aotrt.
#pragma once

#include <cstddef>
#include <cstdint>
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
// Conversions between packed values and C++ types (packed_func_values.h).
template <typename T>
T ArgAs(const aotrt::TVMArgValue& v);
template <typename T>
T RetAs(const aotrt::TVMRetValue& v);
template <typename T>
void SetRet(aotrt::TVMRetValue* rv, const T& x);
template <typename T>
void PackValue(TVMValue* v, int* code, T&& x);
}  // namespace detail

class PackedFunc : public aotrt::PackedFunc {
 public:
  using ContainerType = aotrt::PackedFuncObj;
  static constexpr bool _type_is_nullable = true;
  PackedFunc() = default;
  PackedFunc(std::nullptr_t) {}                                                 // NOLINT(*)
  PackedFunc(aotrt::PackedFunc other) : aotrt::PackedFunc(std::move(other)) {}  // NOLINT(*)
  explicit PackedFunc(ObjectPtr<Object> p)
      : aotrt::PackedFunc(ObjectPtr<ContainerType>(static_cast<ContainerType*>(p.get()))) {}
  // A function whose body is `void(TVMArgs args, TVMRetValue* rv)`.
  template <typename TCallable,
            typename = std::enable_if_t<!std::is_base_of_v<aotrt::PackedFunc, std::decay_t<TCallable>> &&
                                        std::is_invocable_v<TCallable&, TVMArgs, TVMRetValue*>>>
  explicit PackedFunc(TCallable body);
  // Throws kInvalidArgument on a null function, and what the function throws.
  template <typename... Args>
  TVMRetValue operator()(Args&&... args) const;
  void CallPacked(TVMArgs args, TVMRetValue* rv) const;
  operator ObjectRef() const { return ObjectRef(object()); }  // NOLINT(*)
  bool operator==(std::nullptr_t) const { return !defined(); }
  bool operator!=(std::nullptr_t) const { return defined(); }
  bool same_as(const PackedFunc& other) const { return object() == other.object(); }
  const ContainerType* get() const { return object().get(); }
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
  void operator()(size_t i, const T& value) const {
    detail::PackValue(&values_[i], &type_codes_[i], value);
  }

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
  R operator()(Args... args) const;
  operator PackedFunc() const { return packed_; }  // NOLINT(*)
  const PackedFunc& packed() const { return packed_; }
  bool operator==(std::nullptr_t) const { return !packed_.defined(); }
  bool operator!=(std::nullptr_t) const { return packed_.defined(); }

 private:
  PackedFunc packed_;
};

namespace detail {
// The signature R(Args...) of a function, function pointer, lambda, std::function or TypedPackedFunc.
template <typename F>
struct function_signature : function_signature<decltype(&F::operator())> {};
template <typename R, typename... A>
struct function_signature<R(A...)> {
  using FType = R(A...);
};
template <typename R, typename... A>
struct function_signature<R (*)(A...)> : function_signature<R(A...)> {};
template <typename C, typename R, typename... A>
struct function_signature<R (C::*)(A...) const> : function_signature<R(A...)> {};
template <typename C, typename R, typename... A>
struct function_signature<R (C::*)(A...)> : function_signature<R(A...)> {};
}  // namespace detail

}  // namespace runtime
using runtime::PackedFunc;
using runtime::TVMArgs;
using runtime::TVMArgValue;
using runtime::TVMRetValue;
using runtime::TypedPackedFunc;
}  // namespace tvm

#include <tvm/runtime/packed_func_values.h>
