/*
 * TVM-compatible backend API: the functions generated model code calls (ABI.md section 2).
 * aotrt exports all of them with default visibility and fills the `__TVM*` context pointers of
 * LLVM-built libraries with their addresses at load.
 */
#ifndef TVM_RUNTIME_C_BACKEND_API_H_
#define TVM_RUNTIME_C_BACKEND_API_H_

#include <tvm/runtime/c_runtime_api.h>

#ifdef __cplusplus
extern "C" {
#endif

/*! \brief Signature of every function a model library exports (operators, AOT entry,
 *  get_c_metadata). The caller pre-sets *out_ret_tcode to kTVMNullptr. */
typedef int (*TVMBackendPackedCFunc)(TVMValue* args, int* type_codes, int num_args,
                                     TVMValue* out_ret_value, int* out_ret_tcode,
                                     void* resource_handle);

/*! \brief Environment of one parallel launch. */
typedef struct {
  void* sync_handle;
  int32_t num_task;
} TVMParallelGroupEnv;

typedef int (*FTVMParallelLambda)(int task_id, TVMParallelGroupEnv* penv, void* cdata);

/*! \brief Look `func_name` up in the imports of the module whose context is `mod_node`, then in the
 *  global registry. The handle is borrowed and stays valid while the library is loaded. */
TVM_DLL int TVMBackendGetFuncFromEnv(void* mod_node, const char* func_name, TVMFunctionHandle* out);
TVM_DLL int TVMBackendRegisterSystemLibSymbol(const char* name, void* ptr);
/*! \brief Per-thread scratch memory, 64-byte aligned; NULL (with a last error) on failure. */
TVM_DLL void* TVMBackendAllocWorkspace(int device_type, int device_id, uint64_t nbytes,
                                       int dtype_code_hint, int dtype_bits_hint);
/*! \brief Release memory from TVMBackendAllocWorkspace on the same thread. */
TVM_DLL int TVMBackendFreeWorkspace(int device_type, int device_id, void* ptr);
TVM_DLL int TVMBackendRegisterEnvCAPI(const char* name, void* ptr);
/*! \brief Run f(task_id, env, cdata) for every task concurrently; the caller runs task 0.
 *  num_task 0 means the worker count. Launching from inside a task is an error. */
TVM_DLL int TVMBackendParallelLaunch(FTVMParallelLambda flambda, void* cdata, int num_task);
TVM_DLL int TVMBackendParallelBarrier(int task_id, TVMParallelGroupEnv* penv);
TVM_DLL int TVMBackendRunOnce(void** handle, int (*f)(void*), void* cdata, int nbytes);

#ifdef __cplusplus
}  // extern "C"
#endif
#endif  // TVM_RUNTIME_C_BACKEND_API_H_
