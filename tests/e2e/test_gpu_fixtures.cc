// Real TVM v0.14 GPU graph exports (../shared/fixtures/gpu): OpenCL (o_*) on an OpenCL device (pocl
// on the machines here) and Vulkan (k_*) on a Vulkan device (lavapipe): bit-exact with TVM's own
// GraphExecutor on the same device, through the C++ API; and the errors of a GPU export where its
// device is missing or misnamed, or its device module is damaged.
#include <gtest/gtest.h>

#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <functional>
#include <iterator>

#include "aotrt/profiling.h"
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
constexpr DLDevice kVulkan0{kDLVulkan, 0};

// Why `dev` cannot be tested here, or "" when it exists.
std::string NoDevice(DLDevice dev = kOpenCL0) {
  try {
    NDArray::Empty({1}, DLDataType{kDLFloat, 32, 1}, dev);
    return "";
  } catch (const Error& e) {
    return e.what();
  }
}
std::string NoOpenCL() { return NoDevice(kOpenCL0); }

#define OPENCL_CASE_OR_SKIP(var, case_name)                                      \
  Case var = GpuCase(case_name);                                                 \
  if (var.name.empty()) GTEST_SKIP() << "../shared/fixtures/gpu not present";    \
  if (std::string why = NoOpenCL(); !why.empty()) GTEST_SKIP() << why

#define VULKAN_CASE_OR_SKIP(var, case_name)                                      \
  Case var = GpuCase(case_name);                                                 \
  if (var.name.empty()) GTEST_SKIP() << "../shared/fixtures/gpu not present";    \
  if (std::string why = NoDevice(kVulkan0); !why.empty()) GTEST_SKIP() << why

// Runs `c` on `dev` and compares every output, read back to the host, bit for bit.
void ExpectRunsBitExactOnOpenCL(const Case& c, const Model& m, DLDevice dev = kOpenCL0) {
  Executor ex = m.CreateExecutor(dev);
  SetCaseInputs(c, ex);
  ex.Run();
  ASSERT_EQ(ex.NumOutputs(), c.expected.size()) << c.name;
  for (size_t i = 0; i < c.expected.size(); ++i) {
    NDArray got = ex.GetOutput(i);
    EXPECT_EQ(got->device.device_type, dev.device_type) << c.name;
    NDArray host = NDArray::Empty(got.Shape(), got.dtype());
    host.CopyFrom(got.tensor());
    EXPECT_TRUE(BytesEqual(host, c.expected[i])) << c.name << ": output " << i << " differs";
  }
}

