// TVM's tvm/runtime/vm/vm.h for deployment programs: make_object<VirtualMachine>(),
// LoadExecutable(executable module), Init(devices, allocator types), then TVM's functions
// (set_input, set_one_input, invoke, invoke_stateful, get_output, get_num_outputs, get_input_index,
// set_outputs) through GetFunction(name, vm) or Module(vm). It runs on aotrt's VM of that
// executable. One VirtualMachine per thread; it keeps its executable alive. Errors are thrown as
// tvm::runtime::Error.
#pragma once

#include <string>
#include <vector>

#include <tvm/runtime/container/adt.h>
#include <tvm/runtime/data_type.h>
#include <tvm/runtime/memory.h>
#include <tvm/runtime/module.h>
#include <tvm/runtime/packed_func.h>
#include <tvm/runtime/vm/executable.h>

namespace tvm {
namespace runtime {
namespace memory {

// TVM's allocator kinds (init's third value per device); aotrt's VM pools either way.
enum AllocatorType { kNaive = 1, kPooled };

}  // namespace memory

namespace vm {

class VirtualMachine : public ModuleNode {
 public:
  const char* type_key() const override { return "VirtualMachine"; }
  // TVM's functions of the VM made by LoadExecutable; empty before it or for another name.
  aotrt::PackedFunc GetFunction(const std::string& name, const ObjectPtr<ModuleNode>& self) override {
    (void)self;
    return impl_.defined() ? impl_.GetFunction(name) : aotrt::PackedFunc();
  }
  // Make this VM's state over `exec` (Executable::Load's module). Throws kInvalidArgument when the
  // executable has late-bound constants not loaded.
  void LoadExecutable(const Module& exec) { impl_ = exec.GetFunctionOrThrow("vm_load_executable")().As<aotrt::Module>(); }
  // The physical device of each virtual device (matched by type) and its allocator kind. Throws
  // kInvalidArgument (no device of a type the program needs), kNotFound (a device this machine lacks).
  void Init(const std::vector<Device>& devices, const std::vector<memory::AllocatorType>& alloc_types) {
    std::vector<TVMValue> values;
    std::vector<int> codes;
    for (size_t i = 0; i < devices.size(); ++i) {
      int64_t v[3] = {devices[i].device_type, devices[i].device_id, i < alloc_types.size() ? alloc_types[i] : 2};
      for (int64_t x : v) {
        values.emplace_back();
        values.back().v_int64 = x;
        codes.push_back(kTVMArgInt);
      }
    }
    aotrt::TVMRetValue rv;
    impl_.GetFunctionOrThrow("init").CallPacked(aotrt::TVMArgs(values.data(), codes.data(), static_cast<int>(codes.size())), &rv);
  }

 private:
  aotrt::Module impl_;
};

}  // namespace vm
}  // namespace runtime
}  // namespace tvm
