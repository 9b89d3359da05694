#include "aot/model_state.h"

#include "base/error_util.h"
#include "base/tail_slack.h"
#include "module/library_module.h"

namespace aotrt {
namespace {

// The library module defining `symbol` among the imports of `node`, depth first.
LibraryModuleNode* FindLibraryDefining(ModuleNode* node, const std::string& symbol) {
  for (const auto& m : node->imports()) {
    if (auto* lib = dynamic_cast<LibraryModuleNode*>(m.get())) {
      if (lib->library().Lookup(symbol)) return lib;
    }
    if (LibraryModuleNode* found = FindLibraryDefining(m.get(), symbol)) return found;
  }
  return nullptr;
}

// The first library module among the imports of `node`, depth first, or nullptr.
LibraryModuleNode* FirstLibrary(ModuleNode* node) {
  for (const auto& m : node->imports()) {
    if (auto* lib = dynamic_cast<LibraryModuleNode*>(m.get())) return lib;
    if (LibraryModuleNode* found = FirstLibrary(m.get())) return found;
  }
  return nullptr;
}

const TVMMetadata* FetchRawMetadata(const Module& self, const std::string& what) {
  PackedFunc get = self.GetFunction(contract::kGetCMetadata, true);
  if (!get) {
    LibraryModuleNode* lib = FirstLibrary(self.node().get());
    std::string hint = lib ? lib->library().MissingSymbolHint(contract::kGetCMetadata) : std::string();
    AOTRT_THROW(kNotFound, what, ": Unable to locate get_c_metadata PackedFunc", hint.empty() ? "" : ": ", hint);
  }
  TVMRetValue rv;
  get.CallPacked(TVMArgs(nullptr, nullptr, 0), &rv);
  AOTRT_REQUIRE(rv.type_code() == kTVMOpaqueHandle, kFormatError, what,
                ": get_c_metadata: Expected kOpaqueHandle returned; got ", rv.type_code());
  AOTRT_REQUIRE(rv.value().v_handle != nullptr, kFormatError, what, ": get_c_metadata returned nullptr");
  return static_cast<const TVMMetadata*>(rv.value().v_handle);
}

}  // namespace

size_t ModelState::WorkspaceBytes() const {
  size_t total = 0;
  for (const TensorSpec& p : md.workspace_pools) total += p.bytes;
  return total;
}

size_t ModelState::WorkspaceSlackBytes() const {
  size_t total = 0;
  for (const TensorSpec& p : md.workspace_pools) total += TailSlack(p.bytes);
  return total;
}

PackedFunc MetadataModuleNode::GetFunction(const std::string& name, const ObjectPtr<ModuleNode>& self) {
  if (name == "get_metadata") {
    return PackedFunc([this, self](TVMArgs, TVMRetValue* rv) { rv->SetHandle(const_cast<TVMMetadata*>(State()->raw)); });
  }
  return PackedFunc();
}

std::shared_ptr<const ModelState> MetadataModuleNode::State() {
  std::lock_guard<std::mutex> lock(mu_);
  if (state_) return state_;
  auto state = std::make_shared<ModelState>();
  LibraryModuleNode* first = FirstLibrary(this);
  state->library_name = first && !first->library().name().empty() ? first->library().name() : "model";
  Module self{ObjectPtr<ModuleNode>(this)};
  state->raw = FetchRawMetadata(self, state->library_name);
  state->md = ReadMetadata(state->raw, first ? first->library().Segments() : AddressBounds(), state->library_name);
  state->constant_pool = BuildConstantPool(state->md, state->library_name);
  state->constant_pool_shape = {static_cast<int64_t>(state->constant_pool.bytes())};
  std::string entry = state->md.EntryName();
  if (LibraryModuleNode* lib = FindLibraryDefining(this, entry)) {
    state->entry = reinterpret_cast<TVMBackendPackedCFunc>(lib->library().Lookup(entry));
  } else {
    state->entry_packed = self.GetFunction(entry, true);
    AOTRT_REQUIRE(static_cast<bool>(state->entry_packed), kNotFound, state->library_name,
                  ": Module entrypoint is not defined: no function ", entry);
  }
  state_ = state;
  return state_;
}

}  // namespace aotrt
