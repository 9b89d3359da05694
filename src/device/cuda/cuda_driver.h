// The CUDA driver's state, shared with the CUDA kernel module (device_module/cuda_module.cc): the driver API
// of libcuda.so.1, opened at the first call and never linked (the calls used are declared here by their ABI
// symbols: Debian ships no CUDA header), and each device's primary context. Built once (thread-safe).
#pragma once

#include <mutex>
#include <string>

namespace aotrt {

using CUresult = int;  // 0: CUDA_SUCCESS
using CUdeviceptr = unsigned long long;  // NOLINT(runtime/int): the driver API's type
using CUcontext = struct CUctx_st*;  // opaque handles
using CUmodule = struct CUmod_st*;
using CUfunction = struct CUfunc_st*;
using CUstream = struct CUstream_st*;
using CUevent = struct CUevent_st*;
constexpr int kMaxCudaDevices = 64;

#define AOTRT_CU_FUNCTIONS(X)                                                                                         \
  X(cuInit, (unsigned)) X(cuDeviceGetCount, (int*)) X(cuDeviceGet, (int* device, int ordinal))                        \
  X(cuDeviceGetName, (char*, int, int device)) X(cuDeviceGetAttribute, (int*, int, int device))                       \
  X(cuDeviceTotalMem_v2, (size_t*, int device)) X(cuDevicePrimaryCtxRetain, (CUcontext*, int device))                 \
  X(cuCtxSetCurrent, (CUcontext)) X(cuCtxSynchronize, ()) X(cuGetErrorName, (CUresult, const char**))                 \
  X(cuMemAlloc_v2, (CUdeviceptr*, size_t)) X(cuMemFree_v2, (CUdeviceptr))                                             \
  X(cuMemcpyHtoDAsync_v2, (CUdeviceptr, const void*, size_t, CUstream))                                               \
  X(cuMemcpyDtoHAsync_v2, (void*, CUdeviceptr, size_t, CUstream))                                                     \
  X(cuMemcpyDtoDAsync_v2, (CUdeviceptr, CUdeviceptr, size_t, CUstream))                                               \
  X(cuStreamCreate, (CUstream*, unsigned)) X(cuStreamDestroy_v2, (CUstream)) X(cuStreamSynchronize, (CUstream))       \
  X(cuModuleLoadData, (CUmodule*, const void*)) X(cuModuleUnload, (CUmodule))                                         \
  X(cuModuleGetFunction, (CUfunction*, CUmodule, const char*)) X(cuFuncSetAttribute, (CUfunction, int, int))          \
  X(cuLaunchKernel, (CUfunction, unsigned, unsigned, unsigned, unsigned, unsigned, unsigned, unsigned, CUstream,      \
                     void**, void**))                                                                                 \
  X(cuEventCreate, (CUevent*, unsigned)) X(cuEventRecord, (CUevent, CUstream)) X(cuEventSynchronize, (CUevent))       \
  X(cuEventElapsedTime, (float*, CUevent, CUevent)) X(cuEventDestroy_v2, (CUevent))

class CudaState {
 public:
  static CudaState& Get() { static CudaState* s = new CudaState(); return *s; }  // never destroyed: used at exit
#define AOTRT_CU_MEMBER(name, params) CUresult(*name) params = nullptr;
  AOTRT_CU_FUNCTIONS(AOTRT_CU_MEMBER)
#undef AOTRT_CU_MEMBER
  int num_devices = 0;
  std::string why_none;  // why there is no device, and what to install
  // Makes device `id`'s primary context current here. Throws kInvalidArgument naming `what`, or as ThrowCuError.
  void Bind(int id, const char* what);
  static inline thread_local int current_device = 0;             // this thread's kernels' (__tvm_set_device)
  static inline thread_local CUstream current_stream = nullptr;  // and stream (TVMSetStream)

 private:
  CudaState() : why_none(Open()) { num_devices = why_none.empty() ? num_devices : 0; }
  std::string Open();  // why there is no device
  CUcontext contexts_[kMaxCudaDevices] = {};
  std::once_flag retained_[kMaxCudaDevices];
};

// Throws for a failed call: kOutOfMemory for CUDA_ERROR_OUT_OF_MEMORY, else kModelError, naming `what`, the
// call and the driver's name of the error. AOTRT_CU_CALL evaluates `what` only then.
[[noreturn]] void ThrowCuError(CUresult err, const char* call, const std::string& what);
#define AOTRT_CU_CALL(fn, args, what) \
  do { if (::aotrt::CUresult e_ = ::aotrt::CudaState::Get().fn args) ::aotrt::ThrowCuError(e_, #fn, what); } while (0)

}  // namespace aotrt
