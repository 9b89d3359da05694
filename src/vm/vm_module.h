// The VirtualMachine module of a Relay VM executable (what vm_load_executable returns), with TVM's
// function names: init, set_input, set_one_input, invoke, invoke_stateful, invoke_return_to_device,
// get_output, get_num_outputs, get_input_index, set_outputs. One thread at a time per VM.
#pragma once

#include <memory>

#include "aotrt/model_info.h"
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

class VirtualMachineNode;

// A VM export as aotrt::Model sees it: the function "main", its parameters as inputs (name only:
// their shapes and dtypes are known when it runs), no outputs until a run. Throws kNotFound (no
// "main"), what vm_load_executable throws (no kernel library, late-bound constants not loaded).
ModelInfo ModelInfoOfExecutable(const Module& executable);

// aotrt::Executor over a VM export (Model::CreateExecutor): a VirtualMachine of its own running
// "main", inputs by position, the tensors of the last result (tuples flattened depth-first) as
// outputs. A run allocates nothing once shapes repeat. One thread at a time.
class VMExecutor {
 public:
  // A VM on `device`, the export's device type (kInvalidArgument otherwise), with CPU 0 beside it
  // for shape functions. Throws as vm_load_executable and init.
  VMExecutor(const Module& executable, ModelInfo info, DLDevice device);
  const Module& module() const { return module_; }
  const ModelInfo& Info() const { return info_; }  // outputs: the last run's
  // The input's tensor from now on: the caller's (zero_copy: on the VM's device, contiguous, 64-byte
  // aligned; it must stay valid) or the VM's copy of it, on the parameter's device.
  void SetInput(size_t i, const DLTensor& t, bool zero_copy);
  // The next runs write output `i` into `t` (every output needs one; the caller's memory stays valid).
  void SetOutput(size_t i, const DLTensor& t);
  NDArray GetInput(size_t i) const;
  NDArray GetOutput(size_t i) const;
  void Run();
  void Sync() const;

 private:
  Module module_;
  VirtualMachineNode* vm_;
  ModelInfo info_;
  size_t main_;
  std::vector<ObjectPtr<Object>>* inputs_;  // the VM's for "main"
  std::vector<NDArray> copies_;             // SetInput's, per input
  std::vector<NDArray> given_outputs_;      // SetOutput's
};

}  // namespace vm
}  // namespace aotrt
