// Typed calls of packed functions: PackedFunc::operator()(args...), PackedFunc::Call<R>(args...)
// and TVMRetValue::As<T>(). Included by aotrt/packed_func.h; not meant to be included alone.
// Module and NDArray are only declared here (see TVMRetValue::As).
#pragma once

#include <cstdint>
#include <limits>
#include <string>
#include <type_traits>
#include <utility>

#include "aotrt/error.h"
#include "aotrt/packed_func.h"

namespace aotrt {
namespace detail {

template <typename T>
inline constexpr bool kAlwaysFalse = false;

// Object arguments and results, defined in src/module/typed_call.cc.
AOTRT_API void PackObjectArg(TVMValue* v, int* code, const NDArray& x);
AOTRT_API void PackObjectArg(TVMValue* v, int* code, const Module& x);
AOTRT_API void PackObjectArg(TVMValue* v, int* code, const PackedFunc& x);
AOTRT_API int64_t RetAsInt(const TVMRetValue& rv);
AOTRT_API double RetAsFloat(const TVMRetValue& rv);
AOTRT_API bool RetAsBool(const TVMRetValue& rv);
AOTRT_API std::string RetAsString(const TVMRetValue& rv);
AOTRT_API void* RetAsHandle(const TVMRetValue& rv);
[[noreturn]] AOTRT_API void ThrowIntegerRange(int64_t v, int64_t lo, uint64_t hi);
template <typename T>
T RetAsObject(const TVMRetValue& rv);
template <>
AOTRT_API Module RetAsObject<Module>(const TVMRetValue& rv);
template <>
AOTRT_API NDArray RetAsObject<NDArray>(const TVMRetValue& rv);
template <>
AOTRT_API PackedFunc RetAsObject<PackedFunc>(const TVMRetValue& rv);

template <typename T>
void PackArg(TVMValue* v, int* code, const T& x) {
  using D = std::decay_t<T>;
  if constexpr (std::is_same_v<D, bool>) {
    v->v_int64 = x ? 1 : 0, *code = kTVMArgInt;  // TVM passes bool as int
  } else if constexpr (std::is_integral_v<D> || std::is_enum_v<D>) {
    v->v_int64 = static_cast<int64_t>(x), *code = kTVMArgInt;
  } else if constexpr (std::is_floating_point_v<D>) {
    v->v_float64 = static_cast<double>(x), *code = kTVMArgFloat;
  } else if constexpr (std::is_same_v<D, std::nullptr_t>) {
    v->v_handle = nullptr, *code = kTVMNullptr;
  } else if constexpr (std::is_same_v<D, std::string>) {
    v->v_str = x.c_str(), *code = kTVMStr;
  } else if constexpr (std::is_same_v<D, const char*> || std::is_same_v<D, char*>) {
    const char* s = x;  // also a string literal (an array)
    v->v_str = s, *code = s ? kTVMStr : kTVMNullptr;
  } else if constexpr (std::is_same_v<D, DLDevice>) {
    v->v_device = x, *code = kDLDevice;
  } else if constexpr (std::is_same_v<D, DLDataType>) {
    v->v_type = x, *code = kTVMDataType;
  } else if constexpr (std::is_same_v<D, DLTensor*> || std::is_same_v<D, const DLTensor*>) {
    v->v_handle = const_cast<DLTensor*>(x), *code = x ? kTVMDLTensorHandle : kTVMNullptr;
  } else if constexpr (std::is_same_v<D, void*>) {
    v->v_handle = x, *code = x ? kTVMOpaqueHandle : kTVMNullptr;
  } else if constexpr (std::is_same_v<D, NDArray> || std::is_same_v<D, Module> || std::is_same_v<D, PackedFunc>) {
    PackObjectArg(v, code, x);
  } else {
    static_assert(kAlwaysFalse<D>, "PackedFunc argument: unsupported type (see PackedFunc::operator())");
  }
}

}  // namespace detail

template <typename T>
T TVMRetValue::As() const {
  if constexpr (std::is_same_v<T, bool>) {
    return detail::RetAsBool(*this);
  } else if constexpr (std::is_integral_v<T>) {
    int64_t v = detail::RetAsInt(*this);
    using L = std::numeric_limits<T>;
    if constexpr (std::is_signed_v<T>) {
      if (v < static_cast<int64_t>(L::min()) || v > static_cast<int64_t>(L::max())) {
        detail::ThrowIntegerRange(v, static_cast<int64_t>(L::min()), static_cast<uint64_t>(L::max()));
      }
    } else if (v < 0 || static_cast<uint64_t>(v) > static_cast<uint64_t>(L::max())) {
      detail::ThrowIntegerRange(v, 0, static_cast<uint64_t>(L::max()));
    }
    return static_cast<T>(v);
  } else if constexpr (std::is_floating_point_v<T>) {
    return static_cast<T>(detail::RetAsFloat(*this));
  } else if constexpr (std::is_same_v<T, std::string>) {
    return detail::RetAsString(*this);
  } else if constexpr (std::is_same_v<T, void*>) {
    return detail::RetAsHandle(*this);
  } else if constexpr (std::is_same_v<T, Module> || std::is_same_v<T, NDArray> || std::is_same_v<T, PackedFunc>) {
    return detail::RetAsObject<T>(*this);
  } else {
    static_assert(detail::kAlwaysFalse<T>, "TVMRetValue::As: unsupported result type");
  }
}

template <typename... Args>
TVMRetValue PackedFunc::operator()(Args&&... args) const {
  if (!obj_) ThrowUndefined();
  constexpr int kNum = static_cast<int>(sizeof...(Args));
  TVMValue values[kNum > 0 ? kNum : 1];
  int codes[kNum > 0 ? kNum : 1];
  int i = 0;
  ((detail::PackArg(&values[i], &codes[i], args), ++i), ...);
  (void)i;
  TVMRetValue rv;
  obj_->Call(TVMArgs(values, codes, kNum), &rv);
  return rv;
}

template <typename R, typename... Args>
R PackedFunc::Call(Args&&... args) const {
  if constexpr (std::is_void_v<R>) {
    (*this)(std::forward<Args>(args)...);
  } else {
    return (*this)(std::forward<Args>(args)...).template As<R>();
  }
}

}  // namespace aotrt
