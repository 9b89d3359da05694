// TVM's tvm/runtime/vm/executable.h for deployment programs: Executable::Load(code, lib) gives the
// Relay VM executable module ("VMExecutable", aotrt/vm.h) over its kernel library, with TVM's
// functions (vm_load_executable, get_function_arity, get_function_param_name, get_bytecode, save,
// ...). Executable is not an object type here: use the module (as<Executable>() is not offered).
// Thread-safety: the module may be shared; errors are thrown as tvm::runtime::Error.
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
    TVMValue values[2];
    int codes[2] = {kTVMBytes, kTVMModuleHandle};
    values[0].v_handle = &bytes;
    values[1].v_handle = lib.node().get();
    aotrt::TVMRetValue rv;
    aotrt::GetGlobalFunction("runtime.Load_Executable").CallPacked(aotrt::TVMArgs(values, codes, 2), &rv);
    return Module(rv.As<aotrt::Module>());
  }
};

}  // namespace vm
}  // namespace runtime
}  // namespace tvm
