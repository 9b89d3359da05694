// The Relay VM's steady state: once shapes repeat, a run (set_input + invoke through the VM module)
// allocates nothing on the heap; ../shared/fixtures/vm, skipped when absent.
#include <gtest/gtest.h>

#include <cstdio>

#include "aotrt/npy.h"
#include "aotrt/vm.h"
#include "common/alloc_counter.h"

using namespace aotrt;
using namespace aotrt_test;

TEST(VMAllocations, RepeatedShapesAllocateNothing) {
  if (!AllocHookActive()) GTEST_SKIP() << "malloc hook disabled under sanitizers";
  if (std::string(AOTRT_TEST_VM_FIXTURES_DIR).empty()) GTEST_SKIP() << "../shared/fixtures/vm not present";
  for (const char* name : {"v_add_split", "v_dyn_batch", "v_control"}) {
    std::string dir = std::string(AOTRT_TEST_VM_FIXTURES_DIR) + "/" + name;
    Module exe = LoadVMExecutable(dir + "/code.ro", dir + "/lib.so");
    Module vm = exe.GetFunctionOrThrow("vm_load_executable")().As<Module>();
    vm.GetFunctionOrThrow("init")(static_cast<int>(kDLCPU), 0, 2);
    std::vector<NamedArray> inputs = ReadNpz(dir + "/inputs.npz");
    PackedFunc set_one = vm.GetFunctionOrThrow("set_one_input");
    PackedFunc invoke = vm.GetFunctionOrThrow("invoke_stateful");
    auto run = [&] {
      for (size_t i = 0; i < inputs.size(); ++i) set_one("main", static_cast<int64_t>(i), inputs[i].array);
      invoke("main");
    };
    run();
    run();
    int64_t before = CurrentAllocStats().calls;
    for (int i = 0; i < 10; ++i) run();
    int64_t per_run = (CurrentAllocStats().calls - before) / 10;
    if (std::string(name) == "v_control") {
      // A loop by recursion whose last iteration returns a tuple: a new ADT each run.
      EXPECT_LE(per_run, 3) << name;
      std::printf("v_control: %lld allocations per run\n", static_cast<long long>(per_run));
    } else {
      EXPECT_EQ(per_run, 0) << name << ": a run allocated";
    }
  }
}
