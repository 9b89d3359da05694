// A loaded AOT model: its program (library, metadata, constants, entry) as a PlannedModel
// (executor/planned_model.h): one call of the entry function, each input, output and workspace
// pool a storage of its own, the constant pool shared; and the factory's params, each bound to the
// input of its name. Built and validated when the factory is loaded or created; immutable and
// shared (std::shared_ptr<const LoadedModel>) by the factory and every executor, which keep the
// library loaded through it. Any thread may read it.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "aot/model_program.h"
#include "executor/planned_model.h"
#include "aotrt/model_info.h"
#include "aotrt/ndarray.h"

namespace aotrt {

// Parameters given to a factory, in the order given.
using ParamList = std::vector<NamedArray>;

class LoadedModel final : public PlannedModel {
 public:
  // `metadata_module` owns `program` (through its imports, the library). Throws kNotFound for a
  // param that is not an input of the model, kInvalidArgument for an empty or repeated param
  // name, kTypeMismatch / kShapeMismatch for a param unlike its input; each names the param.
  LoadedModel(std::string name, ObjectPtr<MetadataModuleNode> metadata_module, std::shared_ptr<const ParamList> params);

  const ModelProgram& program() const { return *program_; }
  // CPU 0 only (pinned host memory is host memory).
  void CheckDevice(DLDevice device) const override;
  // Whether a run may take run-time workspace: the library calls TVMBackendAllocWorkspace, or
  // packed functions of the runtime (tvm.contrib.sort takes workspace; the model's first call looks
  // each function up once), directly or through context pointers. A library whose dynamic symbols
  // say nothing (a system library) is assumed to.
  bool MayUseWorkspace() const override;
  bool calls_are_operators() const override { return false; }
  const char* ExecutorTypeKey(bool) const override { return "AotExecutor"; }

 private:
  void BuildInfo(ModelInfo* info) const override;

  ObjectPtr<MetadataModuleNode> metadata_module_;  // keeps the library loaded
  std::shared_ptr<const ModelProgram> program_;
  std::shared_ptr<const ParamList> params_;
};

}  // namespace aotrt
