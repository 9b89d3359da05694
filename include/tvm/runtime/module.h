// TVM's Module (tvm/runtime/module.h): a thin subclass of aotrt::Module (the same module object
// and handle). LoadFromFile loads a TVM export as aotrt does (aotrt/module.h): the AOT or graph
// executor factory, a plain operator library, a system-lib archive; it throws tvm::runtime::Error
// (kNotFound, kIOError, kFormatError, ...) naming the file where TVM aborts. GetFunction returns a
// null PackedFunc when the name is absent (test it against nullptr, as TVM programs do).
// Thread-safety as aotrt::Module: lookups from any thread; Import() must not race with them.
#pragma once

#include <string>
#include <utility>
#include <vector>

#include <tvm/runtime/container/string.h>
#include <tvm/runtime/object.h>

#include "aotrt/module.h"

namespace tvm {
namespace runtime {

class PackedFunc;
using ModuleNode = aotrt::ModuleNode;

class Module : public aotrt::Module {
 public:
  using ContainerType = ModuleNode;
  static constexpr bool _type_is_nullable = true;
  Module() = default;
  Module(aotrt::Module other) : aotrt::Module(std::move(other)) {}  // NOLINT(*)
  explicit Module(ObjectPtr<Object> n) : aotrt::Module(ObjectPtr<ModuleNode>(static_cast<ModuleNode*>(n.get()))) {}
  operator ObjectRef() const { return ObjectRef(node()); }  // NOLINT(*)

  // `format` "" means the file's extension ("so", "tar", ...).
  static Module LoadFromFile(const std::string& file_name, const std::string& format = "") {
    return aotrt::Module::LoadFromFile(file_name, format);
  }
  inline PackedFunc GetFunction(const std::string& name, bool query_imports = false) const;
  bool ImplementsFunction(const std::string& name, bool query_imports = false) const {
    return static_cast<bool>(aotrt::Module::GetFunction(name, query_imports));
  }
  std::vector<Module> imports() const {
    std::vector<aotrt::Module> m = aotrt::Module::imports();
    return std::vector<Module>(m.begin(), m.end());
  }
  bool same_as(const Module& other) const { return node() == other.node(); }
  const ModuleNode* get() const { return node().get(); }
  int use_count() const { return node() ? node()->use_count() : 0; }
  bool operator==(std::nullptr_t) const { return !defined(); }
  bool operator!=(std::nullptr_t) const { return defined(); }
};

}  // namespace runtime
}  // namespace tvm

#include <tvm/runtime/packed_func.h>  // PackedFunc, and Module::GetFunction's body
