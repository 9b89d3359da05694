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

/* Called by generated code (and by host bindings for RegisterEnvCAPI). Failures return -1 or NULL
 * with the calling thread's last error set (TVMGetLastError, AOTRTGetLastErrorCode: aotrt/error.h
 * codes). No C++ exception ever leaves these functions: out of memory inside them, or a
 * parallel task that throws, becomes an error like any other. */

/*! \brief Look `func_name` up in the imports of the module whose context is `mod_node`, then in the
 *  global registry. The handle is borrowed (do not free it) and stays valid while the library is
 *  loaded: the module caches it. Thread-safe (per-module lock).
 *  Errors: kInvalidArgument (null argument, or mod_node is not a library module's context),
 *  kNotFound (no such function anywhere), kOutOfMemory. */
TVM_DLL int TVMBackendGetFuncFromEnv(void* mod_node, const char* func_name, TVMFunctionHandle* out);
/*! \brief Called by a system-lib library's static constructors: record symbol `name` (copied) at
 *  `ptr` (borrowed; must stay valid while the library is loaded) for runtime.SystemLib.
 *  Re-registering a name replaces it (with a warning). Thread-safe.
 *  Errors: kInvalidArgument (null name), kOutOfMemory. */
TVM_DLL int TVMBackendRegisterSystemLibSymbol(const char* name, void* ptr);
/*! \brief Per-thread scratch memory of `nbytes`, 64-byte aligned, owned by the calling thread's
 *  pool: release it with TVMBackendFreeWorkspace on the same thread (the pool reuses it; it is
 *  freed when the thread exits). Thread-safe (per-thread pool). Returns NULL on failure, with
 *  kInvalidArgument (device type not CPU) or kOutOfMemory (request over 2^46 bytes, or the
 *  allocation or the pool's bookkeeping failed; the message names the size). */
TVM_DLL void* TVMBackendAllocWorkspace(int device_type, int device_id, uint64_t nbytes,
                                       int dtype_code_hint, int dtype_bits_hint);
/*! \brief Release memory from TVMBackendAllocWorkspace on the same thread (back to the pool).
 *  Errors: kInvalidArgument (device type not CPU, or `ptr` not in use in this thread's pool). */
TVM_DLL int TVMBackendFreeWorkspace(int device_type, int device_id, void* ptr);
/*! \brief Register a host C function by name: "Py_IncRef" / "Py_DecRef" (used to hold a Python
 *  exception as the last error), "PyGILState_Ensure" / "PyGILState_Release" (registered by TVM
 *  v0.15+'s Python package; taken around Py_DecRef, which otherwise uses the interpreter's own
 *  functions found in the process) or "PyErr_CheckSignals" (accepted, never called).
 *  `ptr` must stay valid until it is registered again. Thread-safe.
 *  Errors: kInvalidArgument (null name, unknown name). */
TVM_DLL int TVMBackendRegisterEnvCAPI(const char* name, void* ptr);
/*! \brief Run f(task_id, env, cdata) for every task concurrently; the caller runs task 0.
 *  num_task 0 means the worker count. Launching from inside a task is an error. `cdata` is
 *  borrowed for the call. Launches from different threads are serialised. A task that throws
 *  fails like one returning -1 (worker threads never let an exception escape).
 *  Errors: kInvalidArgument (null f, num_task out of range, nested launch), kOutOfMemory (worker
 *  threads could not be started), or the first failed task's own code: the code of the error it
 *  recorded (e.g. kOutOfMemory from a workspace), else kModelError; the message lists every failed
 *  task ("Task i error: ..."). */
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
