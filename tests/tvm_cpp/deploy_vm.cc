// A deployment program for TVM's Relay VM, written against TVM's C++ runtime headers as
// mmdeploy-style programs are (tvm/runtime/vm/executable.h, vm.h), run on the real TVM v0.14 VM
// exports (../shared/fixtures/vm): Executable::Load(code, lib), make_object<VirtualMachine>(),
// LoadExecutable, Init, then set_input / invoke / get_output through GetFunction(name, vm) and
// through Module(vm); every input set compared with expected.npz bit for bit.
//   deploy_vm VM_FIXTURES_DIR     (exit 77 when the folder is absent)
#include <dlpack/dlpack.h>
#include <tvm/runtime/memory.h>
#include <tvm/runtime/module.h>
#include <tvm/runtime/ndarray.h>
#include <tvm/runtime/packed_func.h>
#include <tvm/runtime/vm/executable.h>
#include <tvm/runtime/vm/vm.h>

#include <cstdio>
#include <fstream>
#include <iterator>
#include <string>

#include "check.h"

using tvm_cpp_test::Expect;

static int checks = 0;

static void RunSet(tvm::runtime::Module vm, const std::string& dir, const std::string& suffix) {
  DLDevice dev{kDLCPU, 0};
  tvm::runtime::PackedFunc set_one_input = vm.GetFunction("set_one_input");
  int index = 0;
  for (const aotrt::NamedArray& in : tvm_cpp_test::Npz(dir + "/inputs" + suffix + ".npz")) {
    tvm::runtime::NDArray x = tvm::runtime::NDArray::Empty(in.array.Shape(), in.array.dtype(), dev);
    x.CopyFromBytes(in.array.data(), in.array.NumBytes());
    set_one_input("main", index++, x);
  }
  vm.GetFunction("invoke")("main");
  std::vector<aotrt::NamedArray> expected = tvm_cpp_test::Npz(dir + "/expected" + suffix + ".npz");
  int num_outputs = vm.GetFunction("get_num_outputs")();
  Expect(num_outputs == static_cast<int>(expected.size()), dir + ": number of outputs");
  for (int i = 0; i < num_outputs && i < static_cast<int>(expected.size()); ++i) {
    tvm::runtime::NDArray out = vm.GetFunction("get_output")(i);
    Expect(tvm_cpp_test::SameBytes(*out.operator->(), expected[i].array), dir + suffix + ": output " + std::to_string(i));
    ++checks;
  }
}

static void Deploy(const std::string& dir) {
  std::ifstream in(dir + "/code.ro", std::ios::binary);
  std::string code((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  tvm::runtime::Module lib = tvm::runtime::Module::LoadFromFile(dir + "/lib.so");
  tvm::runtime::Module exec = tvm::runtime::vm::Executable::Load(code, lib);
  auto vm = tvm::runtime::make_object<tvm::runtime::vm::VirtualMachine>();
  vm->LoadExecutable(exec);
  vm->Init({DLDevice{kDLCPU, 0}}, {tvm::runtime::memory::AllocatorType::kPooled});
  tvm::runtime::PackedFunc invoke = vm->GetFunction("invoke", vm);
  Expect(invoke != nullptr, dir + ": the VM has invoke");
  tvm::runtime::Module mod(vm);
  RunSet(mod, dir, "");
  if (tvm_cpp_test::Exists(dir + "/inputs_b.npz")) RunSet(mod, dir, "_b");
}

int Main(const std::string& fixtures) {
  if (fixtures.empty() || !tvm_cpp_test::Exists(fixtures + "/v_add_split/code.ro")) {
    std::printf("skipped: the real TVM VM exports (%s) are absent\n", fixtures.c_str());
    return tvm_cpp_test::kSkip;
  }
  for (const char* name : {"v_add_split", "v_dyn_batch", "v_control"}) Deploy(fixtures + "/" + name);
  return tvm_cpp_test::Finish("deploy_vm", checks);
}

int main(int argc, char** argv) {
  try {
    return Main(argc > 1 ? argv[1] : "");
  } catch (const tvm::runtime::Error& e) {
    std::fprintf(stderr, "deploy_vm: %s\n", e.what());
    return 1;
  }
}
