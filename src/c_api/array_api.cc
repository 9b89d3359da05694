// C ABI: arrays, DLPack exchange, device memory and streams, on any device through the device
// layer (device/device_api.h).
#include <dlfcn.h>

#include <tvm/runtime/c_runtime_api.h>

#include "aotrt/c_api.h"
#include "aotrt/ndarray.h"
#include "base/error_util.h"
#include "base/device.h"
#include "c_api/api_guard.h"
#include "device/device_api.h"
#include "device/texture.h"
#include "ffi/handle.h"

using namespace aotrt;

namespace {

NDArrayObj* AsArray(TVMArrayHandle h, const char* fn) { return static_cast<NDArrayObj*>(TensorFromHandle(h, fn)); }

DeviceAPI& Driver(int device_type, int device_id, const char* fn) {
  return RequireDevice(MakeDevice(device_type, device_id), fn);
}

// A stream call on the device's driver: 0, or -1 and the error.
template <typename F>
int StreamCall(int device_type, int device_id, const char* fn, F f) {
  return GuardBackendCall(-1, fn, [&] {
    f(Driver(device_type, device_id, fn));
    return 0;
  });
}

// The dtype of C ints; kInvalidArgument naming `fn` when one does not fit its field.
DLDataType DTypeFromC(int code, int bits, int lanes, const char* fn) {
  AOTRT_REQUIRE(code >= 0 && code < 256 && bits > 0 && bits < 256 && lanes > 0 && lanes < 65536, kInvalidArgument, fn,
                ": invalid dtype (code ", code, ", bits ", bits, ", lanes ", lanes, ")");
  return DLDataType{static_cast<uint8_t>(code), static_cast<uint8_t>(bits), static_cast<uint16_t>(lanes)};
}

}  // namespace

