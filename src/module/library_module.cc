#include "module/library_module.h"

#include <tvm/runtime/c_backend_api.h>

#include <algorithm>
#include <mutex>
#include <utility>
#include <vector>

#include "backend/workspace.h"
#include "base/error_util.h"
#include "base/last_error.h"
#include "ffi/registry.h"
#include "module/model_contract.h"

namespace aotrt {

// Wrap an exported TVMBackendPackedCFunc; `keep` stays alive as long as the function.
// A non-zero return becomes Error(kModelError) carrying the message the model set.
static PackedFunc WrapBackendFunction(TVMBackendPackedCFunc f, std::string name, ObjectPtr<Object> keep) {
  return PackedFunc([f, name = std::move(name), keep = std::move(keep)](TVMArgs args, TVMRetValue* rv) {
    TVMValue ret;
    ret.v_handle = nullptr;
    int ret_code = kTVMNullptr;  // generated code leaves it untouched when returning nothing
    uint64_t errors_before = LastErrorSequence();
    size_t workspace_mark = WorkspaceMark();
    int rc = f(const_cast<TVMValue*>(args.values()), const_cast<int*>(args.type_codes()), args.size(), &ret,
               &ret_code, nullptr);
    if (rc != 0) {
      WorkspaceReleaseTo(workspace_mark);
      ThrowCalleeFailure(errors_before, StrCat(name, " (returned ", rc, ")"));
    }
    if (ret_code != kTVMNullptr) rv->SetFromC(ret, ret_code);
  });
}

PackedFunc LibraryModuleNode::GetFunction(const std::string& name, const ObjectPtr<ModuleNode>& self) {
  std::string symbol = name;
  if (name == contract::kMainAlias) {
    auto* entry_name = static_cast<const char*>(lib_->Lookup(contract::kMainAlias));
    AOTRT_REQUIRE(entry_name != nullptr, kNotFound, "Symbol __tvm_main__ is not presented in ", lib_->name());
    symbol = AsFormatError([&] { return lib_->Segments().ReadString(entry_name, 4096, contract::kMainAlias); },
                           lib_->name(), ": ");
  }
  void* addr = lib_->Lookup(symbol);
  if (!addr) return PackedFunc();
  return WrapBackendFunction(reinterpret_cast<TVMBackendPackedCFunc>(addr), symbol, self);
}

PackedFuncObj* LibraryModuleNode::GetFuncFromEnv(const std::string& name) {
  std::lock_guard<std::mutex> lock(env_mu_);
  auto it = env_cache_.find(name);
  if (it != env_cache_.end()) return it->second.object().get();
  PackedFunc f;
  for (const auto& m : imports()) {
    f = Module(m).GetFunction(name, true);
    if (f) break;
  }
  if (!f) f = Registry::Global().Get(name);
  AOTRT_REQUIRE(static_cast<bool>(f), kNotFound, "Cannot find function ", name,
                " in the imported modules or global registry (needed by ", lib_->name(), ")");
  env_cache_[name] = f;
  return f.object().get();
}

namespace {

struct ContextPointer {
  const char* name;
  void* value;
};

// The context variables of llvm exports (ABI.md 2.1) and what aotrt writes into them: the `__TVM*`
// function pointers, and `__tvm_module_ctx` (null here: the library's module node).
const ContextPointer kContextPointers[] = {
    {contract::kModuleContext, nullptr},
    {"__TVMFuncCall", reinterpret_cast<void*>(&TVMFuncCall)},
    {"__TVMAPISetLastError", reinterpret_cast<void*>(&TVMAPISetLastError)},
    {"__TVMBackendGetFuncFromEnv", reinterpret_cast<void*>(&TVMBackendGetFuncFromEnv)},
    {"__TVMBackendParallelLaunch", reinterpret_cast<void*>(&TVMBackendParallelLaunch)},
    {"__TVMBackendParallelBarrier", reinterpret_cast<void*>(&TVMBackendParallelBarrier)},
    {"__TVMBackendAllocWorkspace", reinterpret_cast<void*>(&TVMBackendAllocWorkspace)},
    {"__TVMBackendFreeWorkspace", reinterpret_cast<void*>(&TVMBackendFreeWorkspace)},
};

// Every context variable `lib` defines must be a writable pointer slot inside the library: one in
// read-only data or outside the library would fault when written. Throws kFormatError naming the
// library and the symbol.
void CheckWritableSlots(const SymbolSource& lib) {
  AddressBounds bounds = lib.Segments();
  for (const ContextPointer& p : kContextPointers) {
    if (void* slot = lib.Lookup(p.name)) {
      AsFormatError([&] { bounds.RequireWritable(slot, sizeof(void*), p.name); }, lib.name(), ": ");
    }
  }
}

// Library module nodes by library identity; the nodes unregister themselves when destroyed. A
// vector searched in order: a process holds a few libraries, and a hash map would be the load's
// only use of libstdc++'s rehash code (base/name_index.h says what that costs).
struct LiveLibraries {
  using Entry = std::pair<const void*, LibraryModuleNode*>;
  std::mutex mu;
  std::vector<Entry> nodes;
  std::vector<Entry>::iterator Find(const void* id) {
    return std::find_if(nodes.begin(), nodes.end(), [id](const Entry& e) { return e.first == id; });
  }
};

LiveLibraries& Live() {
  static LiveLibraries* live = new LiveLibraries();  // outlives every node, even at exit
  return *live;
}

// Point the library's context variables that exist at aotrt (the `__TVM*` pointers) and at `node`,
// its library module (not the tree's root; it stays alive through the tree).
void FillLibraryContext(LibraryModuleNode* node) {
  const SymbolSource& lib = node->library();
  ModuleNode* self = node;
  for (const ContextPointer& p : kContextPointers) {
    if (auto* slot = static_cast<void**>(lib.Lookup(p.name))) *slot = p.value ? p.value : self;
  }
}

}  // namespace

LibraryModuleNode* FindLibraryModule(ModuleNode* node, const std::string& symbol) {
  auto* lib = dynamic_cast<LibraryModuleNode*>(node);
  if (lib && (symbol.empty() || lib->library().Lookup(symbol))) return lib;
  for (const auto& m : node->imports()) {
    if (LibraryModuleNode* found = FindLibraryModule(m.get(), symbol)) return found;
  }
  return nullptr;
}

ObjectPtr<LibraryModuleNode> AcquireLibraryModule(std::shared_ptr<SymbolSource> lib) {
  CheckWritableSlots(*lib);  // before any node exists: its destructor takes the lock below
  const void* id = lib->identity();
  // Made before the lock and destroyed after it (declared first) if anything below throws: the
  // node's destructor takes the same lock to unregister.
  auto node = MakeObject<LibraryModuleNode>(std::move(lib));
  if (!id) {
    FillLibraryContext(node.get());
    return node;
  }
  LiveLibraries& live = Live();
  std::lock_guard<std::mutex> lock(live.mu);
  auto it = live.Find(id);
  if (it != live.nodes.end() && it->second->TryIncRef()) {
    return ObjectPtr<LibraryModuleNode>::Adopt(it->second);  // `node` (an extra dlopen reference) goes
  }
  // Registered first (replacing a dying node's entry): on a throw below, the destructor unregisters it.
  if (it != live.nodes.end()) {
    it->second = node.get();
  } else {
    live.nodes.emplace_back(id, node.get());
  }
  FillLibraryContext(node.get());
  return node;
}

LibraryModuleNode::~LibraryModuleNode() {
  if (const void* id = lib_->identity()) {
    LiveLibraries& live = Live();
    std::lock_guard<std::mutex> lock(live.mu);
    auto it = live.Find(id);
    if (it != live.nodes.end() && it->second == this) {
      *it = live.nodes.back();
      live.nodes.pop_back();
    }
  }
}

}  // namespace aotrt
