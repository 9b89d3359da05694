/*
 * Layout of the AOT metadata a model library returns from get_c_metadata (ABI.md section 7.1).
 * All pointers point into the library's read-only data and live as long as the library.
 */
#ifndef TVM_RUNTIME_METADATA_TYPES_H_
#define TVM_RUNTIME_METADATA_TYPES_H_

#include <dlpack/dlpack.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define TVM_METADATA_VERSION 1

struct TVMTensorInfo {
  const char* name;
  const int64_t* shape;
  int64_t num_shape;
  DLDataType dtype;
};

struct TVMConstantInfo {
  const char* name_hint;
  int64_t byte_offset;
  int64_t data_len;
  const void* data_bytes; /* a serialized NDArray (ABI.md 6.1) of data_len bytes */
};

struct TVMMetadata {
  int64_t version;
  const struct TVMTensorInfo* inputs;
  int64_t num_inputs;
  const struct TVMTensorInfo* outputs;
  int64_t num_outputs;
  const struct TVMTensorInfo* workspace_pools;
  int64_t num_workspace_pools;
  const struct TVMConstantInfo* constant_pools;
  int64_t num_constant_pools;
  const char* mod_name;
};

#ifdef __cplusplus
}  // extern "C"
#endif
#endif  // TVM_RUNTIME_METADATA_TYPES_H_
