// TVM's tvm/runtime/vm/vm.h: make_object<VirtualMachine>(), LoadExecutable(exec), Init(devices,
// allocator types), then TVM's functions (set_input, invoke, get_output, ...) through
// GetFunction(name, vm) or Module(vm), run by aotrt's VM. One per thread; it keeps its executable alive.
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
  aotrt::PackedFunc GetFunction(const std::string& name, const ObjectPtr<ModuleNode>&) override {
    return impl_.defined() ? impl_.GetFunction(name) : aotrt::PackedFunc();
  }
  // Make this VM's state over `exec` (Executable::Load's module). Throws kInvalidArgument when the
  // executable has late-bound constants not loaded.
  void LoadExecutable(const Module& exec) { impl_ = exec.GetFunctionOrThrow("vm_load_executable")().As<aotrt::Module>(); }
  // The physical device of each virtual device (matched by type) and its allocator kind. Throws
  // kInvalidArgument (no device of a type the program needs), kNotFound (a device this machine lacks).
  void Init(const std::vector<Device>& devices, const std::vector<memory::AllocatorType>& alloc_types) {
    std::vector<TVMValue> values(3 * devices.size());  // (type, id, allocator) per device, all ints
    std::vector<int> codes(values.size(), kTVMArgInt);
    for (size_t i = 0; i < devices.size(); ++i) {
      values[3 * i].v_int64 = devices[i].device_type;
      values[3 * i + 1].v_int64 = devices[i].device_id;
      values[3 * i + 2].v_int64 = i < alloc_types.size() ? alloc_types[i] : memory::kPooled;
    }
    aotrt::TVMRetValue rv;
    impl_.GetFunctionOrThrow("init").CallPacked(aotrt::TVMArgs(values.data(), codes.data(), int(codes.size())), &rv);
  }

 private:
  aotrt::Module impl_;
};

}  // namespace vm
}  // namespace runtime
}  // namespace tvm
