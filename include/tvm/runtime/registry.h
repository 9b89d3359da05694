// TVM's global function registry (tvm/runtime/registry.h) over aotrt's: one registry, shared with
// the C ABI (TVMFuncGetGlobal) and aotrt's own globals ("runtime.SystemLib", ...).
//   const PackedFunc* f = Registry::Get("name");   // nullptr when absent, as in TVM
//   TVM_REGISTER_GLOBAL("my.add").set_body_typed([](int a, int b) { return a + b; });
// Get's pointer lives as long as the process and follows a later override of the name. Registering a
// name that exists without `override` throws kInvalidArgument. Thread-safe.
#pragma once

#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <utility>
#include <vector>

#include <tvm/runtime/c_runtime_api.h>
#include <tvm/runtime/container/string.h>
#include <tvm/runtime/packed_func.h>

#include "aotrt/packed_func.h"

namespace tvm {
namespace runtime {

class Registry {
 public:
  Registry& set_body(PackedFunc f) {
    aotrt::RegisterGlobalFunction(name_, f, override_);
    std::lock_guard<std::mutex> lock(mutex_);
    func_ = std::move(f);  // what Get's pointer sees
    return *this;
  }
  // A body `void(TVMArgs, TVMRetValue*)`.
  template <typename TCallable>
  Registry& set_body(TCallable f) { return set_body(PackedFunc(std::move(f))); }
  // A function, function pointer or lambda with a C++ signature (arguments converted as TVM does).
  template <typename FLambda>
  Registry& set_body_typed(FLambda f) {
    using Sig = typename detail::function_signature<std::remove_pointer_t<std::decay_t<FLambda>>>::FType;
    return set_body(TypedPackedFunc<Sig>(std::move(f), name_).packed());
  }

  // The registration of `name`, kept for the life of the process; set_body registers the function.
  static Registry& Register(const std::string& name, bool override = false) {
    std::lock_guard<std::mutex> lock(mutex_);
    Registry& r = Entry(name);
    r.override_ = override;
    return r;
  }
  // False when `name` was not registered.
  static bool Remove(const std::string& name) {
    return aotrt::GetGlobalFunction(name) && TVMFuncRemoveGlobal(name.c_str()) == 0;
  }
  // The function registered under `name` now, however it was registered, or nullptr. Names from before
  // TVM v0.8 (the graph runtime, now the graph executor) find today's function.
  static const PackedFunc* Get(const std::string& name) {
    aotrt::PackedFunc f = aotrt::GetGlobalFunction(name);
    if (!f && name.rfind("tvm.graph_runtime", 0) == 0) {
      f = aotrt::GetGlobalFunction("tvm.graph_executor" + name.substr(17));
    }
    if (!f) return nullptr;
    std::lock_guard<std::mutex> lock(mutex_);
    Registry& r = Entry(name);
    if (r.func_.object() != f.object()) r.func_ = PackedFunc(std::move(f));
    return &r.func_;
  }
  // The names (std::vector<String> since TVM v0.9; also converts to v0.8's std::vector<std::string>).
  struct NameList : std::vector<String> {
    using std::vector<String>::vector;
    operator std::vector<std::string>() const { return std::vector<std::string>(begin(), end()); }  // NOLINT(*)
  };
  static NameList ListNames() {
    int size = 0;
    const char** names = nullptr;
    detail::CheckCall(TVMFuncListGlobalNames(&size, &names));
    return NameList(names, names + size);
  }

 private:
  explicit Registry(std::string name) : name_(std::move(name)) {}
  static inline std::mutex mutex_;
  // The entry of `name`, made on first use (never destroyed: Get's pointers outlive static teardown).
  static Registry& Entry(const std::string& name) {
    static auto* entries = new std::map<std::string, std::unique_ptr<Registry>>();
    std::unique_ptr<Registry>& r = (*entries)[name];
    if (!r) r.reset(new Registry(name));
    return *r;
  }
  std::string name_;
  bool override_ = false;
  PackedFunc func_;
};

#define TVM_FUNC_REG_VAR_DEF static TVM_ATTRIBUTE_UNUSED ::tvm::runtime::Registry& __mk_TVM
#define TVM_REGISTER_GLOBAL(OpName) TVM_STR_CONCAT(TVM_FUNC_REG_VAR_DEF, __COUNTER__) = ::tvm::runtime::Registry::Register(OpName)

}  // namespace runtime
}  // namespace tvm