// The per-node profile of `c` on `dev`: every node timed by the device, the nodes within the run, and
// the outputs still right after it.
void ExpectProfileTimesEveryNode(const Case& c, DLDevice dev) {
  Model m = Model::Load(c.library);
  Executor ex = m.CreateExecutor(dev);
  SetCaseInputs(c, ex);
  OperatorProfileOptions o;
  o.runs = 2;
  o.warmup = 1;
  OperatorProfile p = ProfileOperators(ex, o);
  ASSERT_GE(p.operators.size(), 1u) << c.name;
  double sum = 0;
  for (const OperatorCost& op : p.operators) {
    EXPECT_GT(op.mean_ms, 0) << c.name << ": " << op.name;
    sum += op.mean_ms;
  }
  EXPECT_LE(sum, p.run_ms) << c.name;
  NDArray host = NDArray::Empty(c.expected[0].Shape(), c.expected[0].dtype());
  host.CopyFrom(ex.GetOutput(0).tensor());
  EXPECT_TRUE(BytesEqual(host, c.expected[0])) << c.name;
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

// Also the program cache's timing: a program built from source is cached once its first launch has
// run (pocl makes the kernel's machine code at that launch and keeps the first binary it hands out),
// and one the graph never launches when the first run ends: MobileNet's batch_flatten kernel, whose
// node the graph skips (a reshape). The export's OpenCL module has 27 kernels.
TEST(OpenCLFixtures, MobileNetRunsBitExactTwiceAndItsProgramsAreCachedAfterTheirFirstLaunch) {
  OPENCL_CASE_OR_SKIP(c, "o_mobilenet");
  namespace fs = std::filesystem;
  fs::path dir = fs::temp_directory_path() / ("aotrt-launch-cache-" + std::to_string(::getpid()));
  fs::remove_all(dir);
  auto programs = [&] {
    auto it = fs::directory_iterator(dir);
    return std::count_if(fs::begin(it), fs::end(it), [](const auto& e) { return e.path().extension() == ".bin"; });
  };
  LoadOptions o;
  o.cache_dir = dir.string();
  {
    Model m = Model::Load(c.library, o);
    Executor first = m.CreateExecutor(kOpenCL0);
    EXPECT_EQ(programs(), 0) << "every program is built at create, none launched yet";
    SetCaseInputs(c, first);
    first.Run();
    EXPECT_EQ(programs(), 27) << "every kernel, the one never launched too, is cached by the first run's end";
    ExpectRunsBitExactOnOpenCL(c, m);  // a second executor: programs already built
  }
  ExpectRunsBitExactOnOpenCL(c, Model::Load(c.library, o));  // every program from the cache
  fs::remove_all(dir);
}

TEST(OpenCLFixtures, TheProfileTimesEachNodeByItsKernelsEvents) {
  OPENCL_CASE_OR_SKIP(c, "o_conv");
  ExpectProfileTimesEveryNode(c, kOpenCL0);
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

TEST(VulkanFixtures, EveryVulkanExportRunsBitExact) {
  VULKAN_CASE_OR_SKIP(add, "k_add");
  int ran = 0;
  for (const std::string& name : ListDir(GpuFixturesDir())) {
    if (name.rfind("k_", 0) != 0) continue;
    Case c = GpuCase(name);
    Model m = Model::Load(c.library);
    ExpectRunsBitExactOnOpenCL(c, m, kVulkan0);
    ExpectRunsBitExactOnOpenCL(c, m, kVulkan0);  // a second executor: pipelines already built
    ++ran;
  }
  EXPECT_GE(ran, 3);
}

TEST(VulkanFixtures, TheProfileTimesEachNodeByTimestamps) {
  VULKAN_CASE_OR_SKIP(c, "k_conv");
  ExpectProfileTimesEveryNode(c, kVulkan0);
}

TEST(VulkanFixtures, RunsRepeatedlyWithInputsFromAnyDevice) {
  VULKAN_CASE_OR_SKIP(c, "k_conv");
  Model m = Model::Load(c.library);
  Executor ex = m.CreateExecutor(kVulkan0);
  NDArray dev_in = NDArray::Empty(c.inputs[0].Shape(), c.inputs[0].dtype(), kVulkan0);
  dev_in.CopyFrom(c.inputs[0].tensor());
  ex.SetInput(0, dev_in.tensor());
  for (int i = 0; i < 3; ++i) ex.Run();  // recorded into one submit
  NDArray out = NDArray::Empty(c.expected[0].Shape(), c.expected[0].dtype());
  ex.CopyOutputTo(0, out.handle());
  EXPECT_TRUE(BytesEqual(out, c.expected[0]));
  ex.SetInput(0, c.inputs[0].tensor());  // from the host
  ex.Run();
  ex.Synchronize();
  ex.CopyOutputTo(0, out.handle());
  EXPECT_TRUE(BytesEqual(out, c.expected[0]));
}

TEST(VulkanFixtures, WrongDeviceErrorsSayWhereTheExportRuns) {
  VULKAN_CASE_OR_SKIP(c, "k_add");
  Model m = Model::Load(c.library);
  EXPECT_AOTRT_ERROR(m.CreateExecutor(), ErrorCode::kInvalidArgument,
                     {"was compiled for vulkan (device type 7): create it on vulkan", "got cpu"});
  EXPECT_AOTRT_ERROR(m.CreateExecutor(DLDevice{kDLVulkan, 7}), ErrorCode::kInvalidArgument,
                     {"vulkan device 7 does not exist", "this machine has"});
}

// Where the machine has no Vulkan device (ctest e2e_without_a_vulkan_device hides lavapipe), a
// Vulkan export loads, and creating its executor says what is missing and what to install.
TEST(VulkanFixtures, WithoutADeviceTheErrorSaysWhatToInstall) {
  Case c = GpuCase("k_add");
  if (c.name.empty()) GTEST_SKIP() << "../shared/fixtures/gpu not present";
  if (NoDevice(kVulkan0).empty()) GTEST_SKIP() << "this machine has a Vulkan device";
  Model m = Model::Load(c.library);
  EXPECT_AOTRT_ERROR(m.CreateExecutor(kVulkan0), ErrorCode::kInvalidArgument,
                     {"compiled for vulkan", "no vulkan device on this machine", "mesa-vulkan-drivers"});
}

// The pipeline cache: the first executor writes the module's VkPipelineCache into the cache
// directory; later loads start from it, and a damaged file is ignored with the same results.
TEST(VulkanFixtures, PipelineCacheIsWrittenAndADamagedOneIsIgnored) {
  VULKAN_CASE_OR_SKIP(c, "k_conv");
  namespace fs = std::filesystem;
  fs::path dir = fs::temp_directory_path() / ("aotrt-pipeline-cache-" + std::to_string(::getpid()));
  fs::remove_all(dir);
  LoadOptions o;
  o.cache_dir = (dir / "nested").string();
  ExpectRunsBitExactOnOpenCL(c, Model::Load(c.library, o), kVulkan0);
  std::vector<fs::path> bins;
  for (const auto& e : fs::directory_iterator(dir / "nested")) {
    if (e.path().filename().string().rfind("vulkan-", 0) == 0) bins.push_back(e.path());
  }
  ASSERT_EQ(bins.size(), 1u) << "no pipeline cache in " << dir;
  ExpectRunsBitExactOnOpenCL(c, Model::Load(c.library, o), kVulkan0);
  std::ofstream(bins[0], std::ios::binary | std::ios::trunc) << "not a pipeline cache";
  ExpectRunsBitExactOnOpenCL(c, Model::Load(c.library, o), kVulkan0);
  fs::remove_all(dir);
}

namespace {

// k_add's model.so with `edit` applied to the bytes of its vulkan module (from its type key on),
// written to a temporary file; returns the path.
std::string EditedVulkanExport(const std::string& tag, const std::function<void(std::string&, size_t)>& edit) {
  std::ifstream in(GpuCase("k_add").library, std::ios::binary);
  std::string bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  size_t at = bytes.find(std::string("\x06\0\0\0\0\0\0\0vulkan", 14));
  EXPECT_NE(at, std::string::npos);
  edit(bytes, at);
  std::string path = (std::filesystem::temp_directory_path() / ("aotrt-vk-" + tag + "-" + std::to_string(::getpid()) + ".so")).string();
  std::ofstream(path, std::ios::binary) << bytes;
  return path;
}

}  // namespace

TEST(VulkanFixtures, DamagedShaderMapsAreFormatErrors) {
  Case c = GpuCase("k_add");
  if (c.name.empty()) GTEST_SKIP() << "../shared/fixtures/gpu not present";
  const std::string magic("\x03\x02\x23\x07", 4);
  std::string path = EditedVulkanExport("magic", [&](std::string& b, size_t at) { b[b.find(magic, at)] = 0; });
  EXPECT_AOTRT_ERROR(Model::Load(path), ErrorCode::kFormatError, {"tvmgen_default_fused_add_kernel", "is not SPIR-V"});
  std::remove(path.c_str());
  path = EditedVulkanExport("length", [&](std::string& b, size_t at) { b[b.find(magic, at) + 4 * 5 + 3] = 0x7f; });
  EXPECT_AOTRT_ERROR(Model::Load(path), ErrorCode::kFormatError, {"tvmgen_default_fused_add_kernel", "is corrupt"});
  std::remove(path.c_str());
  // The shader map's entry renamed: the function map's kernel has no shader.
  path = EditedVulkanExport("noshader", [&](std::string& b, size_t at) {
    size_t name = b.rfind("fused_add_kernel", b.find(magic, at));
    b[name] = 'F';
  });
  EXPECT_AOTRT_ERROR(Model::Load(path), ErrorCode::kFormatError, {"kernel 'tvmgen_default_fused_add_kernel' has no shader"});
  std::remove(path.c_str());
}

// Both maps renamed: the host code asks for a kernel the module lacks, and the error names it.
TEST(VulkanFixtures, AKernelTheModuleLacksIsNamed) {
  VULKAN_CASE_OR_SKIP(c, "k_add");
  std::string path = EditedVulkanExport("nokernel", [&](std::string& b, size_t at) {
    for (size_t p = b.find("fused_add_kernel", at); p != std::string::npos; p = b.find("fused_add_kernel", p + 1)) {
      b[p] = 'F';
    }
  });
  EXPECT_AOTRT_ERROR(
      {
        Executor ex = Model::Load(path).CreateExecutor(kVulkan0);
        SetCaseInputs(c, ex);
        ex.Run();
        ex.Synchronize();
      },
      ErrorCode::kModelError, {"Cannot find function tvmgen_default_fused_add_kernel"});
  std::remove(path.c_str());
}

// Every byte of k_add's vulkan module up to its shader's first instructions, flipped: the load
// refuses it with an error or loads (a shader's words are the driver's to judge), never crashes.
TEST(VulkanFixtures, EveryFlippedByteOfTheModuleHeaderLoadsOrIsRefused) {
  Case c = GpuCase("k_add");
  if (c.name.empty()) GTEST_SKIP() << "../shared/fixtures/gpu not present";
  std::string plain = EditedVulkanExport("plain", [](std::string&, size_t) {});
  std::ifstream in(plain, std::ios::binary);
  std::string bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  std::remove(plain.c_str());
  size_t begin = bytes.find(std::string("\x06\0\0\0\0\0\0\0vulkan", 14)) + 14;
  size_t end = bytes.find(std::string("\x03\x02\x23\x07", 4), begin) + 4 * 8;
  int refused = 0;
  for (size_t i = begin; i < end; ++i) {
    std::string path = EditedVulkanExport("flip", [&](std::string& b, size_t) { b[i] = static_cast<char>(~b[i]); });
    try {
      Model::Load(path);
    } catch (const Error&) {
      ++refused;
    }
    std::remove(path.c_str());
  }
  EXPECT_GT(refused, 0);
}
