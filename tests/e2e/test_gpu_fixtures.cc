// Real TVM v0.14 OpenCL graph exports (../shared/fixtures/gpu, o_*) on an OpenCL device (pocl on the
// machines here): bit-exact with TVM's own GraphExecutor on the same device, through the C++ API;
// and the errors of a GPU export where its device is missing or misnamed.
#include <gtest/gtest.h>

#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>

#include "common/expect_error.h"
#include "common/run_case.h"

using namespace aotrt;
using namespace aotrt_test;

namespace {

std::string GpuFixturesDir() { return AOTRT_TEST_GPU_FIXTURES_NPY_DIR; }

Case GpuCase(const std::string& name) {
  if (GpuFixturesDir().empty()) return Case();
  std::string dir = GpuFixturesDir() + "/" + name;
  std::ifstream in(dir + "/case.json");
  if (!in) return Case();
  return LoadCase(dir, nlohmann::json::parse(in).at("artifact").get<std::string>());
}

constexpr DLDevice kOpenCL0{kDLOpenCL, 0};

// Why OpenCL cannot be tested here, or "" when device 0 exists.
std::string NoOpenCL() {
  try {
    NDArray::Empty({1}, DLDataType{kDLFloat, 32, 1}, kOpenCL0);
    return "";
  } catch (const Error& e) {
    return e.what();
  }
}

#define OPENCL_CASE_OR_SKIP(var, case_name)                                      \
  Case var = GpuCase(case_name);                                                 \
  if (var.name.empty()) GTEST_SKIP() << "../shared/fixtures/gpu not present";    \
  if (std::string why = NoOpenCL(); !why.empty()) GTEST_SKIP() << why

// Runs `c` on OpenCL device 0 and compares every output, read back to the host, bit for bit.
void ExpectRunsBitExactOnOpenCL(const Case& c, const Model& m) {
  Executor ex = m.CreateExecutor(kOpenCL0);
  SetCaseInputs(c, ex);
  ex.Run();
  ASSERT_EQ(ex.NumOutputs(), c.expected.size()) << c.name;
  for (size_t i = 0; i < c.expected.size(); ++i) {
    NDArray got = ex.GetOutput(i);
    EXPECT_EQ(got->device.device_type, kDLOpenCL) << c.name;
    NDArray host = NDArray::Empty(got.Shape(), got.dtype());
    host.CopyFrom(got.tensor());
    EXPECT_TRUE(BytesEqual(host, c.expected[i])) << c.name << ": output " << i << " differs";
  }
}

}  // namespace

TEST(OpenCLFixtures, EveryOpenCLExportRunsBitExact) {
  OPENCL_CASE_OR_SKIP(add, "o_add");
  int ran = 0;
  for (const std::string& name : ListDir(GpuFixturesDir())) {
    if (name.rfind("o_", 0) != 0 || name == "o_mobilenet") continue;  // MobileNet: its own test
    Case c = GpuCase(name);
    Model m = Model::Load(c.library);
    ExpectRunsBitExactOnOpenCL(c, m);
    ++ran;
  }
  EXPECT_GE(ran, 3);
}

TEST(OpenCLFixtures, MobileNetRunsBitExactTwice) {
  OPENCL_CASE_OR_SKIP(c, "o_mobilenet");
  Model m = Model::Load(c.library);
  ExpectRunsBitExactOnOpenCL(c, m);
  ExpectRunsBitExactOnOpenCL(c, m);  // a second executor: programs already built
}

TEST(OpenCLFixtures, OutputsCopyToTheHostAndInputsFromAnyDevice) {
  OPENCL_CASE_OR_SKIP(c, "o_conv");
  Model m = Model::Load(c.library);
  Executor ex = m.CreateExecutor(kOpenCL0);
  // The input given as an OpenCL array.
  NDArray dev_in = NDArray::Empty(c.inputs[0].Shape(), c.inputs[0].dtype(), kOpenCL0);
  dev_in.CopyFrom(c.inputs[0].tensor());
  ex.SetInput(0, dev_in.tensor());
  ex.Run();
  NDArray out = NDArray::Empty(c.expected[0].Shape(), c.expected[0].dtype());
  ex.CopyOutputTo(0, out.handle());
  EXPECT_TRUE(BytesEqual(out, c.expected[0]));
}

TEST(OpenCLFixtures, WrongDeviceErrorsSayWhereTheExportRuns) {
  OPENCL_CASE_OR_SKIP(c, "o_add");
  Model m = Model::Load(c.library);
  EXPECT_AOTRT_ERROR(m.CreateExecutor(), ErrorCode::kInvalidArgument,
                     {"was compiled for opencl (device type 4): create it on opencl", "got cpu"});
  EXPECT_AOTRT_ERROR(m.CreateExecutor(DLDevice{kDLOpenCL, 7}), ErrorCode::kInvalidArgument, {"opencl device 7 does not exist", "this machine has"});
}

// Where the machine has no OpenCL platform (ctest e2e_without_an_opencl_platform hides it), an
// OpenCL export loads, and creating its executor says what is missing and what to install.
TEST(OpenCLFixtures, WithoutAPlatformTheErrorSaysWhatToInstall) {
  Case c = GpuCase("o_add");
  if (c.name.empty()) GTEST_SKIP() << "../shared/fixtures/gpu not present";
  if (NoOpenCL().empty()) GTEST_SKIP() << "this machine has an OpenCL device";
  Model m = Model::Load(c.library);
  EXPECT_AOTRT_ERROR(m.CreateExecutor(kOpenCL0), ErrorCode::kInvalidArgument,
                     {"compiled for opencl", "no opencl device on this machine", "pocl-opencl-icd"});
}

// The program cache: the first executor writes each kernel's program binary into the cache
// directory; a later load builds from those binaries, and a damaged one is rebuilt from source with
// the same results.
TEST(OpenCLFixtures, ProgramBinariesAreCachedAndADamagedOneIsRebuilt) {
  OPENCL_CASE_OR_SKIP(c, "o_conv");
  namespace fs = std::filesystem;
  fs::path dir = fs::temp_directory_path() / ("aotrt-program-cache-" + std::to_string(::getpid()));
  fs::remove_all(dir);
  LoadOptions o;
  o.cache_dir = (dir / "nested").string();  // made when missing
  ExpectRunsBitExactOnOpenCL(c, Model::Load(c.library, o));
  std::vector<fs::path> bins;
  for (const auto& e : fs::directory_iterator(dir / "nested")) {
    if (e.path().extension() == ".bin") bins.push_back(e.path());
  }
  ASSERT_FALSE(bins.empty()) << "no program binary in " << dir;
  ExpectRunsBitExactOnOpenCL(c, Model::Load(c.library, o));  // from the binaries
  for (const fs::path& b : bins) std::ofstream(b, std::ios::binary | std::ios::trunc) << "not a program";
  ExpectRunsBitExactOnOpenCL(c, Model::Load(c.library, o));  // damaged: built from source again
  fs::remove_all(dir);
}
