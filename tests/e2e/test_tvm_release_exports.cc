// Exports of TVM releases other than v0.14 (README "Supported TVM releases"): v0.9/v0.10 `.tar`
// exports carry the blob in a C source, devc.c, instead of devc.o (tests/common/make_source_tars.py
// writes them in the text of TVM's PackImportsToC). They load and run bit-exact.
#include <gtest/gtest.h>

#include <cstdlib>
#include <fstream>
#include <string>

#include "common/expect_error.h"
#include "common/run_case.h"

using namespace aotrt;
using namespace aotrt_test;

namespace {
std::string DataFile(const std::string& name) { return std::string(AOTRT_TEST_DATA_DIR) + "/" + name; }

void ExpectRunsBitExact(const Case& c, const Model& m) {
  Executor ex = m.CreateExecutor();
  SetCaseInputs(c, ex);
  ex.Run();
  ExpectOutputsMatch(c, ex);
}
}  // namespace

TEST(TvmV09Exports, CTargetTarWithSourcesAndDevcC) {
  const std::string tar = DataFile("v09_add_c_sources.tar");  // lib0.c + devc.c, no object at all
  Case c = LoadCase(ModelsDir() + "/add_c.case", tar);
  Model m = Model::Load(tar);
  ExpectRunsBitExact(c, m);
  ExpectRunsBitExact(c, Model::FromModule(Module::LoadFromFile(tar, "tar")));
}

TEST(TvmV09Exports, RealSystemLibExportWithItsBlobAsDevcC) {
  if (FixturesDir().empty()) GTEST_SKIP() << "../shared/fixtures/tvm not present";
  const std::string tar = DataFile("v09_syslib_devc_c.tar");  // lib0.o + lib1.o + devc.c (C++ only)
  Case c = LoadCase(FixturesDir() + "/syslib_llvm", tar);
  ExpectRunsBitExact(c, Model::Load(tar));
}

TEST(TvmV09Exports, ASourceThatIsNeitherCNorCxxIsAnErrorNamingBothAttempts) {
  const std::string dir = ::testing::TempDir() + "/aotrt_bad_source";
  ASSERT_EQ(std::system(("mkdir -p " + dir).c_str()), 0);
  std::ofstream(dir + "/devc.c") << "this is not a program;\n";
  const std::string tar = dir + ".tar";
  ASSERT_EQ(std::system(("tar -cf " + tar + " -C " + dir + " devc.c").c_str()), 0);
  EXPECT_AOTRT_ERROR(Model::Load(tar), ErrorCode::kIOError, {"compiling", "devc.c", "as C", "as C++", "failed"});
}
