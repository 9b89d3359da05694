#include "ffi/registry.h"

#include <algorithm>
#include <map>
#include <mutex>

#include "base/error_util.h"

namespace aotrt {

struct Registry::Impl {
  mutable std::mutex mu;
  std::map<std::string, PackedFunc> funcs;
};

Registry& Registry::Global() {
  // Leaked on purpose: functions may be looked up from static destructors of other libraries.
  static Registry* registry = [] {
    auto* r = new Registry();
    r->impl_ = new Impl();
    RegisterFfiGlobals(*r);
    RegisterNDArrayGlobals(*r);
    RegisterModuleGlobals(*r);
    RegisterAotGlobals(*r);
    RegisterProfilingGlobals(*r);
    RegisterContribGlobals(*r);
    return r;
  }();
  return *registry;
}

void Registry::Register(const std::string& name, PackedFunc f, bool override) {
  AOTRT_REQUIRE(!name.empty(), kInvalidArgument, "global function name is empty");
  AOTRT_REQUIRE(static_cast<bool>(f), kInvalidArgument, "global function '", name, "' is null");
  std::lock_guard<std::mutex> lock(impl_->mu);
  auto it = impl_->funcs.find(name);
  if (it != impl_->funcs.end() && !override) {
    AOTRT_THROW(kInvalidArgument, "Global PackedFunc ", name, " is already registered");
  }
  impl_->funcs[name] = std::move(f);
}

PackedFunc Registry::Get(const std::string& name) const {
  std::lock_guard<std::mutex> lock(impl_->mu);
  auto it = impl_->funcs.find(name);
  return it == impl_->funcs.end() ? PackedFunc() : it->second;
}

bool Registry::Remove(const std::string& name) {
  std::lock_guard<std::mutex> lock(impl_->mu);
  return impl_->funcs.erase(name) > 0;
}

std::vector<std::string> Registry::ListNames() const {
  std::lock_guard<std::mutex> lock(impl_->mu);
  std::vector<std::string> names;
  names.reserve(impl_->funcs.size());
  for (const auto& kv : impl_->funcs) names.push_back(kv.first);
  return names;
}

PackedFunc GetGlobalFunction(const std::string& name) { return Registry::Global().Get(name); }

void RegisterGlobalFunction(const std::string& name, PackedFunc f, bool override) {
  Registry::Global().Register(name, std::move(f), override);
}

// Globals a host binding needs to unpack objects (TVM names).
void RegisterFfiGlobals(Registry& r) {
  r.Register("runtime.ArraySize", PackedFunc([](TVMArgs args, TVMRetValue* rv) {
    AOTRT_REQUIRE(args.size() == 1, kInvalidArgument, "runtime.ArraySize takes 1 argument, got ", args.size());
    auto* obj = static_cast<Object*>(args[0].value().v_handle);
    AOTRT_REQUIRE(args[0].type_code() == kTVMObjectHandle && obj && obj->type_index() == kTypeArray,
                  kTypeMismatch, "runtime.ArraySize expects an Array object, got ", TypeCodeName(args[0].type_code()));
    rv->SetInt(static_cast<int64_t>(static_cast<ArrayObj*>(obj)->items.size()));
  }), false);
  r.Register("runtime.ArrayGetItem", PackedFunc([](TVMArgs args, TVMRetValue* rv) {
    AOTRT_REQUIRE(args.size() == 2, kInvalidArgument, "runtime.ArrayGetItem takes 2 arguments, got ", args.size());
    auto* obj = static_cast<Object*>(args[0].value().v_handle);
    AOTRT_REQUIRE(args[0].type_code() == kTVMObjectHandle && obj && obj->type_index() == kTypeArray,
                  kTypeMismatch, "runtime.ArrayGetItem expects an Array object, got ", TypeCodeName(args[0].type_code()));
    const auto& items = static_cast<ArrayObj*>(obj)->items;
    int64_t i = args[1].AsInt();
    AOTRT_REQUIRE(i >= 0 && i < static_cast<int64_t>(items.size()), kOutOfRange, "runtime.ArrayGetItem: index ", i,
                  " out of range [0, ", items.size(), ")");
    const ObjectPtr<Object>& item = items[i];
    if (item && item->type_index() == kTypeString) {
      rv->SetString(static_cast<StringObj*>(item.get())->value);
    } else {
      int code = !item ? kTVMNullptr
                 : item->type_index() == kTypeModule ? kTVMModuleHandle
                 : item->type_index() == kTypePackedFunc ? kTVMPackedFuncHandle
                 : item->type_index() == kTypeNDArray ? kTVMNDArrayHandle : kTVMObjectHandle;
      rv->SetObject(item, code);
    }
  }), false);
  r.Register("runtime.GetFFIString", PackedFunc([](TVMArgs args, TVMRetValue* rv) {
    AOTRT_REQUIRE(args.size() == 1, kInvalidArgument, "runtime.GetFFIString takes 1 argument, got ", args.size());
    auto* obj = static_cast<Object*>(args[0].value().v_handle);
    AOTRT_REQUIRE(args[0].type_code() == kTVMObjectHandle && obj && obj->type_index() == kTypeString,
                  kTypeMismatch, "runtime.GetFFIString expects a String object, got ", TypeCodeName(args[0].type_code()));
    rv->SetString(static_cast<StringObj*>(obj)->value);
  }), false);
}

}  // namespace aotrt
