// A model's AOT metadata (ABI.md 7), validated and copied out of the library's TVMMetadata, and
// the layout of the entry function's argument list derived from it.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include <dlpack/dlpack.h>
#include <tvm/runtime/metadata_types.h>

#include "base/name_index.h"
#include "aotrt/model_info.h"
#include "aotrt/ndarray.h"
#include "module/loader/address_bounds.h"
#include "module/model_contract.h"

namespace aotrt {

using TensorSpec = TensorInfo;  // a tensor of the model's signature or a pool, as users see it

struct ConstantSpec {
  std::string_view name;  // in the library (lives as long as it, as `data`)
  int64_t byte_offset;
  int64_t data_len;
  const void* data;  // serialized NDArray inside the library (lives as long as it)
};

// One pool argument of the entry function, after inputs and outputs.
struct PoolArg {
  bool is_constant_pool;
  size_t workspace_index;  // into ModelMetadata::workspace_pools when !is_constant_pool
};

struct ModelMetadata {
  std::string mod_name;  // mangled, e.g. tvmgen_default
  std::vector<TensorSpec> inputs;
  std::vector<TensorSpec> outputs;
  std::vector<TensorSpec> workspace_pools;
  std::vector<ConstantSpec> constants;
  std::vector<PoolArg> pool_args;  // in entry-argument order
  NameIndex input_index;  // sanitized name -> index

  std::string EntryName() const { return mod_name + contract::kEntrySuffix; }
  // The name the user gave the model (TVM's mod_name, e.g. default; mangled as tvmgen_<name>),
  // quoted for messages: "model 'default'".
  std::string DisplayName() const;
};

// Validate every count, pointer, name, shape and dtype; throws Error(kFormatError) naming `what`
// (the library) and the field. Every pointer (the struct itself, its arrays, names, shapes and
// constant data) must lie inside `bounds`, the library's segments, and is checked before it is read.
// Refused besides: empty or duplicate input/output/pool names (inputs compared sanitized),
// zero-byte workspace pools. Not checkable here: whether the entry takes as many arguments as the
// metadata lists (README, "What a model library must satisfy").
ModelMetadata ReadMetadata(const TVMMetadata* md, const AddressBounds& bounds, const std::string& what);

// Where each constant of a memory-planned model goes in its constant pool (ABI.md 7.3): one uint8
// array holding every constant at its byte offset. The constants are read in place from the
// library (each within its data_len, which ReadMetadata checked against the library's segments).
struct ConstantPoolPlan {
  struct Piece {
    size_t offset;     // in the pool
    const void* data;  // the constant's bytes, in the library
    size_t bytes;
  };
  size_t bytes = 0;  // the pool's size: the end of the furthest constant
  std::vector<Piece> pieces;
  // Copy every constant to its offset in `pool` (zeroed, `bytes` long).
  void Fill(uint8_t* pool) const;
};

// Parse every constant's serialized NDArray header. Throws kFormatError naming the constant, or
// for a pool over TVM's limit of 2^31 bytes.
ConstantPoolPlan PlanConstantPool(const ModelMetadata& md, const std::string& what);

}  // namespace aotrt
