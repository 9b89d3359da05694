#include "ffi/registry.h"

#include <algorithm>
#include <map>
#include <mutex>
#include <set>

#include "base/error_util.h"

namespace aotrt {

struct Registry::Impl {
  mutable std::mutex mu;
  // Registered functions and built-ins already looked up; an empty PackedFunc marks a removed name.
  mutable std::map<std::string, PackedFunc> funcs;
  std::set<std::string> registered;  // names whose entry in `funcs` came from Register
  // A linear scan of the compile-time tables: each name is looked up there once (then cached in
  // `funcs`).
  const GlobalDef* FindBuiltin(const std::string& name) const {
    for (size_t t = 0; t < kNumBuiltinGlobalTables; ++t) {
      const GlobalTable* table = kBuiltinGlobalTables[t];
      for (size_t i = 0; i < table->size; ++i) {
        if (name == table->defs[i].name) return &table->defs[i];
      }
    }
    return nullptr;
  }
  bool Exists(const std::string& name) const {
    auto it = funcs.find(name);
    return it != funcs.end() ? static_cast<bool>(it->second) : FindBuiltin(name) != nullptr;
  }
};

Registry::Registry() : impl_(new Impl()) {}

Registry& Registry::Global() {
  static Registry* registry = new Registry();  // leaked on purpose, see the header
  return *registry;
}

void Registry::Register(const std::string& name, PackedFunc f, bool override) {
  AOTRT_REQUIRE(!name.empty(), kInvalidArgument, "global function name is empty");
  AOTRT_REQUIRE(static_cast<bool>(f), kInvalidArgument, "global function '", name, "' is null");
  std::lock_guard<std::mutex> lock(impl_->mu);
  if (!override && impl_->Exists(name)) AOTRT_THROW(kInvalidArgument, "Global PackedFunc ", name, " is already registered");
  impl_->funcs[name] = std::move(f);
  impl_->registered.insert(name);
}

PackedFunc Registry::Get(const std::string& name) const {
  std::lock_guard<std::mutex> lock(impl_->mu);
  auto it = impl_->funcs.find(name);
  if (it != impl_->funcs.end()) return it->second;
  const GlobalDef* def = impl_->FindBuiltin(name);
  if (!def) return PackedFunc();
  auto call = [](void* ctx, TVMArgs args, TVMRetValue* rv) { static_cast<const GlobalDef*>(ctx)->fn(args, rv); };
  PackedFunc f(call, const_cast<GlobalDef*>(def), nullptr);
  impl_->funcs.emplace(name, f);
  return f;
}

PackedFunc Registry::GetRegistered(const std::string& name) const {
  std::lock_guard<std::mutex> lock(impl_->mu);
  return impl_->registered.count(name) ? impl_->funcs.at(name) : PackedFunc();
}

bool Registry::Remove(const std::string& name) {
  std::lock_guard<std::mutex> lock(impl_->mu);
  impl_->registered.erase(name);
  bool existed = impl_->Exists(name);
  if (existed) impl_->funcs[name] = PackedFunc();
  return existed;
}

std::vector<std::string> Registry::ListNames() const {
  std::lock_guard<std::mutex> lock(impl_->mu);
  std::vector<std::string> names;
  for (size_t t = 0; t < kNumBuiltinGlobalTables; ++t) {
    const GlobalTable* table = kBuiltinGlobalTables[t];
    for (size_t i = 0; i < table->size; ++i) {
      if (!impl_->funcs.count(table->defs[i].name)) names.push_back(table->defs[i].name);
    }
  }
  for (const auto& kv : impl_->funcs) {
    if (kv.second) names.push_back(kv.first);
  }
  std::sort(names.begin(), names.end());
  return names;
}

void RequireArgCount(const char* fn, TVMArgs args, int min, int max) {
  if (max < 0) max = min;
  AOTRT_REQUIRE(args.size() >= min && args.size() <= max, kInvalidArgument, fn, " takes ",
                min == max ? std::to_string(min) : StrCat(min, " to ", max), " argument", max == 1 ? "" : "s", ", got ",
                args.size());
}

PackedFunc GetGlobalFunction(const std::string& name) { return Registry::Global().Get(name); }

void RegisterGlobalFunction(const std::string& name, PackedFunc f, bool override) {
  Registry::Global().Register(name, std::move(f), override);
}

}  // namespace aotrt
