// A system-lib model linked into this executable registers itself at start-up.
#include <gtest/gtest.h>

#include <dlfcn.h>

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

TEST(SystemLib, MetadataIsFoundInTheExecutablesSymbolTable) {
  // As in TVM's exports, the generated system library does not register get_c_metadata, and this
  // test executable does not export its symbols: only its .symtab has it.
  EXPECT_EQ(::dlsym(RTLD_DEFAULT, "get_c_metadata"), nullptr);
  Case c = LoadCase(ModelsDir() + "/syslib.case", "");
  Executor ex = Model::FromModule(Module::SystemLib()).CreateExecutor();
  SetCaseInputs(c, ex);
  ex.Run();
  ExpectOutputsMatch(c, ex);
}

TEST(SystemLib, ObjectExportLoadedAsALibraryDoesNotRegisterIntoTheSystemLib) {
  // The real system-lib export registers `default`'s symbols from its constructors, like the
  // generated system library linked into this executable; loaded as a module, it must not replace them.
  if (FixturesDir().empty()) GTEST_SKIP() << "../shared/fixtures/tvm not present";
  std::string tar = std::string(AOTRT_TEST_FIXTURES_DIR) + "/syslib_llvm/model.tar";
  Model linked = Model::Load(tar);
  EXPECT_EQ(linked.Inputs().at(0).name, "x");
  Case c = LoadCase(ModelsDir() + "/syslib.case", "");
  Executor ex = Model::FromModule(Module::SystemLib()).CreateExecutor();
  SetCaseInputs(c, ex);
  ex.Run();
  ExpectOutputsMatch(c, ex);
}
