// C ABI: what generated model code calls (ABI.md 2.2), the last-error slot and aotrt extensions.
// Generated code cannot catch: every entry point here turns any exception (out of memory
// included) into the last error plus its failure value, through GuardBackendCall / AOTRT_API_END.
#include <tvm/runtime/c_backend_api.h>

#include "aotrt/c_api.h"
#include "aotrt/dtype.h"
#include "aotrt/profiling.h"
#include "backend/thread_pool.h"
#include "backend/workspace.h"
#include "base/device.h"
#include "base/error_util.h"
#include "base/logging.h"
#include "c_api/api_guard.h"
#include "device/device_api.h"
#include "module/library_module.h"
#include "module/loader/system_lib.h"

using namespace aotrt;

extern "C" {

void TVMAPISetLastError(const char* msg) { SetLastErrorNoexcept(ErrorCode::kModelError, nullptr, msg); }

const char* TVMGetLastError(void) { return LastErrorMessage(); }

// The Python error path (ABI.md 11.2b, 11.5).
void* TVMGetLastPythonError(void) { return LastPythonError(); }

// aotrt records no native backtrace: NULL, which TVM's Python package accepts.
const char* TVMGetLastBacktrace(void) { return nullptr; }

void TVMDropLastPythonError(void) { DropLastPythonError(); }

void TVMAPISetLastPythonError(void* py_exc) {
  try {
    SetLastPythonError(py_exc);
  } catch (...) {
    RecordCurrentException(__func__);  // no exception may cross into the (Python) caller
  }
}

int AOTRTGetLastErrorCode(void) { return static_cast<int>(LastErrorCode()); }

const char* AOTRTGetVersion(void) { return AOTRT_VERSION; }

void AOTRTSetInterrupt(int requested) { requested ? RequestInterrupt() : ClearInterrupt(); }

int AOTRTSetLogCallback(AOTRTLogCallback cb, void* user_data) {
  AOTRT_API_BEGIN();
  log::SetCallback(cb, user_data);
  AOTRT_API_END();
}

int AOTRTSetLogLevel(int level) {
  AOTRT_API_BEGIN();
  log::SetLevel(level);
  AOTRT_API_END();
}

// A device's workspace comes from its driver (the host code frees it after its kernels are enqueued:
// the in-order queue keeps it valid for them).
void* TVMBackendAllocWorkspace(int device_type, int device_id, uint64_t nbytes, int, int) {
  return GuardBackendCall<void*>(nullptr, __func__, [&]() -> void* {
    if (IsAcceptedCpuDevice(device_type, device_id)) return WorkspaceAlloc(nbytes);
    DLDevice dev = MakeDevice(device_type, device_id);
    return RequireDevice(dev, "TVMBackendAllocWorkspace").Alloc(device_id, nbytes, kAllocAlignment, "");
  });
}

int TVMBackendFreeWorkspace(int device_type, int device_id, void* ptr) {
  return GuardBackendCall(-1, __func__, [&] {
    if (IsAcceptedCpuDevice(device_type, device_id)) return WorkspaceFree(ptr) ? 0 : -1;
    RequireDevice(MakeDevice(device_type, device_id), "TVMBackendFreeWorkspace").Free(device_id, ptr);
    return 0;
  });
}

int TVMBackendGetFuncFromEnv(void* mod_node, const char* func_name, TVMFunctionHandle* out) {
  AOTRT_API_BEGIN();
  AOTRT_REQUIRE(mod_node && func_name && out, kInvalidArgument,
                "TVMBackendGetFuncFromEnv: null argument (is __tvm_module_ctx set?)");
  auto* lib = dynamic_cast<LibraryModuleNode*>(static_cast<ModuleNode*>(mod_node));
  AOTRT_REQUIRE(lib, kInvalidArgument, "TVMBackendGetFuncFromEnv: context is not a library module");
  *out = lib->GetFuncFromEnv(func_name);
  AOTRT_API_END();
}

int TVMBackendRegisterSystemLibSymbol(const char* name, void* ptr) {
  AOTRT_API_BEGIN();
  RegisterSystemLibSymbol(name, ptr);
  AOTRT_API_END();
}

int TVMBackendRegisterEnvCAPI(const char* name, void* fptr) {
  AOTRT_API_BEGIN();
  AOTRT_REQUIRE(name, kInvalidArgument, "TVMBackendRegisterEnvCAPI: null name");
  AOTRT_REQUIRE(RegisterEnvCAPI(name, fptr), kInvalidArgument, "Unknown env API ", name);
  AOTRT_API_END();
}

int TVMBackendParallelLaunch(FTVMParallelLambda flambda, void* cdata, int num_task) {
  // The operator that launched, for the operator profiler (src/profiling/op_profile.cc).
  const void* caller_pc = __builtin_return_address(0);
  return GuardBackendCall(-1, __func__, [&] { return ParallelLaunch(flambda, cdata, num_task, caller_pc); });
}

int TVMBackendParallelBarrier(int task_id, TVMParallelGroupEnv* penv) {
  return GuardBackendCall(-1, __func__, [&] { return ParallelBarrier(task_id, penv); });
}

int TVMBackendRunOnce(void** handle, int (*f)(void*), void* cdata, int) {
  return GuardBackendCall(-1, __func__, [&] {
    AOTRT_REQUIRE(handle && f, kInvalidArgument, "TVMBackendRunOnce: null argument");
    if (*handle != nullptr) return 0;
    *handle = reinterpret_cast<void*>(1);
    return f(cdata);
  });
}

}  // extern "C"
