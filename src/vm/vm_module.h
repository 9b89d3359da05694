// The VirtualMachine module of a Relay VM executable (what vm_load_executable returns), with TVM's
// function names: init, set_input, set_one_input, invoke, invoke_stateful, invoke_return_to_device,
// get_output, get_num_outputs, get_input_index, set_outputs. One thread at a time per VM.
#pragma once

#include <memory>

#include "aotrt/module.h"
#include "vm/interpreter.h"

namespace aotrt {
namespace vm {

// A packed function of a VM module (VMExecutable, VirtualMachine), over its node.
template <class Node>
struct NodeMethod {
  const char* name;
  void (*fn)(Node* node, TVMArgs args, TVMRetValue* rv);
};
// The method `name` of `methods` bound to `node`, which `self` (its module) keeps alive; empty when none.
template <class Node, size_t N>
PackedFunc MethodOf(const NodeMethod<Node> (&methods)[N], Node* node, const std::string& name,
                    const ObjectPtr<ModuleNode>& self) {
  for (const NodeMethod<Node>& m : methods) {
    if (name != m.name) continue;
    return PackedFunc([node, self, fn = m.fn](TVMArgs args, TVMRetValue* rv) { fn(node, args, rv); });
  }
  return PackedFunc();
}

// A new VM over `exe` (its kernels resolved). Throws kOutOfMemory.
ObjectPtr<ModuleNode> MakeVirtualMachine(std::shared_ptr<const LoadedExecutable> exe);

}  // namespace vm
}  // namespace aotrt
