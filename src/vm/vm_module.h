// The VirtualMachine module of a Relay VM executable (what vm_load_executable returns), with TVM's
// function names: init, set_input, set_one_input, invoke, invoke_stateful, invoke_return_to_device,
// get_output, get_num_outputs, get_input_index, set_outputs. One thread at a time per VM.
#pragma once

#include <memory>

#include "aotrt/module.h"
#include "vm/interpreter.h"

namespace aotrt {
namespace vm {

// A new VM over `exe` (its kernels resolved). Throws kOutOfMemory.
ObjectPtr<ModuleNode> MakeVirtualMachine(std::shared_ptr<const LoadedExecutable> exe);

}  // namespace vm
}  // namespace aotrt
