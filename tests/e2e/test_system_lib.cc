// A system-lib model linked into this executable registers itself at start-up.
#include <gtest/gtest.h>

#include "common/run_case.h"

using namespace aotrt;
using namespace aotrt_test;

TEST(SystemLib, RunsThroughRuntimeSystemLib) {
  Case c = LoadCase(ModelsDir() + "/syslib.case", "");
  Module lib = Module::SystemLib();
  EXPECT_EQ(lib.type_key(), "AotExecutorFactory");
  Model m = Model::FromModule(lib);
  Executor ex = m.CreateExecutor();
  SetCaseInputs(c, ex);
  ex.Run();
  ExpectOutputsMatch(c, ex);
  // The same module tree is returned for the same prefix.
  EXPECT_EQ(Module::SystemLib().node(), lib.node());
  PackedFunc f = GetGlobalFunction("runtime.SystemLib");
  ASSERT_TRUE(static_cast<bool>(f));
}
