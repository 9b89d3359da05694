/*
 * TVM-compatible host C API, as implemented by aotrt (see ../shared/ABI.md section 3).
 *
 * Every int-returning function returns 0 on success and -1 on failure, with a message in the
 * calling thread's last-error slot (TVMGetLastError). Handles are reference counted: a handle
 * returned through an `out` parameter or as a TVMFuncCall result is owned by the caller and must
 * be released with the matching Free call (TVMModFree, TVMFuncFree, TVMArrayFree, TVMObjectFree).
 * Functions are thread-safe unless stated; objects behind handles follow the thread-safety rules
 * of the object (one AotExecutor is for one thread at a time).
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
  kTVMExtBegin = 15U,
  kTVMNNVMFirst = 16U,
  kTVMNNVMLast = 20U,
  kTVMExtReserveEnd = 64U,
  kTVMExtEnd = 128U,
} TVMArgTypeCode;

typedef DLTensor* TVMArrayHandle;
typedef int64_t tvm_index_t;

/*! \brief One argument or return value; the type code says which member is valid. */
typedef union {
  int64_t v_int64;
  double v_float64;
  void* v_handle;
  const char* v_str;
  DLDataType v_type;
  DLDevice v_device;
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

/* ---- errors ---- */
TVM_DLL void TVMAPISetLastError(const char* msg);
/*! \brief The calling thread's last error message; valid until the next error on this thread.
 *  NULL when none was recorded, or when the last error is a Python exception. */
TVM_DLL const char* TVMGetLastError(void);
/*! \brief Record the Python exception `py_exc` (a PyObject*) as the calling thread's last error,
 *  taking one reference through the Py_IncRef registered with TVMBackendRegisterEnvCAPI. It stays
 *  the last error through every native frame up to the outermost failing call. */
TVM_DLL void TVMAPISetLastPythonError(void* py_exc);
/*! \brief The recorded Python exception (borrowed), or NULL when the last error is not one. */
TVM_DLL void* TVMGetLastPythonError(void);
/*! \brief Release the recorded Python exception; the last error becomes "". No-op otherwise. */
TVM_DLL void TVMDropLastPythonError(void);
/*! \brief Native backtrace of the last error: always NULL (aotrt records none). */
TVM_DLL const char* TVMGetLastBacktrace(void);

/* ---- modules ---- */
/*! \brief Load a module file; format "" means the file extension. Returns the owned root module
 *  (for an AOT export: the AotExecutorFactory). */
TVM_DLL int TVMModLoadFromFile(const char* file_name, const char* format, TVMModuleHandle* out);
TVM_DLL int TVMModImport(TVMModuleHandle mod, TVMModuleHandle dep);
/*! \brief Look up a function; *out = NULL (and 0 returned) when absent. The handle is owned. */
TVM_DLL int TVMModGetFunction(TVMModuleHandle mod, const char* func_name, int query_imports,
                              TVMFunctionHandle* out);
TVM_DLL int TVMModFree(TVMModuleHandle mod);

/* ---- functions ---- */
TVM_DLL int TVMFuncFree(TVMFunctionHandle func);
/*! \brief Call a packed function. Object results are owned by the caller; kTVMStr and kTVMBytes
 *  results live in thread-local storage until the next call on this thread; no result gives
 *  kTVMNullptr; a kTVMDataType result is returned as its string (kTVMStr). */
TVM_DLL int TVMFuncCall(TVMFunctionHandle func, TVMValue* arg_values, int* type_codes, int num_args,
                        TVMValue* ret_val, int* ret_type_code);
TVM_DLL int TVMCFuncSetReturn(TVMRetValueHandle ret, TVMValue* value, int* type_code, int num_ret);
TVM_DLL int TVMCbArgToReturn(TVMValue* value, int* code);
TVM_DLL int TVMFuncCreateFromCFunc(TVMPackedCFunc func, void* resource_handle,
                                   TVMPackedCFuncFinalizer fin, TVMFunctionHandle* out);
TVM_DLL int TVMFuncRegisterGlobal(const char* name, TVMFunctionHandle f, int override);
/*! \brief Global lookup; *out = NULL when absent. Returns a new reference (free it), as TVM does. */
TVM_DLL int TVMFuncGetGlobal(const char* name, TVMFunctionHandle* out);
/*! \brief Names of all globals; the array lives in thread-local storage until the next call. */
TVM_DLL int TVMFuncListGlobalNames(int* out_size, const char*** out_array);
TVM_DLL int TVMFuncRemoveGlobal(const char* name);

/* ---- arrays ---- */
TVM_DLL int TVMArrayAlloc(const tvm_index_t* shape, int ndim, int dtype_code, int dtype_bits,
                          int dtype_lanes, int device_type, int device_id, TVMArrayHandle* out);
TVM_DLL int TVMArrayFree(TVMArrayHandle handle);
/*! \brief Type index of the NDArray behind `handle`: always 2 (runtime.NDArray). */
TVM_DLL int TVMArrayGetTypeIndex(TVMArrayHandle handle, unsigned* out_tindex);
TVM_DLL int TVMArrayCopyFromBytes(TVMArrayHandle handle, void* data, size_t nbytes);
TVM_DLL int TVMArrayCopyToBytes(TVMArrayHandle handle, void* data, size_t nbytes);
TVM_DLL int TVMArrayCopyFromTo(TVMArrayHandle from, TVMArrayHandle to, TVMStreamHandle stream);
TVM_DLL int TVMArrayFromDLPack(DLManagedTensor* from, TVMArrayHandle* out);
TVM_DLL int TVMArrayToDLPack(TVMArrayHandle from, DLManagedTensor** out);
TVM_DLL void TVMDLManagedTensorCallDeleter(DLManagedTensor* dltensor);

/* ---- streams and devices (CPU: streams are no-ops) ---- */
TVM_DLL int TVMStreamCreate(int device_type, int device_id, TVMStreamHandle* out);
TVM_DLL int TVMStreamFree(int device_type, int device_id, TVMStreamHandle stream);
TVM_DLL int TVMSetStream(int device_type, int device_id, TVMStreamHandle handle);
TVM_DLL int TVMSynchronize(int device_type, int device_id, TVMStreamHandle stream);
TVM_DLL int TVMStreamStreamSynchronize(int device_type, int device_id, TVMStreamHandle src,
                                       TVMStreamHandle dst);
TVM_DLL int TVMDeviceAllocDataSpace(DLDevice dev, size_t nbytes, size_t alignment,
                                    DLDataType type_hint, void** out_data);
TVM_DLL int TVMDeviceAllocDataSpaceWithScope(DLDevice dev, int ndim, const int64_t* shape,
                                             DLDataType dtype, const char* mem_scope,
                                             void** out_data);
TVM_DLL int TVMDeviceFreeDataSpace(DLDevice dev, void* ptr);
TVM_DLL int TVMDeviceCopyDataFromTo(DLTensor* from, DLTensor* to, TVMStreamHandle stream);

/* ---- objects ---- */
TVM_DLL int TVMObjectGetTypeIndex(TVMObjectHandle obj, unsigned* out_tindex);
TVM_DLL int TVMObjectTypeKey2Index(const char* type_key, unsigned* out_tindex);
/*! \brief *out_type_key is a heap copy the caller frees with free(). */
TVM_DLL int TVMObjectTypeIndex2Key(unsigned tindex, char** out_type_key);
TVM_DLL int TVMObjectRetain(TVMObjectHandle obj);
TVM_DLL int TVMObjectFree(TVMObjectHandle obj);
TVM_DLL int TVMObjectDerivedFrom(uint32_t child_type_index, uint32_t parent_type_index,
                                 int* is_derived);
TVM_DLL int TVMByteArrayFree(TVMByteArray* arr);

#ifdef __cplusplus
}  // extern "C"
#endif
#endif  // TVM_RUNTIME_C_RUNTIME_API_H_
