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

/* Called by generated code (and host bindings: RegisterEnvCAPI). Failures return -1 or NULL with the
 * thread's last error set (TVMGetLastError, AOTRTGetLastErrorCode); no C++ exception leaves them. */

/*! \brief `func_name` from the imports of the module whose context is `mod_node`, else the global
 *  registry: borrowed (cached by the module; valid while the library is loaded). Thread-safe. Errors:
 *  kInvalidArgument (null argument, not a library module's context), kNotFound, kOutOfMemory. */
TVM_DLL int TVMBackendGetFuncFromEnv(void* mod_node, const char* func_name, TVMFunctionHandle* out);
/*! \brief From a system-lib library's static constructors: symbol `name` (copied) is at `ptr` (valid
 *  while the library is loaded), for runtime.SystemLib; a name again replaces it (with a warning).
 *  Thread-safe. Errors: kInvalidArgument (null name), kOutOfMemory. */
TVM_DLL int TVMBackendRegisterSystemLibSymbol(const char* name, void* ptr);
/*! \brief `nbytes` of 64-byte aligned scratch from the calling thread's pool, released with
 *  TVMBackendFreeWorkspace on that thread (reused; freed when the thread exits). NULL on failure:
 *  kInvalidArgument (not the CPU), kOutOfMemory (over 2^46 bytes, or no memory; naming the size). */
TVM_DLL void* TVMBackendAllocWorkspace(int device_type, int device_id, uint64_t nbytes,
                                       int dtype_code_hint, int dtype_bits_hint);
/*! \brief Release memory from TVMBackendAllocWorkspace on the same thread (back to the pool).
 *  Errors: kInvalidArgument (device type not CPU, or `ptr` not in use in this thread's pool). */
TVM_DLL int TVMBackendFreeWorkspace(int device_type, int device_id, void* ptr);
/*! \brief A host C function by name (`ptr` valid until registered again): "Py_IncRef" / "Py_DecRef"
 *  (to hold a Python exception as the last error), "PyGILState_Ensure" / "PyGILState_Release" (TVM
 *  v0.15+'s; taken around Py_DecRef), "PyErr_CheckSignals" (never called). Thread-safe.
 *  Errors: kInvalidArgument (null or unknown name). */
TVM_DLL int TVMBackendRegisterEnvCAPI(const char* name, void* ptr);
/*! \brief Run f(task_id, env, cdata) for every task concurrently, task 0 on the caller (num_task 0:
 *  the worker count; cdata borrowed). Launches from different threads are serialised; a task that
 *  throws fails as one returning -1. Errors: kInvalidArgument (null f, num_task out of range, a
 *  launch from a task), kOutOfMemory (no worker threads), or the first failed task's recorded code
 *  (else kModelError), with a message listing every failed task ("Task i error: ..."). */
TVM_DLL int TVMBackendParallelLaunch(FTVMParallelLambda flambda, void* cdata, int num_task);
/*! \brief Wait until every task of the current launch reached the barrier. Call only from inside
 *  a task with the env it was given. Errors: kInvalidArgument (outside a launch, bad task_id). */
TVM_DLL int TVMBackendParallelBarrier(int task_id, TVMParallelGroupEnv* penv);
/*! \brief Run f(cdata) if *handle is NULL, marking *handle first; returns f's result, or 0 if it
 *  already ran. Not thread-safe: generated code calls it from one thread per handle.
 *  Errors: kInvalidArgument (null handle or f); f's own -1 is passed through. */
TVM_DLL int TVMBackendRunOnce(void** handle, int (*f)(void*), void* cdata, int nbytes);

#ifdef __cplusplus
}  // extern "C"
#endif
#endif  // TVM_RUNTIME_C_BACKEND_API_H_
