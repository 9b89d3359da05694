// The C++ API (aotrt/model.h) over the factory and executor modules.
#include "aotrt/model.h"

#include "aot/factory.h"
#include "base/error_util.h"
#include "base/guard_call.h"

namespace aotrt {

struct Model::Info {
  AotExecutorFactoryNode* factory;
  std::shared_ptr<const ModelState> state;
  std::vector<TensorInfo> inputs;
  std::vector<TensorInfo> outputs;
};

namespace {
std::vector<TensorInfo> ToInfo(const std::vector<TensorSpec>& specs) {
  std::vector<TensorInfo> out;
  for (const TensorSpec& s : specs) out.push_back({s.name, s.shape, s.dtype, s.bytes});
  return out;
}
}  // namespace

Model Model::FromModule(Module factory) {
  return RethrowOutOfMemoryAsError("Model::FromModule", [&] {
    AOTRT_REQUIRE(factory.defined(), kInvalidArgument, "Model::FromModule: undefined module");
    auto* node = dynamic_cast<AotExecutorFactoryNode*>(factory.node().get());
    AOTRT_REQUIRE(node != nullptr, kInvalidArgument, "not an AOT model: the library's root module is '",
                  factory.type_key(), "', expected 'AotExecutorFactory'");
    AOTRT_REQUIRE(!node->imports().empty(), kNotFound, "AotExecutorFactory '", node->module_name(),
                  "' has no metadata module");
    auto* md = dynamic_cast<MetadataModuleNode*>(node->imports()[0].get());
    AOTRT_REQUIRE(md != nullptr, kNotFound, "AotExecutorFactory '", node->module_name(), "': import 0 is '",
                  node->imports()[0]->type_key(), "', expected 'metadata_module'");
    auto info = std::make_shared<Info>();
    info->factory = node;
    info->state = md->State();
    info->inputs = ToInfo(info->state->md.inputs);
    info->outputs = ToInfo(info->state->md.outputs);
    Model m;
    m.factory_ = std::move(factory);
    m.info_ = std::move(info);
    return m;
  });
}

Model Model::Load(const std::string& path) {
  return RethrowOutOfMemoryAsError("Model::Load", [&] { return FromModule(Module::LoadFromFile(path)); });
}

Model Model::LoadFromMemory(const void* data, size_t size) {
  return RethrowOutOfMemoryAsError("Model::LoadFromMemory",
                                   [&] { return FromModule(Module::LoadFromMemory(data, size)); });
}

const std::string& Model::name() const { return info_->factory->module_name(); }

Executor Model::CreateExecutor(DLDevice device, const ExecutorOptions& options) const {
  AOTRT_REQUIRE(info_ != nullptr, kInvalidArgument, "CreateExecutor on an empty Model");
  return RethrowOutOfMemoryAsError("Model::CreateExecutor", [&] {
    ObjectPtr<AotExecutorNode> node = info_->factory->CreateExecutor(device, options.check_bounds);
    Executor ex(Module(node), node.get(), &info_->inputs, &info_->outputs);
    ex.info_ = info_;
    return ex;
  });
}

const std::vector<TensorInfo>& Model::Inputs() const { return info_->inputs; }
const std::vector<TensorInfo>& Model::Outputs() const { return info_->outputs; }

size_t Model::WorkspaceBytes() const { return info_->state->WorkspaceBytes(); }
size_t Model::SlackBytes() const { return info_->state->WorkspaceSlackBytes(); }
size_t Model::ConstantBytes() const { return info_->state->ConstantBytes(); }
size_t Model::ParamBytes() const { return ParamListBytes(info_->factory->params()); }

Executor::Executor(Module module, AotExecutorNode* node, const std::vector<TensorInfo>* inputs,
                   const std::vector<TensorInfo>* outputs)
    : module_(std::move(module)), node_(node), inputs_(inputs), outputs_(outputs) {}

size_t Executor::NumInputs() const { return inputs_->size(); }
size_t Executor::NumOutputs() const { return outputs_->size(); }

const TensorInfo& Executor::Input(size_t i) const {
  AOTRT_REQUIRE(i < inputs_->size(), kOutOfRange, "input index ", i, " out of range [0, ", inputs_->size(), ")");
  return (*inputs_)[i];
}

const TensorInfo& Executor::Output(size_t i) const {
  AOTRT_REQUIRE(i < outputs_->size(), kOutOfRange, "output index ", i, " out of range [0, ", outputs_->size(), ")");
  return (*outputs_)[i];
}

size_t Executor::InputIndex(const std::string& name) const { return node_->InputIndex(name); }
size_t Executor::OutputIndex(const std::string& name) const { return node_->OutputIndex(name); }
void Executor::SetInput(const std::string& name, const DLTensor& t) { node_->SetInput(node_->InputIndex(name), t); }
void Executor::SetInput(size_t index, const DLTensor& t) { node_->SetInput(index, t); }
void Executor::SetInputZeroCopy(size_t index, const DLTensor& t) { node_->SetInputZeroCopy(index, t, NDArray()); }
void Executor::SetOutputZeroCopy(size_t index, const DLTensor& t) { node_->SetOutputZeroCopy(index, t, NDArray()); }
NDArray Executor::GetInput(size_t index) { return node_->GetInput(index); }
NDArray Executor::GetOutput(size_t index) const { return node_->GetOutput(index); }
void Executor::CopyOutputTo(size_t index, DLTensor* out) const { node_->CopyOutputTo(index, out); }
void Executor::Run() { node_->Run(); }  // allocates nothing: no bad_alloc to translate
bool Executor::ChecksBounds() const { return node_->check_bounds(); }

}  // namespace aotrt
