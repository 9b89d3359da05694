// Module imports and function lookup through the import tree.
#include "aotrt/module.h"

#include "base/error_util.h"
#include "ffi/handle.h"
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
    PackedFunc f = m->GetFunction(name, m);
    if (f) return f;
    f = FindInImports(m, name, seen);
    if (f) return f;
  }
  return PackedFunc();
}

}  // namespace

ObjectPtr<ModuleNode> TVMArgValue::AsModule() const {
  if (code_ != kTVMModuleHandle) Mismatch("Module");
  if (!value_.v_handle) AOTRT_THROW(kInvalidArgument, "argument ", index_, ": module handle is null");
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
  if (f || !query_imports) return f;
  VisitedModules seen;
  seen.Insert(node_.get());
  return FindInImports(node_, name, &seen);
}

PackedFunc Module::GetFunctionOrThrow(const std::string& name, bool query_imports) const {
  PackedFunc f = GetFunction(name, query_imports);
  if (!f) {
    std::string hint = node_->MissingFunctionHint(name);
    AOTRT_THROW(kNotFound, "module '", node_->type_key(), "' has no function '", name, "'", hint.empty() ? "" : ": ",
                hint);
  }
  return f;
}

std::vector<Module> Module::imports() const {
  std::vector<Module> out;
  for (const auto& m : checked().imports()) out.emplace_back(m);
  return out;
}

}  // namespace aotrt
