// The conversions behind tvm/runtime/packed_func.h: packed values to and from C++ types, and the
// bodies of PackedFunc's and TypedPackedFunc's calls. Included by packed_func.h (not TVM's).
#pragma once

#include <string>
#include <type_traits>
#include <utility>

#include <tvm/runtime/packed_func.h>

namespace tvm {
namespace runtime {
namespace detail {

template <typename T>
inline constexpr bool kAlwaysFalse = false;
// A handle type TVM's functions may return as text (profiling::Report from the debug executor's JSON).
template <typename T, typename = void>
struct HasFromJSON : std::false_type {};
template <typename T>
struct HasFromJSON<T, std::void_t<decltype(T::FromJSON(std::string()))>> : std::true_type {};

[[noreturn]] inline void ThrowValueMismatch(const char* where, const char* expected, int code) {
  throw Error(aotrt::ErrorCode::kTypeMismatch, std::string(where) + ": expected " + expected + ", got " +
                                                   aotrt::TypeCodeName(code));
}

// `p` as the handle type T, checking the object's type (null only for nullable T).
template <typename T>
T ObjectAs(ObjectPtr<Object> p, const char* where) {
  using Node = typename T::ContainerType;
  if (p ? !IsInstance<Node>(p.get()) : !T::_type_is_nullable) {
    ThrowTypeMismatch(where, p.get(), TypeIndexOf<Node>());
  }
  return T(std::move(p));
}

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
    ThrowValueMismatch("argument", "NDArray", code);
  } else if constexpr (std::is_same_v<T, Module>) {
    return code == kTVMNullptr ? Module() : Module(aotrt::Module(v.AsModule()));
  } else if constexpr (std::is_same_v<T, PackedFunc>) {
    return PackedFunc(aotrt::PackedFunc(v.AsFunction()));
  } else if constexpr (IsTypedPackedFunc<T>::value) {
    return T(ArgAs<PackedFunc>(v));
  } else if constexpr (kIsObjectRef<T>) {
    return ObjectAs<T>(v.AsObject(), "argument");
  } else {
    static_assert(kAlwaysFalse<T>, "TVMArgValue: no conversion to this type");
  }
}

template <typename T>
T RetAs(const aotrt::TVMRetValue& rv) {
  const int code = rv.type_code();
  if constexpr (std::is_enum_v<T>) {
    return static_cast<T>(rv.As<int64_t>());
  } else if constexpr (std::is_arithmetic_v<T> || std::is_same_v<T, std::string> || std::is_same_v<T, void*>) {
    return rv.As<T>();
  } else if constexpr (std::is_same_v<T, DLDevice>) {
    if (code != kDLDevice) ThrowValueMismatch("result", "DLDevice", code);
    return rv.value().v_device;
  } else if constexpr (std::is_same_v<T, DLDataType> || std::is_same_v<T, DataType>) {
    if (code == kTVMStr) return T(aotrt::DataTypeFromString(rv.str()));
    if (code != kTVMDataType) ThrowValueMismatch("result", "DLDataType", code);
    return T(rv.value().v_type);
  } else if constexpr (std::is_same_v<T, DLTensor*>) {
    if (code != kTVMDLTensorHandle && code != kTVMNDArrayHandle && code != kTVMNullptr) {
      ThrowValueMismatch("result", "DLTensor*", code);
    }
    return static_cast<DLTensor*>(rv.value().v_handle);
  } else if constexpr (std::is_same_v<T, NDArray> || std::is_same_v<T, Module> || std::is_same_v<T, PackedFunc>) {
    using Base = std::conditional_t<std::is_same_v<T, NDArray>, aotrt::NDArray,
                                    std::conditional_t<std::is_same_v<T, Module>, aotrt::Module, aotrt::PackedFunc>>;
    return T(rv.As<Base>());
  } else if constexpr (IsTypedPackedFunc<T>::value) {
    return T(RetAs<PackedFunc>(rv));
  } else if constexpr (kIsObjectRef<T>) {
    if constexpr (HasFromJSON<T>::value) {
      if (code == kTVMStr) return T::FromJSON(rv.str());
    }
    ObjectPtr<Object> p(rv.object());
    if (code == kTVMStr || code == kTVMBytes) {
      p = aotrt::MakeObject<aotrt::StringObj>(rv.str());
    } else if (!p && code != kTVMNullptr) {
      ThrowValueMismatch("result", TypeKey(TypeIndexOf<typename T::ContainerType>()), code);
    }
    return ObjectAs<T>(std::move(p), "result");
  } else {
    static_assert(kAlwaysFalse<T>, "TVMRetValue: no conversion to this type");
  }
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
  } else if constexpr (std::is_base_of_v<aotrt::NDArray, D>) {
    rv->SetObject(x.object(), kTVMNDArrayHandle);
  } else if constexpr (std::is_base_of_v<aotrt::Module, D>) {
    rv->SetObject(x.node(), kTVMModuleHandle);
  } else if constexpr (std::is_base_of_v<aotrt::PackedFunc, D>) {
    rv->SetObject(x.object(), kTVMPackedFuncHandle);
  } else if constexpr (IsTypedPackedFunc<D>::value) {
    SetRet(rv, x.packed());
  } else if constexpr (kIsObjectRef<D>) {
    rv->SetObject(PtrOf(x));
  } else {
    static_assert(kAlwaysFalse<D>, "TVMRetValue: cannot hold a value of this type");
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
  } else if constexpr (std::is_base_of_v<aotrt::NDArray, D>) {
    aotrt::detail::PackObjectArg(v, code, static_cast<const aotrt::NDArray&>(x));
  } else if constexpr (std::is_base_of_v<aotrt::Module, D>) {
    aotrt::detail::PackObjectArg(v, code, static_cast<const aotrt::Module&>(x));
  } else if constexpr (std::is_base_of_v<aotrt::PackedFunc, D>) {
    aotrt::detail::PackObjectArg(v, code, static_cast<const aotrt::PackedFunc&>(x));
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
    : aotrt::PackedFunc(aotrt::PackedFuncBody([body](aotrt::TVMArgs args, aotrt::TVMRetValue* rv) mutable {
        TVMRetValue ret;
        body(TVMArgs(args), &ret);
        *rv = std::move(ret);
      })) {}

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

inline void PackedFunc::CallPacked(TVMArgs args, TVMRetValue* rv) const {
  if (!defined()) ThrowUndefined();
  object()->Call(args, rv);
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

template <typename R, typename... Args>
R TypedPackedFunc<R(Args...)>::operator()(Args... args) const {
  if constexpr (std::is_void_v<R>) {
    packed_(std::forward<Args>(args)...);
  } else {
    return detail::RetAs<R>(packed_(std::forward<Args>(args)...));
  }
}

}  // namespace runtime
}  // namespace tvm
