// NDArray storage, views, DLPack exchange and byte copies.
#include "aotrt/ndarray.h"

#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <memory>

#include "aotrt/packed_func.h"
#include "base/error_util.h"
#include "base/device.h"
#include "device/device_api.h"
#include "device/texture.h"
#include "memory/reserve.h"
#include "ffi/handle.h"

namespace aotrt {
namespace {

// The CPU, or a device of a type aotrt has a driver for that exists on this machine.
void RequireKnownDevice(const DLDevice& dev, const char* what) {
  if (!IsAcceptedCpuDevice(dev)) RequireDevice(dev, what);
}

void RequireValidDType(DLDataType t) {
  AOTRT_REQUIRE(t.bits > 0 && t.lanes > 0, kInvalidArgument, "invalid dtype (code ", static_cast<int>(t.code),
                ", bits ", static_cast<int>(t.bits), ", lanes ", t.lanes, ")");
}

// What every allocation of tensor memory checks first. The size is checked before any rounding up
// (a size near SIZE_MAX would wrap to a tiny block), with the bound the workspace uses: no machine
// serves more, and sanitizer allocators abort on such requests.
void RequireAllocatable(size_t nbytes, size_t align, const std::string& what) {
  constexpr size_t kMaxBytes = size_t{1} << 46;
  AOTRT_REQUIRE(align != 0 && (align & (align - 1)) == 0, kInvalidArgument, what, ": alignment ", align,
                " is not a power of two");
  AOTRT_REQUIRE(nbytes <= kMaxBytes && align <= kMaxBytes, kOutOfMemory, what, ": cannot allocate ", nbytes,
                " bytes: too large (at most 2^46)");
}

}  // namespace

void* AllocAligned(size_t nbytes, size_t align, const std::string& what) {
  RequireAllocatable(nbytes, align, what);
  size_t size = nbytes == 0 ? align : (nbytes + align - 1) / align * align;
  void* p = std::aligned_alloc(align, size);
  AOTRT_REQUIRE(p != nullptr, kOutOfMemory, what, ": cannot allocate ", nbytes, " bytes: out of memory");
  return p;
}

NDArrayObj::NDArrayObj() = default;

NDArrayObj::~NDArrayObj() {
  if (owned_data_) FreeZeroed(owned_data_, owned_mapped_);
  if (managed_ && managed_->deleter) managed_->deleter(managed_);
}

NDArrayObj* TVMArgValue::AsNDArrayObjOrNull() const {
  if (code_ != kTVMNDArrayHandle || !value_.v_handle) return nullptr;
  return static_cast<NDArrayObj*>(TensorFromHandle(static_cast<DLTensor*>(value_.v_handle), Where().c_str()));
}

NDArray NDArray::Empty(const std::vector<int64_t>& shape, DLDataType dtype, DLDevice device, const std::string& scope) {
  RequireKnownDevice(device, "NDArray::Empty");
  RequireValidDType(dtype);
  AOTRT_REQUIRE(scope.empty() || scope == "global" || !IsAcceptedCpuDevice(device), kNotImplemented,
                "NDArray::Empty: memory scope '", scope, "' is not supported on the CPU (only 'global')");
  AOTRT_REQUIRE(shape.size() <= kMaxNdim, kInvalidArgument, "NDArray::Empty: ndim ", shape.size(), " exceeds ",
                kMaxNdim);
  auto obj = ObjectPtr<NDArrayObj>(new NDArrayObj());
  obj->shape_ = shape;
  DLTensor& t = obj->dl_tensor;
  t = DLTensor{nullptr, DLDevice{kDLCPU, device.device_id}, static_cast<int32_t>(shape.size()), dtype,
               obj->shape_.data(), nullptr, 0};
  size_t nbytes = TensorBytes(t);
  // At least the element size (TVM's rule), as a power of two (aligned_alloc's rule).
  size_t align = kAllocAlignment;
  while (align < DataTypeBytes(dtype)) align *= 2;
  // Zeroed as TVM's arrays are not: an input nobody set reads as zeros, the same on every run.
  std::string what = StrCat("tensor of shape ", ShapeToString(shape.data(), t.ndim), " ", DataTypeToString(dtype));
  RequireAllocatable(nbytes, align, what);
  if (!IsAcceptedCpuDevice(device)) {
    // Device memory (not zeroed, as TVM's), freed by its driver with the array.
    DeviceAPI* api = FindDeviceAPI(DeviceTypeOf(device));
    auto managed = std::make_unique<DLManagedTensor>();
    t.device = device;
    t.data = IsTextureScope(scope) ? api->AllocTexture(device.device_id, shape.data(), t.ndim, dtype, scope)
                                   : api->Alloc(device.device_id, nbytes, align, scope);
    managed->dl_tensor = t;
    managed->manager_ctx = api;
    managed->deleter = [](DLManagedTensor* m) {
      static_cast<DeviceAPI*>(m->manager_ctx)->Free(m->dl_tensor.device.device_id, m->dl_tensor.data);
      delete m;
    };
    obj->managed_ = managed.release();
    return NDArray(obj);
  }
  obj->owned_data_ = AllocZeroed(nbytes, align, &obj->owned_mapped_);
  AOTRT_REQUIRE(obj->owned_data_ != nullptr, kOutOfMemory, what, ": cannot allocate ", nbytes, " bytes: out of memory");
  t.data = obj->owned_data_;
  return NDArray(obj);
}

// A new array object describing `src`'s memory (shape and strides copied, data not owned).
ObjectPtr<NDArrayObj> NDArrayObj::Describe(const DLTensor& src, const char* what) {
  ValidateTensorHeader(src, what);
  RequireKnownDevice(src.device, what);
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
  auto* m = new DLManagedTensor{obj_->dl_tensor, obj_.get(), [](DLManagedTensor* self) {
                                  static_cast<NDArrayObj*>(self->manager_ctx)->DecRef();
                                  delete self;
                                }};
  obj_->IncRef();  // once nothing can throw
  return m;
}

NDArray NDArray::CreateView(const std::vector<int64_t>& shape, DLDataType dtype, size_t byte_offset) const {
  AOTRT_REQUIRE(defined(), kInvalidArgument, "CreateView on an undefined NDArray");
  AOTRT_REQUIRE(IsContiguous(obj_->dl_tensor), kInvalidArgument, "CreateView needs a contiguous array");
  RequireValidDType(dtype);
  auto obj = ObjectPtr<NDArrayObj>(new NDArrayObj());
  obj->shape_ = shape;
  const DLTensor& src = obj_->dl_tensor;
  obj->dl_tensor = DLTensor{src.data, src.device, static_cast<int32_t>(shape.size()), dtype, obj->shape_.data(),
                            nullptr, src.byte_offset + byte_offset};
  size_t want = TensorBytes(obj->dl_tensor);
  AOTRT_REQUIRE(byte_offset <= NumBytes() && want <= NumBytes() - byte_offset, kShapeMismatch, "CreateView: view of ",
                want, " bytes (shape ", ShapeToString(shape.data(), static_cast<int>(shape.size())), " ",
                DataTypeToString(dtype), ") at byte ", byte_offset, " exceeds the array's ", NumBytes(), " bytes");
  obj->base_ = ObjectPtr<Object>(obj_.get());
  return NDArray(obj);
}

std::vector<int64_t> NDArray::Shape() const {
  const DLTensor& t = checked().dl_tensor;
  return std::vector<int64_t>(t.shape, t.shape + t.ndim);
}

void CopyTensorBytes(const DLTensor& from, DLTensor* to) {
  RequireKnownDevice(from.device, "copy source");
  RequireKnownDevice(to->device, "copy destination");
  AOTRT_REQUIRE(IsContiguous(from) && IsContiguous(*to), kInvalidArgument, "copy needs contiguous tensors");
  size_t a = TensorBytes(from), b = TensorBytes(*to);
  AOTRT_REQUIRE(a == b, kShapeMismatch, "The size must exactly match: source has ", a, " bytes (shape ",
                ShapeToString(from.shape, from.ndim), " ", DataTypeToString(from.dtype), "), destination ", b,
                " bytes (shape ", ShapeToString(to->shape, to->ndim), " ", DataTypeToString(to->dtype), ")");
  if (a == 0) return;
  AOTRT_REQUIRE(from.data && to->data, kInvalidArgument, "copy with a null data pointer");
  if (!IsAcceptedCpuDevice(from.device) || !IsAcceptedCpuDevice(to->device)) return CopyAcrossDevices(from, *to, a);
  std::memcpy(static_cast<char*>(to->data) + to->byte_offset,
              static_cast<const char*>(from.data) + from.byte_offset, a);
}

void NDArray::CopyFrom(const DLTensor& from) { CopyTensorBytes(from, &checked().dl_tensor); }
void NDArray::CopyTo(DLTensor* to) const { CopyTensorBytes(checked().dl_tensor, to); }

namespace {
// The `nbytes` bytes of the contiguous array `t` copied to (`to_host`) or from the host memory `host`.
void CopyHostBytes(const DLTensor& t, void* host, size_t nbytes, bool to_host, const char* fn) {
  AOTRT_REQUIRE(IsContiguous(t), kInvalidArgument, fn, ": array is not contiguous");
  AOTRT_REQUIRE(nbytes == TensorBytes(t), kShapeMismatch, fn, ": size mismatch: array has ", TensorBytes(t),
                " bytes, got ", nbytes);
  if (nbytes == 0) return;
  if (IsAcceptedCpuDevice(t.device)) {
    char* data = static_cast<char*>(t.data) + t.byte_offset;
    to_host ? std::memcpy(host, data, nbytes) : std::memcpy(data, host, nbytes);
    return;
  }
  int64_t n = static_cast<int64_t>(nbytes);
  DLTensor bytes{host, DLDevice{kDLCPU, 0}, 1, DLDataType{kDLUInt, 8, 1}, &n, nullptr, 0};  // the host memory
  to_host ? CopyAcrossDevices(t, bytes, nbytes) : CopyAcrossDevices(bytes, t, nbytes);
}
}  // namespace

void NDArray::CopyFromBytes(const void* src, size_t nbytes) {
  CopyHostBytes(checked().dl_tensor, const_cast<void*>(src), nbytes, false, "ArrayCopyFromBytes");
}
void NDArray::CopyToBytes(void* dst, size_t nbytes) const {
  CopyHostBytes(checked().dl_tensor, dst, nbytes, true, "ArrayCopyToBytes");
}

}  // namespace aotrt
