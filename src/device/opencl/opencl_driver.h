// The OpenCL driver's state, shared with the OpenCL kernel module (device_module/opencl_module.cc):
// the ICD loader's functions (libOpenCL.so.1, opened at first use, never linked), and every device
// of the machine with its context and in-order queue (profiling enabled: kernels are timed by their
// events). TVM's order: the GPUs of every platform, or,
// where there is none, every device (pocl's CPU device). Built once; then read-only.
#pragma once

#define CL_TARGET_OPENCL_VERSION 120
#include <CL/cl.h>

#include <atomic>
#include <string>
#include <vector>

namespace aotrt {

// The entry points aotrt calls, resolved from the ICD loader.
#define AOTRT_CL_FUNCTIONS(X)                                                                              \
  X(clGetPlatformIDs) X(clGetPlatformInfo) X(clGetDeviceIDs) X(clGetDeviceInfo) X(clCreateContext)          \
  X(clReleaseContext) X(clCreateCommandQueue) X(clReleaseCommandQueue) X(clCreateBuffer)                    \
  X(clReleaseMemObject) X(clEnqueueReadBuffer) X(clEnqueueWriteBuffer) X(clEnqueueCopyBuffer) X(clFinish)   \
  X(clFlush) X(clCreateProgramWithSource) X(clCreateProgramWithBinary) X(clBuildProgram)                    \
  X(clGetProgramBuildInfo) X(clGetProgramInfo) X(clReleaseProgram) X(clCreateKernel) X(clReleaseKernel)     \
  X(clSetKernelArg) X(clEnqueueNDRangeKernel) X(clCreateImage) X(clEnqueueReadImage) X(clEnqueueWriteImage)   \
  X(clEnqueueCopyImage) X(clEnqueueCopyBufferToImage) X(clEnqueueCopyImageToBuffer) X(clGetEventProfilingInfo) \
  X(clReleaseEvent)

struct ClApi {
#define AOTRT_CL_MEMBER(name) decltype(&::name) name = nullptr;
  AOTRT_CL_FUNCTIONS(AOTRT_CL_MEMBER)
#undef AOTRT_CL_MEMBER
};

struct ClDevice {
  cl_platform_id platform = nullptr;
  cl_device_id id = nullptr;
  cl_context context = nullptr;
  cl_command_queue queue = nullptr;
  std::string name, version, driver, platform_name;
};

class OpenCLState {
 public:
  // The process's one state, built at the first call (thread-safe). Never throws: a machine
  // without the library or a platform has no devices and a reason.
  static OpenCLState& Get() { static OpenCLState* s = new OpenCLState(); return *s; }  // never destroyed: used at exit
  const ClApi& cl() const { return cl_; }
  const std::vector<ClDevice>& devices() const { return devices_; }
  const std::string& why_none() const { return why_none_; }
  // Device `id`, checked: throws kInvalidArgument naming `what` and how many there are.
  const ClDevice& device(int id, const char* what) const;
  static inline thread_local int current_device = 0;  // this thread's kernels' (__tvm_set_device)
  // While set (DeviceAPI::TimeOnDevice), this thread's kernel launches add their events here.
  static inline thread_local std::vector<cl_event>* timed_launches = nullptr;
  // Set as the process exits, before the platform's libraries tear down (pocl's LLVM: registered
  // after they load): what is released then (a static model) must not compile anything.
  static inline std::atomic<bool> exiting{false};

 private:
  OpenCLState();
  ClApi cl_;
  std::vector<ClDevice> devices_;
  std::string why_none_;
};

// "CL_OUT_OF_RESOURCES (-5)".
std::string ClErrorName(cl_int err);
// Throws kOutOfMemory for the allocation failures, kModelError for the rest, naming `call` and `what`.
void ThrowClError(cl_int err, const char* call, const std::string& what);
#define AOTRT_CL_CALL(call_expr, what)                          \
  do {                                                          \
    cl_int aotrt_cl_err_ = (call_expr);                         \
    if (aotrt_cl_err_ != CL_SUCCESS) ThrowClError(aotrt_cl_err_, #call_expr, what); \
  } while (0)

}  // namespace aotrt
