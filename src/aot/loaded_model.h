// A loaded model: its program (library, metadata, constants, entry) and the factory's params,
// each bound to the input of its name. Built and validated when the factory is loaded or created;
// immutable and shared (std::shared_ptr<const LoadedModel>) by the factory and every executor,
// which keep the library loaded through it. Any thread may read it.
#pragma once

#include <atomic>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "aot/model_program.h"
#include "aotrt/model_info.h"
#include "aotrt/ndarray.h"

namespace aotrt {

// Parameters given to a factory, in the order given.
using ParamList = std::vector<NamedArray>;

class LoadedModel {
 public:
  struct BoundParam {
    size_t input;   // index of the input the param fills
    NDArray array;  // shared by every executor until it sets that input
  };

  // `metadata_module` owns `program` (through its imports, the library). Throws kNotFound for a
  // param that is not an input of the model, kInvalidArgument for an empty or repeated param
  // name, kTypeMismatch / kShapeMismatch for a param unlike its input; each names the param.
  LoadedModel(std::string name, ObjectPtr<MetadataModuleNode> metadata_module, std::shared_ptr<const ParamList> params);

  const std::string& name() const { return name_; }
  const ModelProgram& program() const { return *program_; }
  const ModelMetadata& metadata() const { return program_->md; }
  const ParamList& params() const { return *params_; }
  const std::vector<BoundParam>& bound_params() const { return bound_; }
  // Built at the first call (a load that nobody inspects copies no names into it); any thread.
  const ModelInfo& info() const;
  // The run-time workspace an executor in an arena needs (ArenaBuild::WorkspaceBytes,
  // executor/executor_in_arena.h). Any thread.
  std::atomic<int64_t>& arena_workspace_bytes() const { return arena_workspace_bytes_; }

 private:
  ObjectPtr<MetadataModuleNode> metadata_module_;  // keeps the library loaded
  std::shared_ptr<const ModelProgram> program_;
  std::shared_ptr<const ParamList> params_;
  std::vector<BoundParam> bound_;
  std::string name_;
  mutable std::once_flag info_built_;
  mutable ModelInfo info_;  // a view of the above, built once by info()
  mutable std::atomic<int64_t> arena_workspace_bytes_{-1};  // a measurement cached, not state
};

// Bytes of all arrays in `params`.
size_t ParamListBytes(const ParamList& params);

// Check `t` against the tensor `spec` of the model: CPU 0 (kInvalidArgument), dtype
// (kTypeMismatch: the same dtype, or with `convertible` one the conversion rule may accept,
// CheckConversion in aotrt/ndarray.h), shape (kShapeMismatch), contiguous and with data
// (kInvalidArgument). Messages begin with "<kind> <index> ('<name>')".
void CheckTensorAgainstSpec(const char* kind, size_t index, const TensorSpec& spec, const DLTensor& t,
                            bool convertible = false);

}  // namespace aotrt
