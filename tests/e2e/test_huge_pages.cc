// ExecutorOptions::Heap::huge_pages and AOTRT_HUGE_PAGES=1 (issue 15): an executor's buffers of 2 MiB
// and more are advised MADV_HUGEPAGE (the kernel's VmFlags then show "hg" for their mapping),
// smaller ones and executors without the option are left alone, and outputs stay bit-exact.
#include <gtest/gtest.h>

#include <cstdint>
#include <cstdio>
#include <fstream>
#include <string>

#include "common/expect_error.h"
#include "common/run_case.h"
#include "common/scoped_env.h"

using namespace aotrt;
using namespace aotrt_test;

namespace {

// Whether the mapping containing `p` has VM_HUGEPAGE set (/proc/self/smaps VmFlags "hg").
bool AdvisedHuge(const void* p) {
  std::ifstream smaps("/proc/self/smaps");
  auto addr = reinterpret_cast<uintptr_t>(p);
  bool inside = false;
  std::string line;
  while (std::getline(smaps, line)) {
    unsigned long lo = 0, hi = 0;
    if (std::sscanf(line.c_str(), "%lx-%lx ", &lo, &hi) == 2 && line.find(':') > line.find(' ')) {
      inside = addr >= lo && addr < hi;
    } else if (inside && line.rfind("VmFlags:", 0) == 0) {
      return line.find(" hg") != std::string::npos;
    }
  }
  return false;
}

bool KernelHasThp() { return std::ifstream("/sys/kernel/mm/transparent_hugepage/enabled").good(); }

ExecutorOptions HugePages() {
  ExecutorOptions o;
  o.memory = ExecutorOptions::Heap{/*check_bounds=*/false, /*huge_pages=*/true};
  return o;
}

}  // namespace

TEST(HugePages, OptionAdvisesTheLargeBuffersAndOutputsStayBitExact) {
  if (!KernelHasThp()) GTEST_SKIP() << "kernel without transparent huge pages";
  Case c = GeneratedCase("relu_4mib");  // 4 MiB input and output
  Model m = Model::Load(c.library);
  Executor plain = m.CreateExecutor();
  Executor huge = m.CreateExecutor(DLDevice{kDLCPU, 0}, HugePages());
  EXPECT_FALSE(AdvisedHuge(plain.GetOutput(0).data()));
  EXPECT_FALSE(AdvisedHuge(plain.GetInput(0).data()));
  EXPECT_TRUE(AdvisedHuge(huge.GetOutput(0).data()));
  EXPECT_TRUE(AdvisedHuge(huge.GetInput(0).data()));
  SetCaseInputs(c, huge);
  huge.Run();
  ExpectOutputsMatch(c, huge);
}

TEST(HugePages, SmallBuffersAreLeftAlone) {
  if (!KernelHasThp()) GTEST_SKIP() << "kernel without transparent huge pages";
  Case c = GeneratedCase("usmp_both_c");  // buffers of a few hundred bytes
  Executor ex = Model::Load(c.library).CreateExecutor(DLDevice{kDLCPU, 0}, HugePages());
  EXPECT_FALSE(AdvisedHuge(ex.GetOutput(0).data()));
  SetCaseInputs(c, ex);
  ex.Run();
  ExpectOutputsMatch(c, ex);
}

// The environment is read when the model is loaded; every executor of that model follows it.
TEST(HugePages, EnvironmentTurnsItOnForEveryExecutorAndRejectsOtherValues) {
  Case c = GeneratedCase("relu_4mib");
  {
    ScopedEnv env("AOTRT_HUGE_PAGES", "1");
    Model m = Model::Load(c.library);
    Executor ex = m.CreateExecutor();
    if (KernelHasThp()) EXPECT_TRUE(AdvisedHuge(ex.GetOutput(0).data()));
  }
  {
    ScopedEnv env("AOTRT_HUGE_PAGES", "0");
    EXPECT_FALSE(AdvisedHuge(Model::Load(c.library).CreateExecutor().GetOutput(0).data()));
  }
  LoadOptions on;
  on.executor.huge_pages = true;  // the load's own option, without the environment
  if (KernelHasThp()) EXPECT_TRUE(AdvisedHuge(Model::Load(c.library, on).CreateExecutor().GetOutput(0).data()));
  ScopedEnv env("AOTRT_HUGE_PAGES", "sometimes");
  EXPECT_AOTRT_ERROR(Model::Load(c.library), ErrorCode::kInvalidArgument, {"AOTRT_HUGE_PAGES='sometimes'", "expected 0 or 1"});
}

TEST(HugePages, AParamInputsOwnStorageMadeAtItsFirstSetInputIsAdvisedToo) {
  if (!KernelHasThp()) GTEST_SKIP() << "kernel without transparent huge pages";
  Case c = GeneratedCase("big_params");  // 'weight': a 16 MiB factory param, shared until set_input
  Executor ex = Model::Load(c.library).CreateExecutor(DLDevice{kDLCPU, 0}, HugePages());
  size_t w = ex.InputIndex("weight");
  NDArray zeros = NDArray::Empty({1024, 4096}, DLDataType{kDLFloat, 32, 1});
  ex.SetInput(w, zeros.tensor());
  EXPECT_TRUE(AdvisedHuge(ex.GetInput(w).data()));
}
