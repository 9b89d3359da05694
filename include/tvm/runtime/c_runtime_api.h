/*
 * TVM-compatible host C API, as implemented by aotrt (see ../shared/ABI.md section 3).
 *
 * Every int-returning function returns 0 on success and -1 on failure, with a message in the
 * calling thread's last-error slot (TVMGetLastError). Handles are reference counted: a handle
 * returned through an `out` parameter or as a TVMFuncCall result is owned by the caller and must
 * be released with the matching Free call (TVMModFree, TVMFuncFree, TVMArrayFree, TVMObjectFree).
 * Functions are thread-safe unless stated; objects behind handles follow the thread-safety rules
 * of the object (one AotExecutor is for one thread at a time).
 *
 * Handle checks. Every object carries a type tag in its header, and every handle is checked
 * before use: a handle of another kind (a module passed to TVMArrayFree, an NDArray's DLTensor*
 * passed to TVMObjectFree or TVMFuncFree) is refused with kTypeMismatch or kInvalidArgument and
 * left untouched; kinds are told apart by reading inside the object the handle points to, never
 * outside it. Tensors a caller describes (ndim, shape, device type) are validated before their
 * shape is read: ndim must lie in [0, 64].
 * What remains the caller's contract: a handle must be one this library returned and whose
 * reference the caller has not yet released. Releasing it twice, or using it afterwards, reads
 * freed memory: such a handle is refused as "not live" when its memory has not been reused (the
 * tag is cleared on destruction), but if the memory was reused by a new object of the same kind
 * that object is released instead. A DLTensor the caller owns passed to TVMArrayFree has the 16
 * bytes before it read. Builds with AOTRT_CHECKED_HANDLES (the default of sanitizer builds) keep a
 * registry of live objects and refuse any stale or foreign handle without reading its memory.
 */
#ifndef TVM_RUNTIME_C_RUNTIME_API_H_
#define TVM_RUNTIME_C_RUNTIME_API_H_

#include <dlpack/dlpack.h>
#include <stddef.h>
#include <stdint.h>

#ifndef TVM_DLL
#define TVM_DLL __attribute__((visibility("default")))
#endif

