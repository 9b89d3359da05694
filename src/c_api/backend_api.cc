// C ABI: what generated model code calls (ABI.md 2.2), the last-error slot and aotrt extensions.
#include <tvm/runtime/c_backend_api.h>

#include "aotrt/c_api.h"
#include "backend/thread_pool.h"
#include "backend/workspace.h"
#include "base/error_util.h"
#include "base/logging.h"
#include "c_api/api_guard.h"
#include "module/library_module.h"
#include "module/symbol_source.h"

using namespace aotrt;

extern "C" {

void TVMAPISetLastError(const char* msg) { SetLastError(ErrorCode::kModelError, msg ? msg : ""); }

const char* TVMGetLastError(void) { return LastErrorMessage(); }

int AOTRTGetLastErrorCode(void) { return static_cast<int>(LastErrorCode()); }

const char* AOTRTGetVersion(void) { return AOTRT_VERSION; }

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

void* TVMBackendAllocWorkspace(int device_type, int device_id, uint64_t nbytes, int, int) {
  if (device_type != kDLCPU) {
    SetLastError(ErrorCode::kInvalidArgument,
                 StrCat("TVMBackendAllocWorkspace: only CPU workspace is supported, got device type ", device_type,
                        " id ", device_id));
    return nullptr;
  }
  return WorkspaceAlloc(nbytes);
}

int TVMBackendFreeWorkspace(int device_type, int, void* ptr) {
  if (device_type != kDLCPU) {
    SetLastError(ErrorCode::kInvalidArgument, StrCat("TVMBackendFreeWorkspace: device type ", device_type, " is not CPU"));
    return -1;
  }
  return WorkspaceFree(ptr) ? 0 : -1;
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

int TVMBackendRegisterEnvCAPI(const char* name, void*) {
  AOTRT_API_BEGIN();
  AOTRT_REQUIRE(name, kInvalidArgument, "TVMBackendRegisterEnvCAPI: null name");
  AOTRT_LOG_DEBUG("TVMBackendRegisterEnvCAPI('", name, "') ignored: aotrt has no host-environment hooks");
  AOTRT_API_END();
}

int TVMBackendParallelLaunch(FTVMParallelLambda flambda, void* cdata, int num_task) {
  return ParallelLaunch(flambda, cdata, num_task);
}

int TVMBackendParallelBarrier(int task_id, TVMParallelGroupEnv* penv) { return ParallelBarrier(task_id, penv); }

int TVMBackendRunOnce(void** handle, int (*f)(void*), void* cdata, int) {
  if (!handle || !f) {
    SetLastError(ErrorCode::kInvalidArgument, "TVMBackendRunOnce: null argument");
    return -1;
  }
  if (*handle == nullptr) {
    *handle = reinterpret_cast<void*>(1);
    return f(cdata);
  }
  return 0;
}

}  // extern "C"
