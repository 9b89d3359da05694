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
 * Handle checks. Every handle is checked before use by the type tag in its object's header (read
 * inside the object, never outside it): one of another kind (a module given to TVMArrayFree, an
 * NDArray's DLTensor* to TVMObjectFree) is refused with kTypeMismatch or kInvalidArgument and left
 * untouched. A tensor a caller describes is validated before its shape is read (ndim in [0, 64]).
 * The caller's contract: a handle is one this library returned and whose reference the caller
 * still holds. A released handle is refused as "not live" while its memory is not reused (the tag
 * is cleared on destruction); reused by a new object of the same kind, that object is released
 * instead. TVMArrayFree reads the 16 bytes before a caller's own DLTensor. Builds with
 * AOTRT_CHECKED_HANDLES (the default of sanitizer builds) track live objects and refuse any stale
 * or foreign handle without reading its memory.
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
  /* A bool in v_int64 (0 or 1), from TVM v0.18's code and Python package; accepted wherever
     kTVMArgInt is. TVM v0.9-v0.17 and aotrt's Python package pass kTVMArgInt (ABI.md 11.3c). */
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
 * Codes are aotrt::ErrorCode values (aotrt/error.h) read with AOTRTGetLastErrorCode(): 1 kInvalidArgument,
 * 2 kNotFound, 3 kOutOfRange, 4 kTypeMismatch, 5 kShapeMismatch, 6 kFormatError, 7 kIOError,
 * 8 kOutOfMemory, 9 kModelError, 10 kNotImplemented, 11 kInternal, 12 kInterrupted. A null or
 * wrong-kind handle gives kInvalidArgument (null) or kTypeMismatch (wrong kind); any call that
 * allocates can also fail with kOutOfMemory. A call that succeeds leaves the last error as it was. */

/*! \brief Record `msg` (copied; NULL: "") as the calling thread's last error, code kModelError (9):
 *  what model code and C callbacks call before returning -1. Never fails. Thread-safe (per thread). */
TVM_DLL void TVMAPISetLastError(const char* msg);
/*! \brief The calling thread's last error message (borrowed; valid until its next error), or NULL
 *  when none was recorded or it is a Python exception. Never fails. Thread-safe (per thread). */
TVM_DLL const char* TVMGetLastError(void);
/*! \brief Record the Python exception `py_exc` (a PyObject*, one reference taken with the Py_IncRef
 *  of TVMBackendRegisterEnvCAPI) as the last error, up to the outermost failing call; released by
 *  TVMDropLastPythonError or the thread's next error. Without Py_IncRef/Py_DecRef registered,
 *  records kInvalidArgument instead. Never throws. Thread-safe. */
TVM_DLL void TVMAPISetLastPythonError(void* py_exc);
/*! \brief The recorded Python exception (borrowed: until dropped or the thread's next error), or NULL. */
TVM_DLL void* TVMGetLastPythonError(void);
/*! \brief Release the recorded Python exception (Py_DecRef); the last error becomes "". Never fails. */
TVM_DLL void TVMDropLastPythonError(void);
/*! \brief Native backtrace of the last error: always NULL (aotrt records none). */
TVM_DLL const char* TVMGetLastBacktrace(void);

/* ---- modules ---- */
/*! \brief Load a module file (format "" or NULL: by its extension). *out is the owned root module
 *  (an AOT export's AotExecutorFactory; TVMModFree); the library stays loaded while any module or
 *  function handle from it lives. Thread-safe (loads may run side by side). Errors, *out untouched:
 *  kInvalidArgument (null argument, unsupported format), kNotFound (no such file, no loader for a
 *  blob entry, missing symbol), kIOError (open/read/dlopen refused), kFormatError (corrupt blob,
 *  metadata, params or ELF), kOutOfRange, kTypeMismatch (inconsistent metadata), kOutOfMemory. */
TVM_DLL int TVMModLoadFromFile(const char* file_name, const char* format, TVMModuleHandle* out);
/*! \brief Make `mod` import `dep` (its own reference; the caller still frees both). Not thread-safe
 *  against other calls on `mod`. Errors: kInvalidArgument (null, a cycle), kTypeMismatch (not a module). */
TVM_DLL int TVMModImport(TVMModuleHandle mod, TVMModuleHandle dep);
/*! \brief Look up `func_name` in `mod` (and with query_imports != 0 its imports, depth first); *out
 *  = NULL (0 returned) when absent, else a new reference (TVMFuncFree) keeping the module alive.
 *  Thread-safe. Errors: kInvalidArgument (null argument), kTypeMismatch (not a module), or the
 *  module's own lookup's (e.g. kOutOfMemory). */
TVM_DLL int TVMModGetFunction(TVMModuleHandle mod, const char* func_name, int query_imports,
                              TVMFunctionHandle* out);
/*! \brief Release one reference to `mod` (from a load or a kTVMModuleHandle result); not to be used
 *  afterwards. Thread-safe. Errors: kInvalidArgument (null, not live), kTypeMismatch (another kind). */
TVM_DLL int TVMModFree(TVMModuleHandle mod);

/* ---- functions ---- */
/*! \brief Release one reference to `func`. Errors: kInvalidArgument (null, not live), kTypeMismatch. */
TVM_DLL int TVMFuncFree(TVMFunctionHandle func);
/*! \brief Call a packed function with borrowed arguments. Object results are new references owned
 *  by the caller; kTVMStr and kTVMBytes ones live in thread-local storage until the thread's next
 *  call; no result gives kTVMNullptr; a kTVMDataType result comes as its string (kTVMStr).
 *  Thread-safety is the function's (an executor's: one thread at a time). Errors (*ret_val then
 *  unspecified): kInvalidArgument (null func, ret slots, or argument arrays with num_args > 0),
 *  kTypeMismatch (not a function), else the function's (an executor's: kInvalidArgument, kNotFound,
 *  kOutOfRange, kTypeMismatch, kShapeMismatch, kModelError from the model's code, kOutOfMemory). */
TVM_DLL int TVMFuncCall(TVMFunctionHandle func, TVMValue* arg_values, int* type_codes, int num_args,
                        TVMValue* ret_val, int* ret_type_code);
/*! \brief From inside a TVMPackedCFunc, on its `ret` and thread: its return value from value[0] /
 *  type_code[0] (objects retained, the callback keeps its reference; strings and bytes copied).
 *  Errors: kInvalidArgument (null argument, num_ret != 1), kTypeMismatch (unsupported code). */
TVM_DLL int TVMCFuncSetReturn(TVMRetValueHandle ret, TVMValue* value, int* type_code, int num_ret);
/*! \brief A callback argument made a value it may return or keep: an object handle gets a reference
 *  (the caller's, to free or pass to TVMCFuncSetReturn); kTVMObjectRValueRefArg takes the argument's
 *  and becomes kTVMObjectHandle. Thread-safe. Errors: kInvalidArgument (null value or code). */
TVM_DLL int TVMCbArgToReturn(TVMValue* value, int* code);
/*! \brief Wrap a C callback (called from any thread) as a packed function; *out is the caller's
 *  (TVMFuncFree). `resource_handle` must stay valid until `fin(resource_handle)` runs, once, when the
 *  last reference goes. A non-zero return fails the call with the callback's last error
 *  (TVMAPISetLastError: kModelError; a Python exception is kept), or kModelError "without a message".
 *  Errors: kInvalidArgument (null func or out), kOutOfMemory (fin is not called then). */
TVM_DLL int TVMFuncCreateFromCFunc(TVMPackedCFunc func, void* resource_handle,
                                   TVMPackedCFuncFinalizer fin, TVMFunctionHandle* out);
/*! \brief Register `f` under `name` (copied; the registry takes its own reference, the caller still
 *  frees `f`). Thread-safe. Errors: kInvalidArgument (null or empty name, name taken and override
 *  == 0), kTypeMismatch (not a function). */
TVM_DLL int TVMFuncRegisterGlobal(const char* name, TVMFunctionHandle f, int override);
/*! \brief Global lookup: a new reference (TVMFuncFree), as TVM's; *out = NULL when absent. */
TVM_DLL int TVMFuncGetGlobal(const char* name, TVMFunctionHandle* out);
/*! \brief Names of all globals, in thread-local storage until the thread's next call (not freed). */
TVM_DLL int TVMFuncListGlobalNames(int* out_size, const char*** out_array);
/*! \brief Remove global `name` (absent: no-op); handles obtained stay valid. Errors: kInvalidArgument. */
TVM_DLL int TVMFuncRemoveGlobal(const char* name);

/* ---- arrays ---- */
/*! \brief A zero-filled, 64-byte aligned array of `shape` (ndim entries, copied); *out is the
 *  caller's (TVMArrayFree). Thread-safe. Errors: kInvalidArgument (null out, null shape with ndim >
 *  0, ndim outside [0, 64], a device without a driver, dtype out of range), kShapeMismatch (a
 *  negative dimension, the byte size overflows), kOutOfMemory. */
TVM_DLL int TVMArrayAlloc(const tvm_index_t* shape, int ndim, int dtype_code, int dtype_bits,
                          int dtype_lanes, int device_type, int device_id, TVMArrayHandle* out);
/*! \brief Release one reference to the array (from TVMArrayAlloc, TVMArrayFromDLPack or a result);
 *  the data goes with the last. Thread-safe. Errors: kInvalidArgument (null, not a live NDArray),
 *  kTypeMismatch (an object handle). */
TVM_DLL int TVMArrayFree(TVMArrayHandle handle);
/*! \brief 2 (runtime.NDArray). Errors: kInvalidArgument (null argument), kTypeMismatch (not an NDArray). */
TVM_DLL int TVMArrayGetTypeIndex(TVMArrayHandle handle, unsigned* out_tindex);
/*! \brief Copy exactly the array's byte size from `data` (borrowed). Not thread-safe against other
 *  writers. Errors: kInvalidArgument (null handle, null data with nbytes > 0, non-contiguous
 *  array), kShapeMismatch (nbytes is not the array's size). */
TVM_DLL int TVMArrayCopyFromBytes(TVMArrayHandle handle, void* data, size_t nbytes);
/*! \brief As TVMArrayCopyFromBytes, into `data`. Thread-safe against other readers. */
TVM_DLL int TVMArrayCopyToBytes(TVMArrayHandle handle, void* data, size_t nbytes);
/*! \brief Copy `from` into `to` (same byte size, both contiguous CPU tensors; handles borrowed,
 *  stream ignored). Errors: kInvalidArgument (null handle, non-contiguous, non-CPU),
 *  kShapeMismatch (byte sizes differ). */
TVM_DLL int TVMArrayCopyFromTo(TVMArrayHandle from, TVMArrayHandle to, TVMStreamHandle stream);
/*! \brief Wrap a DLPack tensor without copying: the array owns `from` (its deleter runs with the
 *  last reference); on failure the caller still does. Thread-safe. Errors: kInvalidArgument (null
 *  argument, a device without a driver, bad ndim). */
TVM_DLL int TVMArrayFromDLPack(DLManagedTensor* from, TVMArrayHandle* out);
/*! \brief Export the array as DLPack without copying: *out holds a reference, released by calling
 *  its deleter once (TVMDLManagedTensorCallDeleter); the caller still frees `from`. Thread-safe.
 *  Errors: kInvalidArgument (null argument), kTypeMismatch (not an NDArray), kOutOfMemory. */
TVM_DLL int TVMArrayToDLPack(TVMArrayHandle from, DLManagedTensor** out);
/*! \brief dltensor->deleter(dltensor) when both are non-NULL; not to be used afterwards. */
TVM_DLL void TVMDLManagedTensorCallDeleter(DLManagedTensor* dltensor);

/* ---- streams and devices: errors kInvalidArgument (a device without a driver) ---- */
/*! \brief *out (if non-NULL) = a new stream of the device; on the CPU NULL, nothing to free. */
TVM_DLL int TVMStreamCreate(int device_type, int device_id, TVMStreamHandle* out);
/*! \brief Free a stream of TVMStreamCreate (on the CPU a no-op). */
TVM_DLL int TVMStreamFree(int device_type, int device_id, TVMStreamHandle stream);
/*! \brief Make `handle` the device's current stream (on the CPU a no-op). */
TVM_DLL int TVMSetStream(int device_type, int device_id, TVMStreamHandle handle);
/*! \brief Wait for the work queued on `stream` (on the CPU it is done when calls return). */
TVM_DLL int TVMSynchronize(int device_type, int device_id, TVMStreamHandle stream);
/*! \brief Wait for the work queued on `src` (on the CPU a no-op). */
TVM_DLL int TVMStreamStreamSynchronize(int device_type, int device_id, TVMStreamHandle src,
                                       TVMStreamHandle dst);
/*! \brief `nbytes` of device memory aligned to max(alignment, 64), the caller's (TVMDeviceFreeDataSpace).
 *  Thread-safe. Errors: kInvalidArgument (a device without a driver, null out_data, alignment not a
 *  power of two), kOutOfMemory (naming the size; also over 2^46 bytes). */
TVM_DLL int TVMDeviceAllocDataSpace(DLDevice dev, size_t nbytes, size_t alignment,
                                    DLDataType type_hint, void** out_data);
/*! \brief The same for a tensor of `shape` (ndim entries) and `dtype`; mem_scope NULL, "" or "global".
 *  Errors: kInvalidArgument (other scope, null shape), kShapeMismatch (size), kOutOfMemory. */
TVM_DLL int TVMDeviceAllocDataSpaceWithScope(DLDevice dev, int ndim, const int64_t* shape,
                                             DLDataType dtype, const char* mem_scope,
                                             void** out_data);
/*! \brief Free memory of TVMDeviceAllocDataSpace(WithScope) (NULL: no-op). Errors: kInvalidArgument. */
TVM_DLL int TVMDeviceFreeDataSpace(DLDevice dev, void* ptr);
/*! \brief Copy tensor `from` into `to` (same byte size, contiguous). Errors: kInvalidArgument (null,
 *  non-contiguous, a device without a driver), kShapeMismatch (sizes). */
TVM_DLL int TVMDeviceCopyDataFromTo(DLTensor* from, DLTensor* to, TVMStreamHandle stream);

/* ---- objects ---- */
/*! \brief Type index of the object behind `obj`. Thread-safe. Errors: kInvalidArgument (null, not live). */
TVM_DLL int TVMObjectGetTypeIndex(TVMObjectHandle obj, unsigned* out_tindex);
/*! \brief Type index of `type_key` ("runtime.Module", a registered type's). Errors: kNotFound. */
TVM_DLL int TVMObjectTypeKey2Index(const char* type_key, unsigned* out_tindex);
/*! \brief *out_type_key: a copy the caller free()s. Errors: kInvalidArgument, kNotFound, kOutOfMemory. */
TVM_DLL int TVMObjectTypeIndex2Key(unsigned tindex, char** out_type_key);
/*! \brief One more reference to `obj` (TVMObjectFree). Errors: kInvalidArgument (null, not live). */
TVM_DLL int TVMObjectRetain(TVMObjectHandle obj);
/*! \brief Release one reference to `obj` (any object handle, modules and functions too; NULL:
 *  no-op, as in TVM). Thread-safe. Errors: kInvalidArgument (not a live object, e.g. an NDArray's
 *  DLTensor*, which TVMArrayFree releases: left intact). */
TVM_DLL int TVMObjectFree(TVMObjectHandle obj);
/*! \brief *is_derived = 1 when child == parent, parent is runtime.Object (0), or child is a type
 *  registered at run time (TVM_DECLARE_*_OBJECT_INFO) below parent. Errors: kInvalidArgument (null). */
TVM_DLL int TVMObjectDerivedFrom(uint32_t child_type_index, uint32_t parent_type_index,
                                 int* is_derived);
/*! \brief No-op: a kTVMBytes result lives in thread-local storage until the thread's next call. */
TVM_DLL int TVMByteArrayFree(TVMByteArray* arr);

#ifdef __cplusplus
}  // extern "C"
#endif
#endif  // TVM_RUNTIME_C_RUNTIME_API_H_
