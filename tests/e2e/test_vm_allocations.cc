// The Relay VM's steady state: once shapes repeat, a run (set_input + invoke through the VM module)
// allocates nothing on the heap, every CPU fixture of ../shared/fixtures/vm and both its input sets
// in turn; skipped when absent.
#include <gtest/gtest.h>

#include <cstdio>
#include <fstream>

#include "aotrt/model.h"
#include "aotrt/npy.h"
#include "aotrt/vm.h"
#include "common/alloc_counter.h"

using namespace aotrt;
using namespace aotrt_test;

TEST(VMAllocations, RepeatedShapesAllocateNothing) {
  if (!AllocHookActive()) GTEST_SKIP() << "malloc hook disabled under sanitizers";
  if (std::string(AOTRT_TEST_VM_FIXTURES_DIR).empty()) GTEST_SKIP() << "../shared/fixtures/vm not present";
  for (const char* name : {"v_add_split", "v_add_exported", "v_dyn_batch", "v_control"}) {
    std::string dir = std::string(AOTRT_TEST_VM_FIXTURES_DIR) + "/" + name;
    Module exe = std::ifstream(dir + "/vm.so") ? Module::LoadFromFile(dir + "/vm.so")
                                               : LoadVMExecutable(dir + "/code.ro", dir + "/lib.so");
    Module vm = exe.GetFunctionOrThrow("vm_load_executable")().As<Module>();
    vm.GetFunctionOrThrow("init")(static_cast<int>(kDLCPU), 0, 2);
    std::vector<std::vector<NamedArray>> sets{ReadNpz(dir + "/inputs.npz")};
    if (std::ifstream(dir + "/inputs_b.npz")) sets.push_back(ReadNpz(dir + "/inputs_b.npz"));
    PackedFunc set_one = vm.GetFunctionOrThrow("set_one_input");
    PackedFunc invoke = vm.GetFunctionOrThrow("invoke_stateful");
    auto run = [&](int i) {
      const std::vector<NamedArray>& inputs = sets[i % sets.size()];
      for (size_t k = 0; k < inputs.size(); ++k) set_one("main", static_cast<int64_t>(k), inputs[k].array);
      invoke("main");
    };
    for (int i = 0; i < 4; ++i) run(i);
    int64_t before = CurrentAllocStats().calls;
    for (int i = 0; i < 20; ++i) run(i);
    int64_t per_run = (CurrentAllocStats().calls - before) / 20;
    std::printf("%s: %lld allocations per run\n", name, static_cast<long long>(per_run));
    EXPECT_EQ(CurrentAllocStats().calls - before, 0) << name << ": runs allocated";
  }
}

// The same through aotrt::Model / Executor (SetInput copies into the executor's tensors, Run, the
// outputs' TensorInfo updated in place).
TEST(VMAllocations, ExecutorRunsAllocateNothingOnceShapesRepeat) {
  if (!AllocHookActive()) GTEST_SKIP() << "malloc hook disabled under sanitizers";
  if (std::string(AOTRT_TEST_VM_FIXTURES_DIR).empty()) GTEST_SKIP() << "../shared/fixtures/vm not present";
  for (const char* name : {"v_add_exported", "v_dyn_batch", "v_control"}) {
    std::string dir = std::string(AOTRT_TEST_VM_FIXTURES_DIR) + "/" + name;
    Model model = std::ifstream(dir + "/vm.so") ? Model::Load(dir + "/vm.so") : Model::Load(dir);
    Executor ex = model.CreateExecutor();
    std::vector<NamedArray> inputs = ReadNpz(dir + "/inputs.npz");
    auto run = [&] {
      for (size_t k = 0; k < inputs.size(); ++k) ex.SetInput(k, inputs[k].array.tensor());
      ex.Run();
    };
    for (int i = 0; i < 3; ++i) run();
    int64_t before = CurrentAllocStats().calls;
    for (int i = 0; i < 20; ++i) run();
    EXPECT_EQ(CurrentAllocStats().calls - before, 0) << name << ": runs allocated";
  }
}
