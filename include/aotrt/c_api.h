/*
 * aotrt's additions to the TVM C ABI. Same conventions as tvm/runtime/c_runtime_api.h:
 * 0 on success, -1 on failure with the message in TVMGetLastError().
 */
#ifndef AOTRT_C_API_H_
#define AOTRT_C_API_H_

#include <stddef.h>
#include <stdint.h>
#include <tvm/runtime/c_runtime_api.h>

#include "aotrt/version.h"

#ifdef __cplusplus
extern "C" {
#endif

/*! \brief aotrt::ErrorCode of the calling thread's last error (0 when none; see aotrt/error.h).
 *  Set together with TVMGetLastError() by every failing call. TVMAPISetLastError always sets 9
 *  (kModelError): it is how a model or a C callback reports a failure. Never fails. Thread-safe
 *  (per-thread slot); a successful call leaves the code as it was. */
TVM_DLL int AOTRTGetLastErrorCode(void);

/*! \brief Load a model library from `size` bytes at `data` (copied into an anonymous in-memory
 *  file, then dlopened). The bytes are borrowed for the call only and may be freed after it. On
 *  success *out is the owned root module: free it with TVMModFree. Thread-safe.
 *  Errors: kInvalidArgument (null out, null data with size > 0), kIOError (memfd_create, write or
 *  dlopen refused), and every error of TVMModLoadFromFile (kNotFound, kFormatError, kOutOfRange,
 *  kTypeMismatch, kOutOfMemory, kInternal). */
TVM_DLL int AOTRTModLoadFromMemory(const void* data, size_t size, TVMModuleHandle* out);

/*! \brief Options of one load (aotrt/options.h has what each does, and what the environment adds).
 *  Initialize with AOTRTLoadOptionsInit, then change fields: a struct from a newer header with
 *  fields this library does not know is refused through `struct_size`, never misread. */
typedef struct {
  uint32_t struct_size;           /*!< sizeof(AOTRTLoadOptions), set by AOTRTLoadOptionsInit */
  int32_t constant_cache;         /*!< 1 (default): use the per-machine constant cache; 0: a private copy */
  int32_t verify_constant_cache;  /*!< 1: hash a cached constant pool whole at every load; default 0 */
  const char* cache_dir;          /*!< NULL or "" (default): $AOTRT_CACHE_DIR, $XDG_CACHE_HOME/aotrt, ~/.cache/aotrt */
  uint64_t cache_max_bytes;       /*!< 0 (default): $AOTRT_CACHE_MAX_MB MiB, else 1024 MiB */
  int32_t check_bounds;           /*!< 1: every executor of the model checks for writes past its workspace */
  int32_t huge_pages;             /*!< 1: every executor backs its buffers of 2 MiB and more with huge pages */
  const char* c_compiler;         /*!< NULL or "" (default): $CC, else cc (archives' sources, object exports) */
  int32_t compile_cache;          /*!< 1 (default): keep a compiled archive library in cache_dir; 0: compile every load */
  const char* c_library;          /*!< NULL or "" (default); else a library compiled from the archive by the caller */
  int32_t num_threads;            /*!< 0 (default); else every executor's most threads per operator, in [1, 1024] */
} AOTRTLoadOptions;

/*! \brief Fill `options` with the defaults (and struct_size). Never fails; NULL is ignored. */
TVM_DLL void AOTRTLoadOptionsInit(AOTRTLoadOptions* options);

/*! \brief TVMModLoadFromFile with options: load `file_name` (format "" or NULL: by extension, else
 *  by content) with `options` (NULL: the defaults; its strings are borrowed for the call only). On
 *  success *out is the owned root module: free it with TVMModFree. Thread-safe.
 *  Errors: kInvalidArgument (null file_name or out; a struct_size this library does not know; a
 *  flag that is not 0 or 1; an AOTRT_* variable with a value it does not take), and every error of
 *  TVMModLoadFromFile. */
TVM_DLL int AOTRTModLoadFromFileWithOptions(const char* file_name, const char* format,
                                            const AOTRTLoadOptions* options, TVMModuleHandle* out);

/*! \brief A workspace pool the caller provides (aotrt::ExecutorOptions::Pool): `name` as the
 *  model names its pool, `bytes` at least the pool's size, `data` 64-byte aligned. Borrowed:
 *  valid, and used by no other running executor, while the executor lives. */
typedef struct {
  const char* name;
  void* data;
  size_t bytes;
} AOTRTWorkspacePool;

/*! \brief Options of one executor (aotrt/options.h, ExecutorOptions, has what each does).
 *  Initialize with AOTRTExecutorOptionsInit; versioned by struct_size like AOTRTLoadOptions.
 *  `arena` or `arena_bytes` set chooses an arena (ExecutorOptions::Arena), else the heap
 *  (ExecutorOptions::Heap): check_bounds and huge_pages are the heap's, refused with an arena. */
typedef struct {
  uint32_t struct_size;                      /*!< sizeof(AOTRTExecutorOptions), set by AOTRTExecutorOptionsInit */
  int32_t check_bounds;                      /*!< 1: check for writes past the workspace after every run (heap only) */
  int32_t huge_pages;                        /*!< 1: huge pages for buffers of 2 MiB and more (heap only) */
  const AOTRTWorkspacePool* workspace_pools; /*!< NULL or num_workspace_pools pools used in place of the executor's own */
  size_t num_workspace_pools;
  void* arena;                               /*!< NULL (default: the heap) or caller-owned memory for the whole executor */
  size_t arena_bytes;                        /*!< its size: at least AOTRTExecutorArenaBytes */
  void (*on_destroyed)(void* data);          /*!< NULL, or called once when the executor is gone and
                                                  uses the arena and pools no more (any thread) */
  void* on_destroyed_data;
  int32_t num_threads;                       /*!< 0 (default): the process's count, shared among running
                                                  executors; else the most threads one operator runs on */
} AOTRTExecutorOptions;

/*! \brief Fill `options` with the defaults (and struct_size). Never fails; NULL is ignored. */
TVM_DLL void AOTRTExecutorOptionsInit(AOTRTExecutorOptions* options);

/*! \brief Create an executor of the model of `factory` (the root module of a loaded model, an
 *  AotExecutorFactory) on CPU device (`device_type` 1, `device_id` 0) with `options` (NULL: the
 *  defaults; the load's options add to them as for factory["<name>"](device)). On success *out is
 *  an owned AotExecutor module (the same packed functions as factory["<name>"](device) returns):
 *  free it with TVMModFree. An arena must outlive every handle to the executor and to its arrays
 *  (aotrt::ExecutorOptions::Arena). Thread-safe. Errors: kInvalidArgument (null factory or out;
 *  not a factory; a struct_size this library does not know; a flag not 0 or 1, or 1 with an arena;
 *  num_threads outside [0, 1024]; a device other than CPU 0; a pool of the wrong size or alignment,
 *  or null; an arena null, unaligned or too small, the message naming the bytes needed), kNotFound
 *  (a pool name the model does not have), kModelError (the run measuring an arena's workspace
 *  failed), kOutOfMemory. */
TVM_DLL int AOTRTExecutorCreate(TVMModuleHandle factory, int device_type, int device_id,
                                const AOTRTExecutorOptions* options, TVMModuleHandle* out);

/*! \brief *out = the bytes of arena an executor of `factory`'s model with `options` (its arena
 *  fields ignored; NULL: the defaults) needs, as aotrt::Model::ArenaBytes (which says what the
 *  first call per model costs). Thread-safe. Errors: those of AOTRTExecutorCreate but the arena's. */
TVM_DLL int AOTRTExecutorArenaBytes(TVMModuleHandle factory, const AOTRTExecutorOptions* options, size_t* out);

/*! \brief Receives each log record: level 0 trace .. 5 critical, a NUL-terminated message. Called
 *  on the thread that logs; must be thread-safe. */
typedef void (*AOTRTLogCallback)(int level, const char* message, void* user_data);
/*! \brief Redirect logging to `cb` (NULL restores stderr); `user_data` is borrowed, passed back to
 *  `cb`, and must stay valid until the next AOTRTSetLogCallback. Thread-safe. Returns 0, or -1 with
 *  kOutOfMemory (the sink could not be made; the old one is kept) or kInternal (spdlog refused). */
TVM_DLL int AOTRTSetLogCallback(AOTRTLogCallback cb, void* user_data);
/*! \brief Set the log level: 0 trace, 1 debug, 2 info, 3 warn, 4 error, 5 critical, 6 off. The
 *  default: AOTRT_LOG_LEVEL (README, "Options and the environment"), else warn. Thread-safe.
 *  Returns 0, or -1 with kInvalidArgument (1) for a level outside 0..6, the old level kept. */
TVM_DLL int AOTRTSetLogLevel(int level);
/*! \brief Request (nonzero) or withdraw (0) an interrupt of long timing loops (aotrt::RequestInterrupt
 *  in aotrt/profiling.h): a time evaluator then fails with kInterrupted (12), a benchmark returns
 *  what it measured so far. The request stays until withdrawn. Process-wide; async-signal-safe.
 *  Never fails. */
TVM_DLL void AOTRTSetInterrupt(int requested);
/*! \brief Copy `from` into `to`, converting each value to `to`'s dtype by the rule of
 *  aotrt::ConvertTensor (aotrt/ndarray.h): accepted only when every value survives, else nothing
 *  is written. `what` names the destination in messages (NULL: "tensor"). Both tensors on the CPU,
 *  contiguous, with the same number of elements. Errors: kTypeMismatch (a dtype pair the rule
 *  refuses, or a value that does not survive: the message gives it, its index and what it would
 *  become), kShapeMismatch, kInvalidArgument. Thread-safe for distinct destinations. */
TVM_DLL int AOTRTArrayCopyConverted(const DLTensor* from, DLTensor* to, const char* what);
/*! \brief The dtype part of that rule alone: 0 when some values of dtype (from_code, from_bits,
 *  from_lanes) may convert to (to_code, to_bits, to_lanes), else -1 with kTypeMismatch and the
 *  message AOTRTArrayCopyConverted would give, naming `what` (NULL: "tensor"). */
TVM_DLL int AOTRTCheckConversion(int from_code, int from_bits, int from_lanes, int to_code, int to_bits, int to_lanes,
                                 const char* what);
/*! \brief A PyCapsule destructor for the "dltensor" capsules a Python binding makes of
 *  TVMArrayToDLPack's tensors: when the capsule is still named "dltensor" (no consumer renamed it
 *  "used_dltensor"), it calls the tensor's deleter. Runs no Python code: safe while a Python
 *  exception is pending. Needs the Python C API in the process (found with dlsym at the first
 *  call); does nothing without it. Never fails. */
TVM_DLL void AOTRTDLPackCapsuleDestructor(void* capsule);
/*! \brief Version string of this library, e.g. "0.1.0": static storage, never freed, never NULL.
 *  Never fails. Thread-safe. */
TVM_DLL const char* AOTRTGetVersion(void);

#ifdef __cplusplus
}  // extern "C"
#endif
#endif  // AOTRT_C_API_H_
