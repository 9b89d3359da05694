// TVM's tvm/runtime/vm/executable.h: Executable::Load(code, lib) gives the Relay VM executable module
// (aotrt/vm.h) with TVM's functions (vm_load_executable, get_bytecode, save, ...); Executable is not
// an object type here (no as<Executable>()). The module may be shared between threads.
#pragma once

#include <string>

#include <tvm/runtime/module.h>
#include <tvm/runtime/packed_func.h>

namespace tvm {
namespace runtime {
namespace vm {

class Executable {
 public:
  // The executable of `code` (the bytecode: code.ro, exe.save()[0]) over `lib` (its kernel
  // library); the whole program is validated and every primitive resolved here. Throws
  // kFormatError (corrupt bytecode, a version of no accepted release), kNotFound (a primitive
  // `lib` lacks).
  static Module Load(const std::string& code, const Module lib) {
    TVMByteArray bytes{code.data(), code.size()};
    return PackedFunc(aotrt::GetGlobalFunction("runtime.Load_Executable"))(bytes, lib);
  }
};

}  // namespace vm
}  // namespace runtime
}  // namespace tvm
