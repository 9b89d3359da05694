// TVM's Module (tvm/runtime/module.h): a thin subclass of aotrt::Module (the same object and
// handle). LoadFromFile loads a TVM export as aotrt::Module::LoadFromFile does, throwing kNotFound,
// kIOError, kFormatError, ... naming the file. GetFunction returns a null PackedFunc when the name
// is absent. Thread-safety as aotrt::Module: lookups from any thread; Import() must not race with them.
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

class Module : public detail::HandleOf<aotrt::Module, ModuleNode> {
 public:
  using HandleOf::HandleOf;
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
};

}  // namespace runtime
}  // namespace tvm

#include <tvm/runtime/packed_func.h>  // PackedFunc, and Module::GetFunction's body