extern "C" {

int TVMArrayAlloc(const tvm_index_t* shape, int ndim, int dtype_code, int dtype_bits, int dtype_lanes, int device_type,
                  int device_id, TVMArrayHandle* out) {
  AOTRT_API_BEGIN();
  AOTRT_REQUIRE(out, kInvalidArgument, "TVMArrayAlloc: null out");
  AOTRT_REQUIRE(ndim >= 0 && ndim <= kMaxNdim, kInvalidArgument, "TVMArrayAlloc: ndim ", ndim, " is outside [0, ",
                kMaxNdim, "]");
  AOTRT_REQUIRE(ndim == 0 || shape, kInvalidArgument, "TVMArrayAlloc: null shape for ndim ", ndim);
  Driver(device_type, device_id, "TVMArrayAlloc");
  DLDataType t = DTypeFromC(dtype_code, dtype_bits, dtype_lanes, "TVMArrayAlloc");
  NDArray a = NDArray::Empty(std::vector<int64_t>(shape, shape + ndim), t,
                             MakeDevice(device_type, device_id));
  *out = &ObjectPtr<NDArrayObj>(a.object()).release()->dl_tensor;
  AOTRT_API_END();
}

int TVMArrayGetTypeIndex(TVMArrayHandle handle, unsigned* out_tindex) {
  AOTRT_API_BEGIN();
  AOTRT_REQUIRE(out_tindex, kInvalidArgument, "TVMArrayGetTypeIndex: null out");
  *out_tindex = AsArray(handle, "TVMArrayGetTypeIndex")->type_index();
  AOTRT_API_END();
}

int TVMArrayFree(TVMArrayHandle handle) {
  AOTRT_API_BEGIN();
  AsArray(handle, "TVMArrayFree")->DecRef();
  AOTRT_API_END();
}

int TVMArrayCopyFromBytes(TVMArrayHandle handle, void* data, size_t nbytes) {
  AOTRT_API_BEGIN();
  AOTRT_REQUIRE(handle, kInvalidArgument, "TVMArrayCopyFromBytes: null handle");
  AOTRT_REQUIRE(data || nbytes == 0, kInvalidArgument, "TVMArrayCopyFromBytes: null data");
  NDArray::Borrow(*handle).CopyFromBytes(data, nbytes);
  AOTRT_API_END();
}

int TVMArrayCopyToBytes(TVMArrayHandle handle, void* data, size_t nbytes) {
  AOTRT_API_BEGIN();
  AOTRT_REQUIRE(handle, kInvalidArgument, "TVMArrayCopyToBytes: null handle");
  AOTRT_REQUIRE(data || nbytes == 0, kInvalidArgument, "TVMArrayCopyToBytes: null data");
  NDArray::Borrow(*handle).CopyToBytes(data, nbytes);
  AOTRT_API_END();
}

int TVMArrayCopyFromTo(TVMArrayHandle from, TVMArrayHandle to, TVMStreamHandle) {
  AOTRT_API_BEGIN();
  AOTRT_REQUIRE(from && to, kInvalidArgument, "TVMArrayCopyFromTo: null handle");
  CopyTensorBytes(*from, to);
  AOTRT_API_END();
}

int AOTRTArrayCopyConverted(const DLTensor* from, DLTensor* to, const char* what) {
  AOTRT_API_BEGIN();
  const char* name = what ? what : "tensor";
  AOTRT_REQUIRE(from && to, kInvalidArgument, "AOTRTArrayCopyConverted: null tensor");
  for (const DLTensor* t : {static_cast<const DLTensor*>(from), static_cast<const DLTensor*>(to)}) {
    ValidateTensorHeader(*t, name);
    AOTRT_REQUIRE(IsAcceptedCpuDevice(t->device), kInvalidArgument, "AOTRTArrayCopyConverted: converts CPU tensors; got one "
                  "on ", DeviceName(t->device), ": copy it to the CPU first");
  }
  ConvertTensor(*from, to, name);
  AOTRT_API_END();
}

int AOTRTCheckConversion(int from_code, int from_bits, int from_lanes, int to_code, int to_bits, int to_lanes,
                         const char* what) {
  AOTRT_API_BEGIN();
  const char* fn = "AOTRTCheckConversion";
  CheckConversion(DTypeFromC(from_code, from_bits, from_lanes, fn), DTypeFromC(to_code, to_bits, to_lanes, fn),
                  what ? what : "tensor");
  AOTRT_API_END();
}

int TVMArrayFromDLPack(DLManagedTensor* from, TVMArrayHandle* out) {
  AOTRT_API_BEGIN();
  AOTRT_REQUIRE(from && out, kInvalidArgument, "TVMArrayFromDLPack: null argument");
  *out = &ObjectPtr<NDArrayObj>(NDArray::FromDLPack(from).object()).release()->dl_tensor;
  AOTRT_API_END();
}

int TVMArrayToDLPack(TVMArrayHandle from, DLManagedTensor** out) {
  AOTRT_API_BEGIN();
  AOTRT_REQUIRE(out, kInvalidArgument, "TVMArrayToDLPack: null out");
  *out = NDArray(ObjectPtr<NDArrayObj>(AsArray(from, "TVMArrayToDLPack"))).ToDLPack();
  AOTRT_API_END();
}

void TVMDLManagedTensorCallDeleter(DLManagedTensor* dltensor) {
  if (dltensor && dltensor->deleter) dltensor->deleter(dltensor);
}

// Runs while a consumer is failing (numpy refusing a dtype, with its exception pending): no Python
// code may run then, so this is C, reaching the two capsule functions it needs through dlsym.
void AOTRTDLPackCapsuleDestructor(void* capsule) {
  using IsValid = int (*)(void*, const char*);
  using GetPointer = void* (*)(void*, const char*);
  static IsValid is_valid = reinterpret_cast<IsValid>(dlsym(RTLD_DEFAULT, "PyCapsule_IsValid"));
  static GetPointer get_pointer = reinterpret_cast<GetPointer>(dlsym(RTLD_DEFAULT, "PyCapsule_GetPointer"));
  if (!capsule || !is_valid || !get_pointer) return;
  // A consumer that took the tensor renamed the capsule "used_dltensor": then it is not ours to delete.
  if (!is_valid(capsule, "dltensor")) return;
  TVMDLManagedTensorCallDeleter(static_cast<DLManagedTensor*>(get_pointer(capsule, "dltensor")));
}

int TVMStreamCreate(int device_type, int device_id, TVMStreamHandle* out) {
  if (out) *out = nullptr;
  return StreamCall(device_type, device_id, __func__, [&](DeviceAPI& d) {
    AOTRT_REQUIRE(out, kInvalidArgument, "TVMStreamCreate: null out");
    *out = d.CreateStream(device_id);
  });
}
int TVMStreamFree(int device_type, int device_id, TVMStreamHandle stream) {
  return StreamCall(device_type, device_id, __func__, [&](DeviceAPI& d) { d.FreeStream(device_id, stream); });
}
int TVMSetStream(int device_type, int device_id, TVMStreamHandle stream) {
  return StreamCall(device_type, device_id, __func__, [&](DeviceAPI& d) { d.SetStream(device_id, stream); });
}
int TVMSynchronize(int device_type, int device_id, TVMStreamHandle stream) {
  return StreamCall(device_type, device_id, __func__, [&](DeviceAPI& d) { d.Sync(device_id, stream); });
}
// One in-order queue per device: waiting for `src` orders everything after it.
int TVMStreamStreamSynchronize(int device_type, int device_id, TVMStreamHandle src, TVMStreamHandle) {
  return StreamCall(device_type, device_id, __func__, [&](DeviceAPI& d) { d.Sync(device_id, src); });
}

int TVMDeviceAllocDataSpace(DLDevice dev, size_t nbytes, size_t alignment, DLDataType, void** out_data) {
  AOTRT_API_BEGIN();
  DeviceAPI& d = RequireDevice(dev, "TVMDeviceAllocDataSpace");
  AOTRT_REQUIRE(out_data, kInvalidArgument, "TVMDeviceAllocDataSpace: null out");
  try {
    *out_data = d.Alloc(dev.device_id, nbytes, alignment, "");
  } catch (const Error& e) {
    throw Error(e.code(), StrCat("TVMDeviceAllocDataSpace: ", e.what()));
  }
  AOTRT_API_END();
}

int TVMDeviceAllocDataSpaceWithScope(DLDevice dev, int ndim, const int64_t* shape, DLDataType dtype,
                                     const char* mem_scope, void** out_data) {
  AOTRT_API_BEGIN();
  DeviceAPI& d = RequireDevice(dev, "TVMDeviceAllocDataSpaceWithScope");
  AOTRT_REQUIRE(out_data, kInvalidArgument, "TVMDeviceAllocDataSpaceWithScope: null out");
  AOTRT_REQUIRE(ndim >= 0 && ndim <= kMaxNdim && (ndim == 0 || shape), kInvalidArgument,
                "TVMDeviceAllocDataSpaceWithScope: invalid shape (ndim ", ndim, ")");
  DLTensor probe{nullptr, dev, ndim, dtype, const_cast<int64_t*>(shape), nullptr, 0};
  std::string scope = mem_scope ? mem_scope : "";
  *out_data = IsTextureScope(scope) ? d.AllocTexture(dev.device_id, shape, ndim, dtype, scope)
                                    : d.Alloc(dev.device_id, TensorBytes(probe), kAllocAlignment, scope);
  AOTRT_API_END();
}

int TVMDeviceFreeDataSpace(DLDevice dev, void* ptr) {
  AOTRT_API_BEGIN();
  RequireDevice(dev, "TVMDeviceFreeDataSpace").Free(dev.device_id, ptr);
  AOTRT_API_END();
}

int TVMDeviceCopyDataFromTo(DLTensor* from, DLTensor* to, TVMStreamHandle) {
  AOTRT_API_BEGIN();
  AOTRT_REQUIRE(from && to, kInvalidArgument, "TVMDeviceCopyDataFromTo: null tensor");
  CopyTensorBytes(*from, to);
  AOTRT_API_END();
}

}  // extern "C"
