// What a loaded AOT model is: its tensors, the memory it costs and what its library needs from the
// runtime. Plain values, filled once when the model is loaded (aotrt::Model::Info()) and immutable
// after: safe to read from any thread while the Model (or any Executor of it) is alive.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include <dlpack/dlpack.h>

#include "aotrt/export.h"

namespace aotrt {

struct TensorInfo {
  std::string name;            // inputs: as in the metadata (sanitized); outputs: output0, ...
  std::vector<int64_t> shape;  // static shape
  DLDataType dtype;
  size_t bytes;                // data size
  // false: the model states only the size (a C-interface archive whose src/<name>.relay gives no
  // type for the tensor); `shape` is then {elements}, flat.
  bool shape_known = true;
  // true: a Relay VM export's input, whose shape and dtype come with each run (shape {}, dtype
  // {0, 0, 0}, bytes 0); any is taken, and the model's kernels check it.
  bool dynamic = false;
};

// A piece of memory the model costs, by name (a workspace pool, a constant).
struct NamedBytes {
  std::string name;
  size_t bytes = 0;
};

// Where the shared constant pool of a memory-planned model lives.
enum class ConstantSource {
  kNone,         // the model has no constant pool
  kMappedCache,  // mapped read-only from the per-machine cache: pages shared by every process
  kBuiltCache,   // a miss: this process's own copy, from which this load wrote the cache file
  kPrivateCopy,  // assembled into this process's memory (cache off, unwritable or not applicable)
};

// "none", "mapped from cache", "own copy, cache file written", "private copy".
AOTRT_API const char* ConstantSourceName(ConstantSource source);

struct ModelInfo {
  std::string name;           // the factory's model name, e.g. "default"
  std::string symbol_prefix;  // the metadata's mod_name, e.g. "tvmgen_default"
  std::string library;        // the library's file name, as in messages
  std::vector<TensorInfo> inputs;
  std::vector<TensorInfo> outputs;
  std::vector<TensorInfo> params;           // factory params, each bound to the input of its name
  std::vector<NamedBytes> workspace_pools;  // allocated per executor
  std::vector<NamedBytes> constants;        // the constants inside the shared constant pool
  size_t workspace_bytes = 0;  // per executor: sum of workspace_pools
  size_t slack_bytes = 0;      // per executor: the reserve after its workspace pools (README "When a model
                               // writes past its memory"): address space only, not in the memory totals
  size_t io_bytes = 0;         // per executor: inputs (not filled by params) and outputs
  size_t constant_bytes = 0;   // shared by every executor of the model: the constant pool
  size_t param_bytes = 0;      // shared by every executor of the model: the factory params
  ConstantSource constant_source = ConstantSource::kNone;
  std::string constant_cache_path;  // the cache file, when constant_source is a cache
  // From the library's dynamic symbol table (empty when it has none, e.g. a system library):
  std::vector<std::string> runtime_imports;   // undefined TVM* / float16 helpers it resolves against the runtime
  std::vector<std::string> context_pointers;  // __TVM* function-pointer variables it defines (llvm exports)
  bool defines_module_context = false;        // defines __tvm_module_ctx
  // Which of TVM's AOT interfaces the model has: "packed" (a library export: .so, .tar of objects),
  // "c" (a Model Library Format archive) or "vm" (a Relay VM export); for "c", where the compiled code came from:
  // "compile cache", "compiled into the compile cache" or "compiled (no cache)".
  std::string interface = "packed";
  std::string c_origin;
};

}  // namespace aotrt
