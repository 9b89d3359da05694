// NDArray storage, views, DLPack exchange and byte copies.
#include "aotrt/ndarray.h"

#include <cstddef>
#include <cstdlib>
#include <cstring>
#include <new>

#include "aotrt/packed_func.h"
#include "base/error_util.h"

namespace aotrt {
namespace {

void* AlignedAlloc(size_t nbytes, size_t align) {
  size_t size = (nbytes + align - 1) / align * align;
  if (size == 0) size = align;
  void* p = std::aligned_alloc(align, size);
  if (!p) AOTRT_THROW(kOutOfMemory, "cannot allocate ", nbytes, " bytes for a tensor");
  return p;
}

void RequireCpu(const DLDevice& dev, const char* what) {
  AOTRT_REQUIRE(dev.device_type == kDLCPU || dev.device_type == kDLCUDAHost, kInvalidArgument, what,
                ": only CPU tensors are supported (device type 1), got device type ", static_cast<int>(dev.device_type));
}

void RequireValidDType(DLDataType t) {
  AOTRT_REQUIRE(t.bits > 0 && t.lanes > 0, kInvalidArgument, "invalid dtype (code ", static_cast<int>(t.code),
                ", bits ", static_cast<int>(t.bits), ", lanes ", t.lanes, ")");
}

}  // namespace

NDArrayObj::NDArrayObj() = default;

NDArrayObj::~NDArrayObj() {
  std::free(owned_data_);
  if (managed_ && managed_->deleter) managed_->deleter(managed_);
}

NDArrayObj* TVMArgValue::AsNDArrayObjOrNull() const {
  if (code_ != kTVMNDArrayHandle || !value_.v_handle) return nullptr;
  return NDArrayObj::FromHandle(static_cast<DLTensor*>(value_.v_handle));
}

NDArray NDArray::Empty(const std::vector<int64_t>& shape, DLDataType dtype, DLDevice device) {
  RequireCpu(device, "NDArray::Empty");
  RequireValidDType(dtype);
  AOTRT_REQUIRE(shape.size() <= 64, kInvalidArgument, "NDArray::Empty: ndim ", shape.size(), " exceeds 64");
  auto obj = ObjectPtr<NDArrayObj>(new NDArrayObj());
  obj->shape_ = shape;
  DLTensor& t = obj->dl_tensor;
  t.device = DLDevice{kDLCPU, device.device_id};
  t.ndim = static_cast<int32_t>(shape.size());
  t.dtype = dtype;
  t.shape = obj->shape_.data();
  size_t nbytes = TensorBytes(t);
  // At least the element size (TVM's rule), as a power of two (aligned_alloc's rule).
  size_t align = kAllocAlignment;
  while (align < DataTypeBytes(dtype)) align *= 2;
  obj->owned_data_ = AlignedAlloc(nbytes, align);
  std::memset(obj->owned_data_, 0, nbytes);
  t.data = obj->owned_data_;
  return NDArray(obj);
}

// A new array object describing `src`'s memory (shape and strides copied, data not owned).
ObjectPtr<NDArrayObj> NDArrayObj::Describe(const DLTensor& src, const char* what) {
  RequireCpu(src.device, what);
  AOTRT_REQUIRE(src.ndim >= 0 && src.ndim <= 64 && (src.ndim == 0 || src.shape), kInvalidArgument, what,
                ": invalid ndim ", src.ndim);
  auto obj = ObjectPtr<NDArrayObj>(new NDArrayObj());
  obj->shape_.assign(src.shape, src.shape + src.ndim);
  if (src.strides) obj->strides_.assign(src.strides, src.strides + src.ndim);
  obj->dl_tensor = src;
  obj->dl_tensor.shape = obj->shape_.data();
  obj->dl_tensor.strides = src.strides ? obj->strides_.data() : nullptr;
  return obj;
}

NDArray NDArray::FromDLPack(DLManagedTensor* tensor) {
  AOTRT_REQUIRE(tensor != nullptr, kInvalidArgument, "FromDLPack: null DLManagedTensor");
  ObjectPtr<NDArrayObj> obj = NDArrayObj::Describe(tensor->dl_tensor, "FromDLPack");
  obj->managed_ = tensor;  // consumed only now that nothing can throw
  return NDArray(obj);
}

NDArray NDArray::Borrow(const DLTensor& src) { return NDArray(NDArrayObj::Describe(src, "NDArray::Borrow")); }

DLManagedTensor* NDArray::ToDLPack() const {
  AOTRT_REQUIRE(defined(), kInvalidArgument, "ToDLPack on an undefined NDArray");
  auto* m = new DLManagedTensor();
  m->dl_tensor = obj_->dl_tensor;
  obj_->IncRef();
  m->manager_ctx = obj_.get();
  m->deleter = [](DLManagedTensor* self) {
    static_cast<NDArrayObj*>(self->manager_ctx)->DecRef();
    delete self;
  };
  return m;
}

NDArray NDArray::CreateView(const std::vector<int64_t>& shape, DLDataType dtype) const {
  AOTRT_REQUIRE(defined(), kInvalidArgument, "CreateView on an undefined NDArray");
  AOTRT_REQUIRE(IsContiguous(obj_->dl_tensor), kInvalidArgument, "CreateView needs a contiguous array");
  RequireValidDType(dtype);
  auto obj = ObjectPtr<NDArrayObj>(new NDArrayObj());
  obj->shape_ = shape;
  obj->dl_tensor = obj_->dl_tensor;
  obj->dl_tensor.shape = obj->shape_.data();
  obj->dl_tensor.ndim = static_cast<int32_t>(shape.size());
  obj->dl_tensor.dtype = dtype;
  obj->dl_tensor.strides = nullptr;
  size_t want = TensorBytes(obj->dl_tensor);
  AOTRT_REQUIRE(want <= NumBytes(), kShapeMismatch, "CreateView: view of ", want, " bytes (shape ",
                ShapeToString(shape.data(), static_cast<int>(shape.size())), " ", DataTypeToString(dtype),
                ") exceeds the array's ", NumBytes(), " bytes");
  obj->base_ = ObjectPtr<Object>(obj_.get());
  return NDArray(obj);
}

std::vector<int64_t> NDArray::Shape() const {
  return std::vector<int64_t>(obj_->dl_tensor.shape, obj_->dl_tensor.shape + obj_->dl_tensor.ndim);
}

void CopyTensorBytes(const DLTensor& from, DLTensor* to) {
  RequireCpu(from.device, "copy source");
  RequireCpu(to->device, "copy destination");
  AOTRT_REQUIRE(IsContiguous(from) && IsContiguous(*to), kInvalidArgument, "copy needs contiguous tensors");
  size_t a = TensorBytes(from), b = TensorBytes(*to);
  AOTRT_REQUIRE(a == b, kShapeMismatch, "The size must exactly match: source has ", a, " bytes (shape ",
                ShapeToString(from.shape, from.ndim), " ", DataTypeToString(from.dtype), "), destination ", b,
                " bytes (shape ", ShapeToString(to->shape, to->ndim), " ", DataTypeToString(to->dtype), ")");
  if (a == 0) return;
  AOTRT_REQUIRE(from.data && to->data, kInvalidArgument, "copy with a null data pointer");
  std::memcpy(static_cast<char*>(to->data) + to->byte_offset,
              static_cast<const char*>(from.data) + from.byte_offset, a);
}

void NDArray::CopyFrom(const DLTensor& from) { CopyTensorBytes(from, &obj_->dl_tensor); }
void NDArray::CopyTo(DLTensor* to) const { CopyTensorBytes(obj_->dl_tensor, to); }

void NDArray::CopyFromBytes(const void* src, size_t nbytes) {
  AOTRT_REQUIRE(IsContiguous(obj_->dl_tensor), kInvalidArgument, "ArrayCopyFromBytes: array is not contiguous");
  AOTRT_REQUIRE(nbytes == NumBytes(), kShapeMismatch, "ArrayCopyFromBytes: size mismatch: array has ", NumBytes(),
                " bytes, got ", nbytes);
  if (nbytes) std::memcpy(data(), src, nbytes);
}

void NDArray::CopyToBytes(void* dst, size_t nbytes) const {
  AOTRT_REQUIRE(IsContiguous(obj_->dl_tensor), kInvalidArgument, "ArrayCopyToBytes: array is not contiguous");
  AOTRT_REQUIRE(nbytes == NumBytes(), kShapeMismatch, "ArrayCopyToBytes: size mismatch: array has ", NumBytes(),
                " bytes, got ", nbytes);
  if (nbytes) std::memcpy(dst, data(), nbytes);
}

}  // namespace aotrt
