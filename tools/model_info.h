// What `inspect` shows about a model library, gathered from the loaded model's public ModelInfo
// (aotrt/model_info.h): the tool needs only the installed headers.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include <aotrt/model.h>

namespace aotrt_cli {

struct NamedSize {
  std::string name;
  uint64_t bytes = 0;
};

struct ParamInfo {
  std::string name;
  std::vector<int64_t> shape;
  std::string dtype;
  uint64_t bytes = 0;
};

struct ModelDetails {
  std::vector<std::string> model_names;      // list_module_names
  std::string mod_name;                      // symbol prefix, e.g. tvmgen_default
  std::vector<NamedSize> workspace_pools;    // per executor
  std::vector<NamedSize> constants;          // inside the constant pool
  uint64_t constant_pool_bytes = 0;
  std::vector<ParamInfo> params;             // factory params (inputs the factory fills)
  std::vector<std::string> undefined_runtime_symbols;  // TVM* and float16 helpers the library needs
  std::vector<std::string> context_pointers;           // __TVM* pointer variables it defines
  std::string flavour;                       // "c", "llvm" or "unknown"
  std::string flavour_reason;
};

// Throws aotrt::Error (kIOError/kFormatError for the file, and what the model's metadata throws).
ModelDetails GatherDetails(const std::string& path, const aotrt::Model& model);

// Whether the model's operators split loops with TVMBackendParallelLaunch (imported, or called
// through the __TVMBackendParallelLaunch pointer): graph llvm exports do, AOT exports never.
bool LaunchesParallelWork(const aotrt::ModelInfo& info);

// The threads one operator may run on and where the count comes from: "4 (--op-threads)",
// "2 (TVM_NUM_THREADS=2)", "8 (default: the runtime's pool, from the hardware)".
struct OperatorThreads {
  int count = 0;
  std::string source;  // "--op-threads", "TVM_NUM_THREADS=2", "OMP_NUM_THREADS=2", "default"
  std::string Text() const;
};
OperatorThreads OperatorThreadsFor(int op_threads);

// Names of the model's factory params (inputs that the factory already fills).
std::vector<std::string> ParamNames(const aotrt::Model& model);

}  // namespace aotrt_cli
