// NDArray: a reference-counted CPU tensor over DLPack's DLTensor.
//
// Storage is 64-byte aligned and owned by the array, borrowed from a DLPack producer (released
// through its deleter when the last reference goes), or a view sharing another array's storage.
// The C handle of an NDArray (kTVMNDArrayHandle, TVMArrayHandle) is the address of its DLTensor.
// Metadata is immutable after construction; element data is not synchronised: concurrent writes,
// or a write concurrent with a read, to the same array are the caller's to avoid.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include <dlpack/dlpack.h>

#include "aotrt/dtype.h"
#include "aotrt/error.h"
#include "aotrt/export.h"
#include "aotrt/object.h"

namespace aotrt {

class AOTRT_API NDArrayObj : public TensorObj {
 public:
  ~NDArrayObj() override;

  // Recover the object from a handle made by this library (kTVMNDArrayHandle / TVMArrayHandle).
  static NDArrayObj* FromHandle(DLTensor* handle) { return static_cast<NDArrayObj*>(TensorObj::FromHandle(handle)); }

 private:
  friend class NDArray;
  NDArrayObj();
  static ObjectPtr<NDArrayObj> Describe(const DLTensor& src, const char* what);
  std::vector<int64_t> shape_;
  std::vector<int64_t> strides_;
  void* owned_data_ = nullptr;          // aligned allocation owned by this array
  size_t owned_mapped_ = 0;             // its mapping's size when mapped (large arrays), else 0
  DLManagedTensor* managed_ = nullptr;  // DLPack producer kept alive by this array
  ObjectPtr<Object> base_;              // array whose storage a view shares
};

class AOTRT_API NDArray {
 public:
  NDArray() = default;
  explicit NDArray(ObjectPtr<NDArrayObj> obj) : obj_(std::move(obj)) {}

  // A new array: zero-filled on the CPU; on another device (OpenCL) its driver's memory, not
  // zeroed, freed with the array. `scope`: a memory scope ("" or "global"; on OpenCL also TVM's
  // texture scopes "global.texture*", an image2d). Throws kInvalidArgument (bad dtype, negative
  // dim, a device this machine or aotrt lacks), kNotImplemented (a scope the device lacks),
  // kOutOfMemory.
  static NDArray Empty(const std::vector<int64_t>& shape, DLDataType dtype,
                       DLDevice device = DLDevice{kDLCPU, 0}, const std::string& scope = "");
  // Take ownership of a DLPack tensor; its deleter runs when the last reference goes. On error the
  // tensor is not consumed. On the CPU or a device that exists.
  static NDArray FromDLPack(DLManagedTensor* tensor);
  // A non-owning array over memory the caller keeps alive for the array's whole life.
  static NDArray Borrow(const DLTensor& tensor);

  // A DLPack tensor sharing this storage; it holds a reference until its deleter runs.
  DLManagedTensor* ToDLPack() const;
  // A view with another shape/dtype over the same bytes from `byte_offset` on (TVM's
  // relative_byte_offset); it must lie within this array's bytes (kShapeMismatch).
  NDArray CreateView(const std::vector<int64_t>& shape, DLDataType dtype, size_t byte_offset = 0) const;

  // Copy `from` into this array; byte sizes must match exactly (kShapeMismatch), both must be
  // contiguous, on the CPU or any device (through its driver; the copy is complete on return).
  // Shape and dtype are not compared (TVM semantics).
  void CopyFrom(const DLTensor& from);
  void CopyTo(DLTensor* to) const;
  void CopyFromBytes(const void* data, size_t nbytes);
  void CopyToBytes(void* data, size_t nbytes) const;

  bool defined() const { return static_cast<bool>(obj_); }
  // The accessors below throw kInvalidArgument on an empty array (ThrowEmptyHandle); handle()
  // returns nullptr instead.
  DLTensor* operator->() const { return &checked().dl_tensor; }
  const DLTensor& tensor() const { return checked().dl_tensor; }
  DLTensor* handle() const { return obj_ ? &obj_->dl_tensor : nullptr; }
  std::vector<int64_t> Shape() const;
  DLDataType dtype() const { return checked().dl_tensor.dtype; }
  size_t NumBytes() const { return TensorBytes(checked().dl_tensor); }
  void* data() const { return static_cast<char*>(checked().dl_tensor.data) + obj_->dl_tensor.byte_offset; }
  const ObjectPtr<NDArrayObj>& object() const { return obj_; }

 private:
  NDArrayObj& checked() const {
    if (!obj_) ThrowEmptyHandle("NDArray");
    return *obj_;
  }
  ObjectPtr<NDArrayObj> obj_;
};

// Storage of `nbytes` (a block of `align` bytes for 0) aligned to `align`, a power of two; release
// it with std::free. Throws kOutOfMemory naming `what` and the size (also for sizes that would wrap
// when rounded up), kInvalidArgument for a bad alignment.
AOTRT_API void* AllocAligned(size_t nbytes, size_t align, const std::string& what);

// Copy between two contiguous CPU tensors of equal byte size (shape/dtype not compared).
// Throws kShapeMismatch naming both sizes, kInvalidArgument for a non-CPU or strided tensor.
AOTRT_API void CopyTensorBytes(const DLTensor& from, DLTensor* to);

// The one rule for values given in a dtype other than the tensor's, followed by every input path
// (README "Inputs in another dtype" states it in full): between bool, int, uint and float dtypes
// of one lane, accepted when every value survives (an integer fits the integer range or is exact
// in the float; a narrowed float, rounded to nearest, stays finite; bool gives 0 and 1); refused
// whatever the values: a float into an integer or bool, anything but bool into bool, any other
// dtype. ConvertTensor copies `from` into `to` (the same number of elements, both contiguous),
// converting each value; every value is checked before any is written. Throws kTypeMismatch
// naming `what` (e.g. "input 0 ('x')"), the dtypes, the first value that does not survive, its
// index and what it would become; kShapeMismatch, kInvalidArgument.
AOTRT_API void ConvertTensor(const DLTensor& from, DLTensor* to, const std::string& what);
// The part of the rule that depends on the dtypes alone: throws kTypeMismatch as ConvertTensor
// does when no value of `from` would be accepted into `to`.
AOTRT_API void CheckConversion(DLDataType from, DLDataType to, const std::string& what);

// Binary formats (ABI.md 6.1, 6.2). Loaders validate every field and never read past `size`;
// errors are kFormatError naming the field and what was expected.
AOTRT_API std::string SaveNDArray(const DLTensor& t);
AOTRT_API NDArray LoadNDArray(const void* data, size_t size);
struct NamedArray {
  std::string name;
  NDArray array;
};
AOTRT_API std::string SaveParams(const std::vector<NamedArray>& params);
AOTRT_API std::vector<NamedArray> LoadParams(const void* data, size_t size);

}  // namespace aotrt