#ifdef __cplusplus
extern "C" {
#endif

#define TVM_VERSION "0.14.0"

/*! \brief Extension device types beyond DLPack's (values from TVM). */
typedef enum {
  kDLAOCL = 32,
  kDLSDAccel = 33,
  kOpenGL = 34,
  kDLMicroDev = 35,
  TVMDeviceExtType_End36
} TVMDeviceExtType;

/*! \brief Type codes of TVMValue arguments and return values (ABI.md 1.1). */
typedef enum {
  kTVMArgInt = kDLInt,
  kTVMArgFloat = kDLFloat,
  kTVMOpaqueHandle = 3U,
  kTVMNullptr = 4U,
  kTVMDataType = 5U,
  kDLDevice = 6U,
  kTVMDLTensorHandle = 7U,
  kTVMObjectHandle = 8U,
  kTVMModuleHandle = 9U,
  kTVMPackedFuncHandle = 10U,
  kTVMStr = 11U,
  kTVMBytes = 12U,
  kTVMNDArrayHandle = 13U,
  kTVMObjectRValueRefArg = 14U,
  /* A bool in v_int64 (0 or 1). Added by TVM v0.18, whose generated code and Python package pass
     boolean scalars with it; aotrt accepts it wherever it accepts kTVMArgInt. TVM v0.9-v0.17 pass
     bools as kTVMArgInt, and so does aotrt's own Python package (ABI.md 11.3c). */
  kTVMArgBool = 15U,
  kTVMExtBegin = 16U, /* 15 up to TVM v0.17, moved by v0.18 for kTVMArgBool */
  kTVMNNVMFirst = 16U,
  kTVMNNVMLast = 20U,
  kTVMExtReserveEnd = 64U,
  kTVMExtEnd = 128U,
} TVMArgTypeCode;

typedef DLTensor* TVMArrayHandle;

/* Spellings from before DLPack 0.5 / TVM v0.8 that deployment programs still use: DLPack's
   DLContext (now DLDevice, same fields), TVM's TVMContext, and the old CUDA device names. */
typedef DLDevice DLContext;
typedef DLDevice TVMContext;
#define kDLGPU kDLCUDA
#define kDLCPUPinned kDLCUDAHost
typedef int64_t tvm_index_t;

/*! \brief One argument or return value; the type code says which member is valid. */
typedef union {
  int64_t v_int64;
  double v_float64;
  void* v_handle;
  const char* v_str;
  DLDataType v_type;
  DLDevice v_device;
  DLDevice v_ctx; /* v_device's name before TVM v0.8 (the DLContext era): the same member */
} TVMValue;

/*! \brief A byte buffer passed as kTVMBytes. Not owned by the struct. */
typedef struct {
  const char* data;
  size_t size;
} TVMByteArray;

typedef void* TVMModuleHandle;
typedef void* TVMFunctionHandle;
typedef void* TVMRetValueHandle;
typedef void* TVMStreamHandle;
typedef void* TVMObjectHandle;

/*! \brief A C callback wrapped as a packed function (TVMFuncCreateFromCFunc). Return 0 or -1. */
typedef int (*TVMPackedCFunc)(TVMValue* args, int* type_codes, int num_args, TVMRetValueHandle ret,
                              void* resource_handle);
typedef void (*TVMPackedCFuncFinalizer)(void* resource_handle);
typedef int (*TVMExtensionFuncDeclarer)(TVMFunctionHandle register_func_handle);

/* ---- errors ----
 * Error codes below are aotrt::ErrorCode values (aotrt/error.h) read with AOTRTGetLastErrorCode():
 * 1 kInvalidArgument, 2 kNotFound, 3 kOutOfRange, 4 kTypeMismatch, 5 kShapeMismatch,
 * 6 kFormatError, 7 kIOError, 8 kOutOfMemory, 9 kModelError, 10 kNotImplemented, 11 kInternal,
 * 12 kInterrupted.
 * A null or wrong-kind handle gives kInvalidArgument (null) or kTypeMismatch (wrong kind); any call
 * that allocates can also fail with kOutOfMemory. A call that succeeds leaves the last error as it was.
 */

/*! \brief Record `msg` (copied; NULL means "") as the calling thread's last error, with code
 *  kModelError (9): this is what generated model code and C callbacks call before returning -1.
 *  Never fails. Thread-safe: touches only the calling thread's slot. */
TVM_DLL void TVMAPISetLastError(const char* msg);
/*! \brief The calling thread's last error message; valid until the next error on this thread.
 *  NULL when none was recorded, or when the last error is a Python exception. Borrowed: do not
 *  free. Never fails. Thread-safe (per-thread slot). */
TVM_DLL const char* TVMGetLastError(void);
/*! \brief Record the Python exception `py_exc` (a PyObject*) as the calling thread's last error,
 *  taking one reference through the Py_IncRef registered with TVMBackendRegisterEnvCAPI. It stays
 *  the last error through every native frame up to the outermost failing call. Released by
 *  TVMDropLastPythonError or by the next error on this thread. If Py_IncRef/Py_DecRef were not
 *  registered, records kInvalidArgument instead (returns nothing; never throws). Thread-safe. */
TVM_DLL void TVMAPISetLastPythonError(void* py_exc);
/*! \brief The recorded Python exception (borrowed: valid until TVMDropLastPythonError or the next
 *  error on this thread), or NULL when the last error is not one. Never fails. Thread-safe. */
TVM_DLL void* TVMGetLastPythonError(void);
/*! \brief Release the recorded Python exception (one Py_DecRef); the last error becomes "". No-op
 *  otherwise. Never fails. Thread-safe (per-thread slot). */
TVM_DLL void TVMDropLastPythonError(void);
/*! \brief Native backtrace of the last error: always NULL (aotrt records none). Never fails. */
TVM_DLL const char* TVMGetLastBacktrace(void);

/* ---- modules ---- */
/*! \brief Load a module file; format "" or NULL means the file extension. On success *out is the
 *  owned root module (for an AOT export: the AotExecutorFactory); free it with TVMModFree. The
 *  library stays loaded while any module or function handle from it is alive. `file_name` is only
 *  read during the call. Thread-safe (loads from several threads may run side by side).
 *  Errors: kInvalidArgument (null file_name or out, unsupported format), kNotFound (no such file,
 *  no loader for a blob entry, missing symbol), kIOError (open/read/dlopen refused), kFormatError
 *  (corrupt blob, metadata, params or ELF), kOutOfRange, kTypeMismatch (metadata inconsistent),
 *  kOutOfMemory, kInternal. *out is untouched on failure. */
TVM_DLL int TVMModLoadFromFile(const char* file_name, const char* format, TVMModuleHandle* out);
/*! \brief Make `mod` import `dep`: `mod` takes its own reference to `dep`; the caller keeps (and
 *  still frees) both handles. Not thread-safe against other calls on `mod`.
 *  Errors: kInvalidArgument (null handle, or the import would form a cycle), kTypeMismatch (a
 *  handle is not a module). */
TVM_DLL int TVMModImport(TVMModuleHandle mod, TVMModuleHandle dep);
/*! \brief Look up `func_name` in `mod` (and, if query_imports != 0, in its imports, depth first).
 *  *out = NULL (and 0 returned) when absent. A found handle is a new reference owned by the
 *  caller (TVMFuncFree); it keeps its module alive. Thread-safe.
 *  Errors: kInvalidArgument (null func_name, out or mod), kTypeMismatch (mod is not a module),
 *  or a code from the module's own lookup (e.g. kOutOfMemory). */
TVM_DLL int TVMModGetFunction(TVMModuleHandle mod, const char* func_name, int query_imports,
                              TVMFunctionHandle* out);
/*! \brief Release one reference to `mod` (from TVMModLoadFromFile, AOTRTModLoadFromMemory or a
 *  kTVMModuleHandle result). The handle must not be used afterwards. Thread-safe (atomic count).
 *  Errors: kInvalidArgument (null, or not a live object), kTypeMismatch (another kind of object). */
TVM_DLL int TVMModFree(TVMModuleHandle mod);

/* ---- functions ---- */
/*! \brief Release one reference to `func` (from TVMModGetFunction, TVMFuncGetGlobal,
 *  TVMFuncCreateFromCFunc or a kTVMPackedFuncHandle result). Thread-safe (atomic count).
 *  Errors: kInvalidArgument (null, or not a live object), kTypeMismatch (another kind of object). */
TVM_DLL int TVMFuncFree(TVMFunctionHandle func);
/*! \brief Call a packed function. Arguments are borrowed for the call. Object results
 *  (module, function, NDArray, object handles) are new references owned by the caller; kTVMStr and
 *  kTVMBytes results live in thread-local storage until the next call on this thread; no result
 *  gives kTVMNullptr; a kTVMDataType result is returned as its string (kTVMStr). Thread-safety is
 *  that of the function (an executor's functions: one thread at a time per executor).
 *  Errors: kInvalidArgument (null argument arrays with num_args > 0, null ret slots, null func),
 *  kTypeMismatch (func is not a function), else whatever code the function raises (an executor's:
 *  kInvalidArgument, kNotFound, kOutOfRange, kTypeMismatch, kShapeMismatch, kModelError when the
 *  model's code returns an error, kOutOfMemory). *ret_val is unspecified on failure. */
TVM_DLL int TVMFuncCall(TVMFunctionHandle func, TVMValue* arg_values, int* type_codes, int num_args,
                        TVMValue* ret_val, int* ret_type_code);
/*! \brief From inside a TVMPackedCFunc: set its return value from value[0]/type_code[0]. Objects
 *  are retained (the callback keeps its own reference); strings and bytes are copied. Only valid
 *  on the `ret` handed to the running callback, on that thread.
 *  Errors: kInvalidArgument (null argument, num_ret != 1), kTypeMismatch (unsupported type code). */
TVM_DLL int TVMCFuncSetReturn(TVMRetValueHandle ret, TVMValue* value, int* type_code, int num_ret);
/*! \brief Turn a callback argument into a value the callback may return or keep: object handles
 *  get one more reference (owned by the caller, to free or pass to TVMCFuncSetReturn);
 *  kTVMObjectRValueRefArg takes the argument's reference and becomes kTVMObjectHandle; other codes
 *  are left as they are. Thread-safe. Errors: kInvalidArgument (null value or code). */
TVM_DLL int TVMCbArgToReturn(TVMValue* value, int* code);
/*! \brief Wrap a C callback as a packed function; *out is owned by the caller (TVMFuncFree).
 *  `fin(resource_handle)` runs once when the last reference goes (on that thread); until then
 *  `resource_handle` must stay valid. The callback may be called from any thread. When it returns
 *  non-zero, its last error (TVMAPISetLastError: kModelError; a Python exception is kept) is the
 *  error of the call, or kModelError "without a message" if it set none.
 *  Errors: kInvalidArgument (null func or out), kOutOfMemory (fin is not called then). */
TVM_DLL int TVMFuncCreateFromCFunc(TVMPackedCFunc func, void* resource_handle,
                                   TVMPackedCFuncFinalizer fin, TVMFunctionHandle* out);
/*! \brief Register `f` under `name` (copied); the registry takes its own reference, the caller
 *  still frees `f`. Thread-safe (registry lock).
 *  Errors: kInvalidArgument (null or empty name, name taken and override == 0), kTypeMismatch (f
 *  is not a function). */
TVM_DLL int TVMFuncRegisterGlobal(const char* name, TVMFunctionHandle f, int override);
/*! \brief Global lookup; *out = NULL (and 0 returned) when absent. Returns a new reference (free
 *  it with TVMFuncFree), as TVM does. Thread-safe. Errors: kInvalidArgument (null name or out). */
TVM_DLL int TVMFuncGetGlobal(const char* name, TVMFunctionHandle* out);
/*! \brief Names of all globals; the array and its strings live in thread-local storage until the
 *  next TVMFuncListGlobalNames on this thread (do not free). Thread-safe.
 *  Errors: kInvalidArgument (null out_size or out_array), kOutOfMemory. */
TVM_DLL int TVMFuncListGlobalNames(int* out_size, const char*** out_array);
/*! \brief Remove global `name`; removing an absent name succeeds. Handles already obtained stay
 *  valid. Thread-safe. Errors: kInvalidArgument (null name). */
TVM_DLL int TVMFuncRemoveGlobal(const char* name);

/* ---- arrays ---- */
/*! \brief Allocate a zero-filled, 64-byte aligned CPU array of `shape` (copied; ndim entries);
 *  *out is owned by the caller (TVMArrayFree). Thread-safe.
 *  Errors: kInvalidArgument (null out, null shape with ndim > 0, negative ndim, ndim over 64, a
 *  non-CPU device, dtype code/bits/lanes out of range), kShapeMismatch (a negative dimension, or
 *  the byte size overflows), kOutOfMemory. */
TVM_DLL int TVMArrayAlloc(const tvm_index_t* shape, int ndim, int dtype_code, int dtype_bits,
                          int dtype_lanes, int device_type, int device_id, TVMArrayHandle* out);
/*! \brief Release one reference to the array (from TVMArrayAlloc, TVMArrayFromDLPack or a
 *  kTVMNDArrayHandle result); the data goes with the last one. Thread-safe (atomic count).
 *  Errors: kInvalidArgument (null, or not a live aotrt NDArray), kTypeMismatch (an object handle). */
TVM_DLL int TVMArrayFree(TVMArrayHandle handle);
/*! \brief Type index of the NDArray behind `handle`: always 2 (runtime.NDArray). Thread-safe.
 *  Errors: kInvalidArgument (null handle or out_tindex), kTypeMismatch (not an aotrt NDArray). */
TVM_DLL int TVMArrayGetTypeIndex(TVMArrayHandle handle, unsigned* out_tindex);
/*! \brief Copy exactly the array's byte size from `data` (borrowed) into the array. Not
 *  thread-safe against other writers of the array.
 *  Errors: kInvalidArgument (null handle, null data with nbytes > 0, non-contiguous array),
 *  kShapeMismatch (nbytes differs from the array's size). */
TVM_DLL int TVMArrayCopyFromBytes(TVMArrayHandle handle, void* data, size_t nbytes);
/*! \brief Copy exactly the array's byte size into `data` (borrowed). Same errors as
 *  TVMArrayCopyFromBytes. Thread-safe against other readers. */
TVM_DLL int TVMArrayCopyToBytes(TVMArrayHandle handle, void* data, size_t nbytes);
/*! \brief Copy `from` into `to` (same byte size, both contiguous CPU tensors; handles borrowed,
 *  stream ignored). Errors: kInvalidArgument (null handle, non-contiguous, non-CPU),
 *  kShapeMismatch (byte sizes differ). */
TVM_DLL int TVMArrayCopyFromTo(TVMArrayHandle from, TVMArrayHandle to, TVMStreamHandle stream);
/*! \brief Wrap a DLPack tensor without copying. On success the returned array owns `from` and
 *  calls its deleter when its last reference goes (TVMArrayFree); on failure the caller still owns
 *  `from`. Thread-safe. Errors: kInvalidArgument (null argument, non-CPU device, bad ndim). */
TVM_DLL int TVMArrayFromDLPack(DLManagedTensor* from, TVMArrayHandle* out);
/*! \brief Export the array as DLPack without copying: *out holds one reference to the array and
 *  is released by calling its deleter once (TVMDLManagedTensorCallDeleter); the caller still frees
 *  `from`. Thread-safe. Errors: kInvalidArgument (null out or from), kTypeMismatch (not an NDArray),
 *  kOutOfMemory. */
TVM_DLL int TVMArrayToDLPack(TVMArrayHandle from, DLManagedTensor** out);
/*! \brief Call dltensor->deleter(dltensor) if both are non-NULL; `dltensor` must not be used
 *  afterwards. Never fails. */
TVM_DLL void TVMDLManagedTensorCallDeleter(DLManagedTensor* dltensor);

/* ---- streams and devices (CPU: streams are no-ops) ---- */
/*! \brief *out (if non-NULL) = NULL: CPU has no streams; nothing to free. Thread-safe.
 *  Errors: kInvalidArgument (device type not CPU (1) or CUDA host (3)). */
TVM_DLL int TVMStreamCreate(int device_type, int device_id, TVMStreamHandle* out);
/*! \brief No-op on CPU. Errors: kInvalidArgument (device type not CPU or CUDA host). */
TVM_DLL int TVMStreamFree(int device_type, int device_id, TVMStreamHandle stream);
/*! \brief No-op on CPU. Errors: kInvalidArgument (device type not CPU or CUDA host). */
TVM_DLL int TVMSetStream(int device_type, int device_id, TVMStreamHandle handle);
/*! \brief No-op on CPU (work is done when calls return). Errors: kInvalidArgument (not CPU). */
TVM_DLL int TVMSynchronize(int device_type, int device_id, TVMStreamHandle stream);
/*! \brief No-op on CPU. Errors: kInvalidArgument (device type not CPU or CUDA host). */
TVM_DLL int TVMStreamStreamSynchronize(int device_type, int device_id, TVMStreamHandle src,
                                       TVMStreamHandle dst);
/*! \brief Allocate `nbytes` of CPU memory aligned to max(alignment, 64); *out_data is owned by the
 *  caller and freed with TVMDeviceFreeDataSpace. Thread-safe.
 *  Errors: kInvalidArgument (not CPU, null out_data, alignment not a power of two), kOutOfMemory
 *  (naming the size; also for sizes over 2^46, which would wrap when rounded up near SIZE_MAX). */
TVM_DLL int TVMDeviceAllocDataSpace(DLDevice dev, size_t nbytes, size_t alignment,
                                    DLDataType type_hint, void** out_data);
/*! \brief As TVMDeviceAllocDataSpace for a tensor of `shape` (ndim entries, borrowed) and
 *  `dtype`; mem_scope must be NULL, "" or "global". Same ownership. Errors: kInvalidArgument (other
 *  scope, null shape, not CPU), kShapeMismatch (negative dimension, size overflows), kOutOfMemory. */
TVM_DLL int TVMDeviceAllocDataSpaceWithScope(DLDevice dev, int ndim, const int64_t* shape,
                                             DLDataType dtype, const char* mem_scope,
                                             void** out_data);
/*! \brief Free memory from TVMDeviceAllocDataSpace(WithScope); NULL is a no-op. Thread-safe.
 *  Errors: kInvalidArgument (device type not CPU or CUDA host; the memory is then not freed). */
TVM_DLL int TVMDeviceFreeDataSpace(DLDevice dev, void* ptr);
/*! \brief Copy tensor `from` into `to` (borrowed; same byte size, contiguous, CPU; stream
 *  ignored). Errors: kInvalidArgument (null, non-contiguous, not CPU), kShapeMismatch (sizes). */
TVM_DLL int TVMDeviceCopyDataFromTo(DLTensor* from, DLTensor* to, TVMStreamHandle stream);

/* ---- objects ---- */
/*! \brief Type index of the object behind `obj` (borrowed). Thread-safe.
 *  Errors: kInvalidArgument (null obj or out_tindex, or not a live object). */
TVM_DLL int TVMObjectGetTypeIndex(TVMObjectHandle obj, unsigned* out_tindex);
/*! \brief Type index of `type_key` (e.g. "runtime.Module", or a registered type's). Thread-safe.
 *  Errors: kInvalidArgument (null argument), kNotFound (unknown key). */
TVM_DLL int TVMObjectTypeKey2Index(const char* type_key, unsigned* out_tindex);
/*! \brief *out_type_key is a heap copy the caller frees with free(). Thread-safe.
 *  Errors: kInvalidArgument (null out), kNotFound (unknown index), kOutOfMemory. */
TVM_DLL int TVMObjectTypeIndex2Key(unsigned tindex, char** out_type_key);
/*! \brief Add one reference to `obj`, to be released with TVMObjectFree. Thread-safe.
 *  Errors: kInvalidArgument (null, or not a live object: e.g. an NDArray's DLTensor*). */
TVM_DLL int TVMObjectRetain(TVMObjectHandle obj);
/*! \brief Release one reference to `obj` (any object handle, including modules and functions);
 *  NULL is accepted and does nothing (as in TVM). Thread-safe (atomic count).
 *  Errors: kInvalidArgument (not a live object: e.g. an NDArray's DLTensor*, which TVMArrayFree
 *  releases; the tensor is left intact). */
TVM_DLL int TVMObjectFree(TVMObjectHandle obj);
/*! \brief *is_derived = 1 when child == parent, parent is runtime.Object (0), or child is a type
 *  registered at run time (a program's TVM_DECLARE_*_OBJECT_INFO) below parent; else 0. Thread-safe. Errors: kInvalidArgument (null is_derived). */
TVM_DLL int TVMObjectDerivedFrom(uint32_t child_type_index, uint32_t parent_type_index,
                                 int* is_derived);
/*! \brief No-op: a kTVMBytes result of TVMFuncCall lives in thread-local storage (valid until the
 *  next call on the thread) and is not freed, as in TVM. Never fails. */
TVM_DLL int TVMByteArrayFree(TVMByteArray* arr);

#ifdef __cplusplus
}  // extern "C"
#endif
#endif  // TVM_RUNTIME_C_RUNTIME_API_H_
