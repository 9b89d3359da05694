// The C++ API (aotrt/model.h) over the factory and executor modules, and its entry to the
// operator profiler (aotrt/profiling.h: it takes the public Executor, which lives in this layer).
#include "aotrt/model.h"

#include <algorithm>

#include "aotrt/profiling.h"
#include "aotrt/vm.h"
#include "executor/executor_module.h"
#include "graph/graph_factory.h"
#include "module/runtime_config.h"
#include "base/error_util.h"
#include "memory/guard_call.h"
#include "module/loader/load.h"
#include "profiling/internal.h"
#include "vm/vm_module.h"

namespace aotrt {
namespace {

ExecutorFactoryNode& FactoryOf(const Module& m) {
  AOTRT_REQUIRE(m.defined(), kInvalidArgument, "empty aotrt::Model: assign one from Model::Load first");
  return static_cast<ExecutorFactoryNode&>(*m.node());  // checked by FromModule
}

// v[i]; kOutOfRange naming `what` ("input", "output") when i is past its end.
const TensorInfo& Nth(const std::vector<TensorInfo>& v, size_t i, const char* what) {
  AOTRT_REQUIRE(i < v.size(), kOutOfRange, what, " index ", i, " out of range [0, ", v.size(), ")");
  return v[i];
}

// Copies of every output, in output order.
std::vector<NDArray> CopyOutputs(const Executor& ex) {
  std::vector<NDArray> out;
  out.reserve(ex.NumOutputs());
  for (size_t i = 0; i < ex.NumOutputs(); ++i) {
    const TensorInfo& info = ex.Output(i);
    out.push_back(NDArray::Empty(info.shape, info.dtype));
    ex.CopyOutputTo(i, out.back().handle());
  }
  return out;
}

}  // namespace

Model Model::FromModule(Module factory) {
  return RethrowOutOfMemoryAsError("Model::FromModule", [&] {
    AOTRT_REQUIRE(factory.defined(), kInvalidArgument, "Model::FromModule: undefined module");
    auto* node = dynamic_cast<ExecutorFactoryNode*>(factory.node().get());
    Model m;
    if (factory.type_key() == "VMExecutable") {
      m.vm_info_ = std::make_shared<const ModelInfo>(vm::ModelInfoOfExecutable(factory));
    } else {
      AOTRT_REQUIRE(node != nullptr, kInvalidArgument, "not a model: the library's root module is '",
                    factory.type_key(), "', expected 'AotExecutorFactory', 'GraphExecutorFactory' or 'VMExecutable' "
                    "(a library of operators alone, e.g. the mod.so of a graph export, needs its graph: Model::LoadGraph)");
      node->RequireModel();
    }
    m.factory_ = std::move(factory);
    return m;
  });
}

Model Model::Load(const std::string& path, const LoadOptions& options) {
  return RethrowOutOfMemoryAsError("Model::Load", [&] {
    AOTRT_REQUIRE(path.size() < 3 || path.compare(path.size() - 3, 3, ".ro") != 0, kInvalidArgument, path,
                  ": the bytecode of a Relay VM export, whose kernels are in another file: load the folder holding "
                  "code.ro and lib.so, or Model::FromModule(aotrt::LoadVMExecutable(code, lib)) (aotrt/vm.h)");
    return FromModule(Module::LoadFromFile(path, "", options));
  });
}

Model Model::LoadFromMemory(const void* data, size_t size, const LoadOptions& options) {
  return RethrowOutOfMemoryAsError("Model::LoadFromMemory", [&] {
    return FromModule(Module::LoadFromMemory(data, size, options));
  });
}

Model Model::LoadGraph(const std::string& library, const std::string& graph_json, const std::string& params,
                       const LoadOptions& options) {
  return RethrowOutOfMemoryAsError("Model::LoadGraph", [&] {
    LoadContext ctx = FrontDoorLoadContext(options, library);
    return FromModule(MakeGraphFactory(LoadModuleFile(library, "", ctx), graph_json, params, ctx.options.executor));
  });
}

const std::string& Model::name() const { return vm_info_ ? vm_info_->name : FactoryOf(factory_).module_name(); }

const ModelInfo& Model::Info() const { return vm_info_ ? *vm_info_ : FactoryOf(factory_).info(); }

Executor Model::CreateExecutor(DLDevice device, const ExecutorOptions& options) const {
  return RethrowOutOfMemoryAsError("Model::CreateExecutor", [&] {
    if (!vm_info_) return Executor(Module(FactoryOf(factory_).CreateExecutor(device, options)));
    AOTRT_REQUIRE(!std::holds_alternative<ExecutorOptions::Arena>(options.memory), kInvalidArgument,
                  "a Relay VM export's executor cannot be in an arena: its memory is known only as it runs");
    return Executor(std::make_shared<vm::VMExecutor>(factory_, *vm_info_, device));
  });
}

size_t Model::ArenaBytes(const ExecutorOptions& options) const {
  AOTRT_REQUIRE(!vm_info_, kInvalidArgument, "a Relay VM export has no arena size: its memory is known only as it runs");
  const ExecutorFactoryNode& factory = FactoryOf(factory_);
  return RethrowOutOfMemoryAsError("Model::ArenaBytes", [&] { return factory.ArenaBytes(options); });
}

Executor::Executor(std::shared_ptr<vm::VMExecutor> vm) : module_(vm->module()), vm_(std::move(vm)) {}

PlannedExecutor& Executor::impl() const {
  AOTRT_REQUIRE(module_.defined(), kInvalidArgument, "empty aotrt::Executor: assign one from Model::CreateExecutor first");
  return static_cast<ExecutorModuleNode&>(*module_.node()).executor();
}

const ModelInfo& Executor::Info() const { return vm_ ? vm_->Info() : impl().Info(); }
size_t Executor::NumInputs() const { return Info().inputs.size(); }
size_t Executor::NumOutputs() const { return Info().outputs.size(); }

const TensorInfo& Executor::Input(size_t i) const { return Nth(Info().inputs, i, "input"); }
const TensorInfo& Executor::Output(size_t i) const { return Nth(Info().outputs, i, "output"); }

// A VM's tensor of `kind` named `name` (its parameters; its last run's outputs: output0, ...).
static size_t VMIndex(const std::vector<TensorInfo>& v, const std::string& name, const char* kind) {
  std::string names;
  for (size_t i = 0; i < v.size(); ++i) {
    if (v[i].name == name) return i;
    names += StrCat(i ? ", '" : "'", v[i].name, "'");
  }
  AOTRT_THROW(kNotFound, "Invalid ", kind, " name '", name, "': the VM function 'main' ", kind, "s: ", v.empty() ? "none" : names);
}
size_t Executor::InputIndex(const std::string& name) const {
  return vm_ ? VMIndex(Info().inputs, name, "input") : impl().InputIndex(name);
}
size_t Executor::OutputIndex(const std::string& name) const {
  return vm_ ? VMIndex(Info().outputs, name, "output") : impl().OutputIndex(name);
}
void Executor::SetInput(const std::string& name, const DLTensor& t) { SetInput(InputIndex(name), t); }
void Executor::SetInput(size_t index, const DLTensor& t) {
  vm_ ? RethrowOutOfMemoryAsError("Executor::SetInput", [&] { vm_->SetInput(index, t, false); }) : impl().SetInput(index, t);
}
void Executor::SetInputZeroCopy(size_t index, const DLTensor& t) {
  vm_ ? vm_->SetInput(index, t, true) : impl().SetZeroCopy(false, index, t, NDArray());
}
void Executor::SetOutputZeroCopy(size_t index, const DLTensor& t) {
  vm_ ? vm_->SetOutput(index, t) : impl().SetZeroCopy(true, index, t, NDArray());
}
NDArray Executor::GetInput(size_t index) { return vm_ ? vm_->GetInput(index) : impl().GetInput(index); }
NDArray Executor::GetOutput(size_t index) const { return vm_ ? vm_->GetOutput(index) : impl().GetOutput(index); }
void Executor::CopyOutputTo(size_t index, DLTensor* out) const {
  if (!vm_) return impl().CopyOutputTo(index, out);
  AOTRT_REQUIRE(out, kInvalidArgument, "CopyOutputTo: null tensor");
  CheckTensorAgainstSpec("output", index, Output(index), *out);
  vm_->GetOutput(index).CopyTo(out);
}
void Executor::Run() {
  if (!vm_) impl().WarnUnsetInputsOnce();
  RunModel();
}
void Executor::RunModel() {  // the planned run allocates nothing; a VM's may as shapes change
  vm_ ? RethrowOutOfMemoryAsError("Executor::Run", [&] { vm_->Run(); }) : impl().Run();
}
void Executor::Synchronize() const { vm_ ? vm_->Sync() : impl().Sync(); }
bool Executor::ChecksBounds() const { return vm_ ? false : impl().check_bounds(); }

// One-call inference: every input checked, then copied in, one run, and every output copied out
// into a new array (include/aotrt/model.h says why copies).
std::vector<NDArray> Executor::Run(const std::vector<DLTensor>& inputs) {
  const std::vector<TensorInfo>& specs = Info().inputs;
  AOTRT_REQUIRE(inputs.size() == specs.size(), kInvalidArgument, "Run(inputs): the model has ", specs.size(),
                " input", specs.size() == 1 ? "" : "s", ", got ", inputs.size(),
                " (by position every input is needed; name them to give only some)");
  for (size_t i = 0; i < inputs.size(); ++i) CheckTensorAgainstSpec("input", i, specs[i], inputs[i]);
  for (size_t i = 0; i < inputs.size(); ++i) SetInput(i, inputs[i]);
  RunModel();
  return CopyOutputs(*this);
}

std::vector<NDArray> Executor::Run(const std::vector<std::pair<std::string, DLTensor>>& inputs) {
  const std::vector<TensorInfo>& specs = Info().inputs;
  std::vector<size_t> index(inputs.size());
  for (size_t k = 0; k < inputs.size(); ++k) {
    index[k] = InputIndex(inputs[k].first);
    AOTRT_REQUIRE(std::find(index.begin(), index.begin() + k, index[k]) == index.begin() + k, kInvalidArgument,
                  "Run(inputs): input ", index[k], " ('", specs[index[k]].name, "') is given twice (as '",
                  inputs[k].first, "')");
    CheckTensorAgainstSpec("input", index[k], specs[index[k]], inputs[k].second);
  }
  for (size_t k = 0; k < inputs.size(); ++k) SetInput(index[k], inputs[k].second);
  RunModel();
  return CopyOutputs(*this);
}

OperatorProfile ProfileOperators(Executor& executor, const OperatorProfileOptions& opt) {
  if (executor.Info().interface == "vm") return ProfileVM(executor.module(), "main", opt);
  return profiling_internal::ProfileExecutorModule(executor.module(), opt);
}

}  // namespace aotrt
