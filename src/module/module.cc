// Module imports and function lookup through the import tree, and the globals of the module layer
// with TVM's names and error texts (ABI.md 11.4): the `Module.*` properties the Python package
// reads. The loaders are front doors: module/module_load.cc.
#include "aotrt/module.h"

#include "base/error_util.h"
#include "ffi/handle.h"
#include "ffi/registry.h"
#include "module/visited_modules.h"

namespace aotrt {
namespace {

bool Reaches(ModuleNode* from, ModuleNode* target, VisitedModules* seen) {
  if (from == target) return true;
  if (!seen->Insert(from)) return false;
  for (const auto& m : from->imports()) {
    if (Reaches(m.get(), target, seen)) return true;
  }
  return false;
}

PackedFunc FindInImports(const ObjectPtr<ModuleNode>& node, const std::string& name,
                         VisitedModules* seen) {
  for (const auto& m : node->imports()) {
    if (!seen->Insert(m.get())) continue;
    if (PackedFunc f = m->GetFunction(name, m)) return f;
    if (PackedFunc f = FindInImports(m, name, seen)) return f;
  }
  return PackedFunc();
}

}  // namespace

ObjectPtr<ModuleNode> TVMArgValue::AsModule() const {
  if (code_ != kTVMModuleHandle) Mismatch("Module");
  if (!value_.v_handle) AOTRT_THROW(kInvalidArgument, Where(), ": module handle is null");
  // Live (in checked builds: in the registry, so a freed handle is refused without being read).
  Object* obj = ObjectFromHandle(value_.v_handle, kTypeObject, Where().c_str());
  if (obj->type_index() != kTypeModule) Mismatch("Module (the handle is another kind of object)");
  return ObjectPtr<ModuleNode>(static_cast<ModuleNode*>(obj));
}

std::string ModuleNode::SaveToBinary() const {
  AOTRT_THROW(kNotImplemented, "module of type '", type_key(), "' cannot be serialized");
}

void ModuleNode::Import(ObjectPtr<ModuleNode> dep) {
  AOTRT_REQUIRE(static_cast<bool>(dep), kInvalidArgument, "cannot import a null module");
  VisitedModules seen;
  AOTRT_REQUIRE(!Reaches(dep.get(), this, &seen), kInvalidArgument,
                "Cyclic dependency detected during import: '", dep->type_key(), "' already reaches '", type_key(), "'");
  imports_.push_back(std::move(dep));
}

PackedFunc Module::GetFunction(const std::string& name, bool query_imports) const {
  AOTRT_REQUIRE(defined(), kInvalidArgument, "GetFunction('", name, "') on an undefined module");
  PackedFunc f = node_->GetFunction(name, node_);
  if (!f && query_imports) {
    VisitedModules seen;
    seen.Insert(node_.get());
    f = FindInImports(node_, name, &seen);
  }
  return f ? f : PackedFunc::Missing(MissingFunction(name));
}

PackedFunc Module::GetFunctionOrThrow(const std::string& name, bool query_imports) const {
  PackedFunc f = GetFunction(name, query_imports);
  if (!f) throw Error(ErrorCode::kNotFound, MissingFunction(name));
  return f;
}

std::string Module::MissingFunction(const std::string& name) const {
  std::string hint = node_->MissingFunctionHint(name);
  return StrCat("module '", node_->type_key(), "' has no function '", name, "'", hint.empty() ? "" : ": ", hint);
}

std::vector<Module> Module::imports() const {
  std::vector<Module> out;
  for (const auto& m : checked().imports()) out.emplace_back(m);
  return out;
}

namespace {

void GetTypeKey(TVMArgs args, TVMRetValue* rv) { rv->SetString(args[0].AsModule()->type_key()); }

void GetImport(TVMArgs args, TVMRetValue* rv) {
  RequireArgCount("runtime.ModuleGetImport", args, 2, 2);
  auto m = args[0].AsModule();
  int64_t i = args[1].AsInt();
  AOTRT_REQUIRE(i >= 0 && i < static_cast<int64_t>(m->imports().size()), kOutOfRange, "import index ", i,
                " out of range [0, ", m->imports().size(), ")");
  rv->SetObject(m->imports()[i]);
}

void ImportsSize(TVMArgs args, TVMRetValue* rv) {
  rv->SetInt(static_cast<int64_t>(args[0].AsModule()->imports().size()));
}

void SaveToBinary(TVMArgs args, TVMRetValue* rv) { rv->SetBytes(args[0].AsModule()->SaveToBinary()); }

void GetPropertyMask(TVMArgs args, TVMRetValue* rv) { rv->SetInt(args[0].AsModule()->GetPropertyMask()); }

// (Module, name, query_imports) -> 0/1 (kImplements), or -> the function or null.
template <bool kImplements>
void GetFunction(TVMArgs args, TVMRetValue* rv) {
  RequireArgCount(kImplements ? "runtime.ModuleImplementsFunction" : "runtime.ModuleGetFunction", args, 2, 3);
  PackedFunc f = Module(args[0].AsModule()).GetFunction(args[1].AsString(), args.size() > 2 && args[2].AsInt() != 0);
  if (kImplements) return rv->SetInt(f ? 1 : 0);
  if (f) rv->SetObject(f.object());
}

// No module aotrt loads has source, a format or a file form of its own (TVM's texts).
template <int kWhat>
void Unsupported(TVMArgs args, TVMRetValue*) {
  static const char* const kNames[] = {"GetFormat", "GetSource", "SaveToFile"};
  AOTRT_THROW(kNotImplemented, "Module[", args[0].AsModule()->type_key(), "] does not support ", kNames[kWhat]);
}

constexpr GlobalDef kDefs[] = {
    {"runtime.ModuleGetTypeKey", GetTypeKey},
    {"runtime.ModuleGetImport", GetImport},
    {"runtime.ModuleImportsSize", ImportsSize},
    {"runtime.ModuleSaveToBinary", SaveToBinary},
    {"runtime.ModuleGetPropertyMask", GetPropertyMask},
    {"runtime.ModuleImplementsFunction", GetFunction<true>},
    {"runtime.ModuleGetFunction", GetFunction<false>},
    {"runtime.ModuleGetFormat", Unsupported<0>},
    {"runtime.ModuleGetSource", Unsupported<1>},
    {"runtime.ModuleSaveToFile", Unsupported<2>},
};

}  // namespace

extern const GlobalTable kModuleGlobals{kDefs};

}  // namespace aotrt
