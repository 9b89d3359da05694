// The exported halves of PackedFunc's typed calls (aotrt/packed_func_call.h): packing objects as
// arguments and converting results, with errors naming the type found. In module/ because it needs
// Module and NDArray complete.
#include "aotrt/module.h"
#include "aotrt/ndarray.h"
#include "aotrt/packed_func.h"
#include "aotrt/container.h"
#include "base/error_util.h"

namespace aotrt {
namespace detail {
namespace {

[[noreturn]] void Mismatch(const TVMRetValue& rv, const char* expected) {
  AOTRT_THROW(kTypeMismatch, "result: expected ", expected, ", got ", TypeCodeName(rv.type_code()), " (type code ",
              rv.type_code(), ")");
}

}  // namespace

void PackObjectArg(TVMValue* v, int* code, const NDArray& x) {
  v->v_handle = x.defined() ? static_cast<void*>(const_cast<DLTensor*>(&x.tensor())) : nullptr;
  *code = x.defined() ? kTVMNDArrayHandle : kTVMNullptr;
}

void PackObjectArg(TVMValue* v, int* code, const Module& x) {
  v->v_handle = x.node().get();
  *code = x.defined() ? kTVMModuleHandle : kTVMNullptr;
}

void PackObjectArg(TVMValue* v, int* code, const PackedFunc& x) {
  v->v_handle = x.object().get();
  *code = x.defined() ? kTVMPackedFuncHandle : kTVMNullptr;
}

int64_t RetAsInt(const TVMRetValue& rv) {
  if (rv.type_code() != kTVMArgInt && rv.type_code() != kTVMArgBool) Mismatch(rv, "int");
  return rv.value().v_int64;
}

double RetAsFloat(const TVMRetValue& rv) {
  if (rv.type_code() == kTVMArgFloat) return rv.value().v_float64;
  if (rv.type_code() == kTVMArgInt || rv.type_code() == kTVMArgBool) return static_cast<double>(rv.value().v_int64);
  Mismatch(rv, "float");
}

bool RetAsBool(const TVMRetValue& rv) {
  if (rv.type_code() != kTVMArgInt && rv.type_code() != kTVMArgBool) Mismatch(rv, "bool (int)");
  return rv.value().v_int64 != 0;
}

std::string RetAsString(const TVMRetValue& rv) {
  if (rv.type_code() == kTVMStr || rv.type_code() == kTVMBytes) return rv.str();
  if (rv.type_code() == kTVMObjectHandle && rv.object() && rv.object()->type_index() == kTypeString) {
    return static_cast<StringObj*>(rv.object())->value;
  }
  Mismatch(rv, "str");
}

void* RetAsHandle(const TVMRetValue& rv) {
  int c = rv.type_code();
  if (c == kTVMOpaqueHandle || c == kTVMNullptr || c == kTVMDLTensorHandle) return rv.value().v_handle;
  Mismatch(rv, "handle");
}

void ThrowIntegerRange(int64_t v, int64_t lo, uint64_t hi) {
  AOTRT_THROW(kOutOfRange, "result: ", v, " does not fit the requested integer type [", lo, ", ", hi, "]");
}

namespace {
template <typename Ref, typename Node>
Ref RetObject(const TVMRetValue& rv, int code, const char* expected) {
  if (rv.type_code() == kTVMNullptr) return Ref();
  if (rv.type_code() != code) Mismatch(rv, expected);
  return Ref(ObjectPtr<Node>(static_cast<Node*>(rv.object())));
}
}  // namespace

template <>
Module RetAsObject<Module>(const TVMRetValue& rv) {
  return RetObject<Module, ModuleNode>(rv, kTVMModuleHandle, "Module");
}
template <>
NDArray RetAsObject<NDArray>(const TVMRetValue& rv) {
  return RetObject<NDArray, NDArrayObj>(rv, kTVMNDArrayHandle, "NDArray");
}
template <>
PackedFunc RetAsObject<PackedFunc>(const TVMRetValue& rv) {
  return RetObject<PackedFunc, PackedFuncObj>(rv, kTVMPackedFuncHandle, "PackedFunc");
}

}  // namespace detail
}  // namespace aotrt
