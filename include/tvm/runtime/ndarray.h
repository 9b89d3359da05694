// TVM's NDArray (tvm/runtime/ndarray.h): a thin subclass of aotrt::NDArray (the same object and
// handle) with TVM's names and signatures of v0.8 to v0.19. Memory of the devices aotrt has a driver
// for; errors are aotrt::NDArray's (a copy between arrays of other byte sizes: kShapeMismatch "The
// size must exactly match ..."). Ownership and thread-safety as aotrt::NDArray (aotrt/ndarray.h).
#pragma once

#include <cstdint>
#include <utility>
#include <vector>

#include <dlpack/dlpack.h>
#include <tvm/runtime/c_runtime_api.h>
#include <tvm/runtime/container/optional.h>
#include <tvm/runtime/container/shape_tuple.h>
#include <tvm/runtime/container/string.h>
#include <tvm/runtime/data_type.h>
#include <tvm/runtime/object.h>

#include "aotrt/ndarray.h"

namespace tvm {
namespace runtime {

class NDArray : public detail::HandleOf<aotrt::NDArray, aotrt::NDArrayObj> {
 public:
  using Container = aotrt::NDArrayObj;
  using HandleOf::HandleOf;
  void reset() { *this = NDArray(); }

  bool IsContiguous() const { return aotrt::IsContiguous(tensor()); }
  void CopyFrom(const DLTensor* other) { aotrt::NDArray::CopyFrom(*NotNull(other)); }
  void CopyFrom(const NDArray& other) { aotrt::NDArray::CopyFrom(other.tensor()); }
  void CopyTo(DLTensor* other) const { aotrt::NDArray::CopyTo(NotNull(other)); }
  void CopyTo(const NDArray& other) const { aotrt::NDArray::CopyTo(other.operator->()); }
  NDArray CopyTo(const Device& dev, Optional<String> mem_scope = NullOpt) const {
    NDArray out = Empty(Shape(), tensor().dtype, dev, mem_scope);
    CopyTo(out);
    return out;
  }
  // A view of the same bytes with another shape and dtype, starting relative_byte_offset bytes in
  // (TVM v0.15+). Throws kShapeMismatch when the view would reach past the array.
  NDArray CreateView(ShapeTuple shape, DLDataType dtype, uint64_t relative_byte_offset = 0) const {
    return aotrt::NDArray::CreateView(shape, dtype, relative_byte_offset);
  }
  ShapeTuple Shape() const { return ShapeTuple(aotrt::NDArray::Shape()); }
  runtime::DataType DataType() const { return runtime::DataType(dtype()); }

  // A new zero-filled array; `shape` may be a ShapeTuple, a std::vector<int64_t> or a braced list.
  // mem_scope must be empty or "global".
  static NDArray Empty(ShapeTuple shape, DLDataType dtype, Device dev, Optional<String> mem_scope = NullOpt) {
    if (mem_scope.defined() && mem_scope.value() != "global") {
      throw Error(aotrt::ErrorCode::kInvalidArgument, "NDArray::Empty: memory scope '" + mem_scope.value().str() +
                                                          "' is not supported (only \"global\")");
    }
    return aotrt::NDArray::Empty(shape, dtype, dev);
  }
  static NDArray FromDLPack(DLManagedTensor* tensor) { return aotrt::NDArray::FromDLPack(tensor); }
  // An array over memory the caller keeps alive for the array's whole life (no copy).
  static NDArray FromExternalDLTensor(const DLTensor& dl_tensor) { return aotrt::NDArray::Borrow(dl_tensor); }
  // A new array on `dev` holding a copy of `dl_tensor`.
  static NDArray NewFromDLTensor(DLTensor* dl_tensor, const Device& dev) {
    NDArray out = Empty(ShapeTuple(NotNull(dl_tensor)->shape, dl_tensor->shape + dl_tensor->ndim),
                        dl_tensor->dtype, dev);
    out.CopyFrom(dl_tensor);
    return out;
  }
  static void CopyFromTo(const DLTensor* from, DLTensor* to, TVMStreamHandle stream = nullptr) {
    (void)stream;  // CPU copies are synchronous
    aotrt::CopyTensorBytes(*NotNull(from), NotNull(to));
  }
  static bool IsAligned(const DLTensor& tensor) {
    return reinterpret_cast<uintptr_t>(static_cast<char*>(tensor.data) + tensor.byte_offset) %
               aotrt::kAllocAlignment == 0;
  }
  static bool AbilityOfZeroCopyForDLTensor(DLTensor* tensor, const Device& dev) {
    return tensor->device.device_type == dev.device_type && tensor->device.device_id == dev.device_id &&
           IsAligned(*tensor) && aotrt::IsContiguous(*tensor);
  }

 private:
  template <typename T>
  static T* NotNull(T* t) {
    if (!t) throw Error(aotrt::ErrorCode::kInvalidArgument, "NDArray: null DLTensor pointer");
    return t;
  }
};

// Bytes of a tensor's data, and whether it is compact row-major (TVM's free functions).
inline size_t GetDataSize(const DLTensor& arr) { return aotrt::TensorBytes(arr); }
inline bool IsContiguous(const DLTensor& arr) { return aotrt::IsContiguous(arr); }

}  // namespace runtime
using runtime::NDArray;
}  // namespace tvm
