// The C++ API (aotrt/model.h) over the factory and executor modules.
#include "aotrt/model.h"

#include "executor/executor_interface.h"
#include "graph/graph_factory.h"
#include "api/runtime_config.h"
#include "base/error_util.h"
#include "memory/guard_call.h"
#include "module/loader/load.h"

namespace aotrt {
namespace {

ExecutorFactoryNode& FactoryOf(const Module& m) {
  AOTRT_REQUIRE(m.defined(), kInvalidArgument, "empty aotrt::Model: assign one from Model::Load first");
  return static_cast<ExecutorFactoryNode&>(*m.node());  // checked by FromModule
}

}  // namespace

Model Model::FromModule(Module factory) {
  return RethrowOutOfMemoryAsError("Model::FromModule", [&] {
    AOTRT_REQUIRE(factory.defined(), kInvalidArgument, "Model::FromModule: undefined module");
    auto* node = dynamic_cast<ExecutorFactoryNode*>(factory.node().get());
    AOTRT_REQUIRE(node != nullptr, kInvalidArgument, "not a model: the library's root module is '",
                  factory.type_key(), "', expected 'AotExecutorFactory' or 'GraphExecutorFactory' (a library of "
                  "operators alone, e.g. the mod.so of a graph export, needs its graph: Model::LoadGraph)");
    node->RequireModel();
    Model m;
    m.factory_ = std::move(factory);
    return m;
  });
}

Model Model::Load(const std::string& path, const LoadOptions& options) {
  return RethrowOutOfMemoryAsError("Model::Load", [&] {
    return FromModule(LoadModuleFile(path, "", FrontDoorLoadContext(options, path)));
  });
}

Model Model::LoadFromMemory(const void* data, size_t size, const LoadOptions& options) {
  return RethrowOutOfMemoryAsError("Model::LoadFromMemory", [&] {
    return FromModule(LoadModuleBytes(data, size, FrontDoorLoadContext(options, InMemoryName(size))));
  });
}

Model Model::LoadGraph(const std::string& library, const std::string& graph_json, const std::string& params,
                       const LoadOptions& options) {
  return RethrowOutOfMemoryAsError("Model::LoadGraph", [&] {
    LoadContext ctx = FrontDoorLoadContext(options, library);
    return FromModule(MakeGraphFactory(LoadModuleFile(library, "", ctx), graph_json, params, ctx.options.executor));
  });
}

const std::string& Model::name() const { return FactoryOf(factory_).module_name(); }

const ModelInfo& Model::Info() const { return FactoryOf(factory_).info(); }

Executor Model::CreateExecutor(DLDevice device, const ExecutorOptions& options) const {
  ExecutorFactoryNode& factory = FactoryOf(factory_);
  return RethrowOutOfMemoryAsError("Model::CreateExecutor",
                                   [&] { return Executor(Module(factory.CreateExecutor(device, options))); });
}

size_t Model::ArenaBytes(const ExecutorOptions& options) const {
  const ExecutorFactoryNode& factory = FactoryOf(factory_);
  return RethrowOutOfMemoryAsError("Model::ArenaBytes", [&] { return factory.ArenaBytes(options); });
}

PlannedExecutor& Executor::impl() const {
  AOTRT_REQUIRE(module_.defined(), kInvalidArgument, "empty aotrt::Executor: assign one from Model::CreateExecutor first");
  return static_cast<ExecutorModuleNode&>(*module_.node()).executor();
}

const ModelInfo& Executor::Info() const { return impl().Info(); }
size_t Executor::NumInputs() const { return Info().inputs.size(); }
size_t Executor::NumOutputs() const { return Info().outputs.size(); }

const TensorInfo& Executor::Input(size_t i) const {
  const std::vector<TensorInfo>& in = Info().inputs;
  AOTRT_REQUIRE(i < in.size(), kOutOfRange, "input index ", i, " out of range [0, ", in.size(), ")");
  return in[i];
}

const TensorInfo& Executor::Output(size_t i) const {
  const std::vector<TensorInfo>& out = Info().outputs;
  AOTRT_REQUIRE(i < out.size(), kOutOfRange, "output index ", i, " out of range [0, ", out.size(), ")");
  return out[i];
}

size_t Executor::InputIndex(const std::string& name) const { return impl().InputIndex(name); }
size_t Executor::OutputIndex(const std::string& name) const { return impl().OutputIndex(name); }
void Executor::SetInput(const std::string& name, const DLTensor& t) { impl().SetInput(impl().InputIndex(name), t); }
void Executor::SetInput(size_t index, const DLTensor& t) { impl().SetInput(index, t); }
void Executor::SetInputZeroCopy(size_t index, const DLTensor& t) { impl().SetInputZeroCopy(index, t, NDArray()); }
void Executor::SetOutputZeroCopy(size_t index, const DLTensor& t) { impl().SetOutputZeroCopy(index, t, NDArray()); }
NDArray Executor::GetInput(size_t index) { return impl().GetInput(index); }
NDArray Executor::GetOutput(size_t index) const { return impl().GetOutput(index); }
void Executor::CopyOutputTo(size_t index, DLTensor* out) const { impl().CopyOutputTo(index, out); }
void Executor::Run() { impl().Run(); }  // allocates nothing: no bad_alloc to translate
bool Executor::ChecksBounds() const { return impl().check_bounds(); }

}  // namespace aotrt
