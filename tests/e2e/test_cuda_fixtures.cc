// Real TVM v0.14 CUDA graph exports (../shared/fixtures/gpu, u_*: PTX from LLVM's NVPTX back end). On a
// CUDA GPU (scripts/gpu-check.sh) they run close to TVM's CPU build (rtol/atol of case.json); anywhere
// they load, and without the NVIDIA driver an executor on CUDA says what to install; a damaged or
// unknown cuda module in the blob is refused at load.
#include <gtest/gtest.h>
#include <unistd.h>

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "common/expect_error.h"
#include "common/run_case.h"

using namespace aotrt;
using namespace aotrt_test;

namespace {

constexpr DLDevice kCuda0{kDLCUDA, 0};

// The converted cases; scripts/gpu-check.sh names its own on the GPU machine.
std::string NpyDir() {
  const char* dir = std::getenv("AOTRT_TEST_GPU_FIXTURES_NPY_DIR");
  return dir && *dir ? dir : AOTRT_TEST_GPU_FIXTURES_NPY_DIR;
}

nlohmann::json CaseJson(const std::string& name) {
  std::ifstream in(NpyDir() + "/" + name + "/case.json");
  return in ? nlohmann::json::parse(in) : nlohmann::json();
}

Case CudaCase(const std::string& name) {
  nlohmann::json j = CaseJson(name);
  if (j.is_null()) return Case();
  return LoadCase(NpyDir() + "/" + name, j.at("artifact").get<std::string>());
}

// Why CUDA cannot be tested here, or "" when device 0 exists.
std::string NoCuda() {
  try {
    NDArray::Empty({1}, DLDataType{kDLFloat, 32, 1}, kCuda0);
    return "";
  } catch (const Error& e) {
    return e.what();
  }
}

#define CUDA_CASE_OR_SKIP(var, case_name)                                                 \
  Case var = CudaCase(case_name);                                                         \
  if (var.name.empty()) GTEST_SKIP() << "../shared/fixtures/gpu not present";             \
  if (std::string why = NoCuda(); !why.empty()) GTEST_SKIP() << "no CUDA device: " << why

// The largest |got - want| - (atol + rtol |want|) over float32 outputs; <= 0 passes.
double Excess(const NDArray& got, const NDArray& want, double rtol, double atol, double* max_abs) {
  const auto* g = static_cast<const float*>(got.data());
  const auto* w = static_cast<const float*>(want.data());
  double worst = -1e30;
  for (size_t i = 0; i < want.NumBytes() / 4; ++i) {
    double d = std::fabs(double(g[i]) - double(w[i]));
    *max_abs = std::max(*max_abs, d);
    worst = std::max(worst, std::isnan(g[i]) ? 1e30 : d - (atol + rtol * std::fabs(double(w[i]))));
  }
  return worst;
}

// Runs `c` on CUDA device 0 and compares every output, read back to the host, within the case's tolerances.
void ExpectRunsCloseOnCuda(const Case& c, const Model& m) {
  nlohmann::json j = CaseJson(c.name);
  double rtol = j.value("rtol", 1e-4), atol = j.value("atol", 1e-4);
  Executor ex = m.CreateExecutor(kCuda0);
  SetCaseInputs(c, ex);
  ex.Run();
  ex.Synchronize();
  ASSERT_EQ(ex.NumOutputs(), c.expected.size()) << c.name;
  for (size_t i = 0; i < c.expected.size(); ++i) {
    NDArray got = ex.GetOutput(i);
    EXPECT_EQ(got->device.device_type, kDLCUDA) << c.name;
    NDArray host = NDArray::Empty(got.Shape(), got.dtype());
    host.CopyFrom(got.tensor());
    double max_abs = 0;
    EXPECT_LE(Excess(host, c.expected[i], rtol, atol, &max_abs), 0.0) << c.name << ": output " << i << " differs";
    std::printf("[ figures  ] %s output %zu: max |cuda - reference| = %.3g (rtol %g, atol %g)\n", c.name.c_str(), i,
                max_abs, rtol, atol);
  }
}

// The bytes of `path` with `from` replaced by `to` (same length) at its first place after `after`.
std::string Patched(const std::string& path, const std::string& after, const std::string& from, const std::string& to) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream s;
  s << in.rdbuf();
  std::string bytes = s.str();
  size_t at = bytes.find(from, bytes.find(after));
  EXPECT_NE(at, std::string::npos) << from;
  if (at != std::string::npos) bytes.replace(at, from.size(), to);
  return bytes;
}

}  // namespace

TEST(CUDAFixtures, EveryCudaExportRunsCloseToTheReference) {
  CUDA_CASE_OR_SKIP(add, "u_add");
  int ran = 0;
  for (const std::string& name : ListDir(NpyDir())) {
    if (name.rfind("u_", 0) != 0) continue;
    Case c = CudaCase(name);
    Model m = Model::Load(c.library);
    ExpectRunsCloseOnCuda(c, m);
    ExpectRunsCloseOnCuda(c, m);  // a second executor: the module already loaded
    ++ran;
  }
  EXPECT_GE(ran, 2);
}

TEST(CUDAFixtures, InputsFromADeviceArrayOutputsToTheHost) {
  CUDA_CASE_OR_SKIP(c, "u_conv");
  Model m = Model::Load(c.library);
  Executor ex = m.CreateExecutor(kCuda0);
  NDArray dev_in = NDArray::Empty(c.inputs[0].Shape(), c.inputs[0].dtype(), kCuda0);
  dev_in.CopyFrom(c.inputs[0].tensor());
  ex.SetInput(0, dev_in.tensor());
  ex.Run();
  NDArray out = NDArray::Empty(c.expected[0].Shape(), c.expected[0].dtype());
  ex.CopyOutputTo(0, out.handle());
  double max_abs = 0;
  EXPECT_LE(Excess(out, c.expected[0], 1e-4, 1e-4, &max_abs), 0.0);
  EXPECT_AOTRT_ERROR(m.CreateExecutor(DLDevice{kDLCUDA, 64}), ErrorCode::kInvalidArgument, {"cuda device 64 does not exist"});
}

// Where the machine has no NVIDIA driver (libcuda.so.1), a CUDA export loads, and creating its executor
// says what is missing and what to install.
TEST(CUDAFixtures, WithoutTheDriverTheErrorSaysWhatToInstall) {
  Case c = CudaCase("u_add");
  if (c.name.empty()) GTEST_SKIP() << "../shared/fixtures/gpu not present";
  if (NoCuda().empty()) GTEST_SKIP() << "this machine has a CUDA device";
  Model m = Model::Load(c.library);
  EXPECT_AOTRT_ERROR(m.CreateExecutor(), ErrorCode::kInvalidArgument,
                     {"was compiled for cuda (device type 2): create it on cuda (e.g. tvm.cuda(0), --device cuda)"});
  EXPECT_AOTRT_ERROR(m.CreateExecutor(kCuda0), ErrorCode::kInvalidArgument,
                     {"compiled for cuda", "no cuda device on this machine", "install the NVIDIA driver (libcuda.so.1"});
  void* p = nullptr;
  EXPECT_EQ(TVMDeviceAllocDataSpace(kCuda0, 16, 64, DLDataType{kDLFloat, 32, 1}, &p), -1);
  EXPECT_NE(std::string(TVMGetLastError()).find("install the NVIDIA driver"), std::string::npos) << TVMGetLastError();
}

// A cuda module of an unknown format, a corrupt function map, an argument type TVM cannot pass and an
// unknown launch tag are refused when the file loads, naming what is wrong.
TEST(CUDAFixtures, DamagedOrUnknownCudaModulesAreRefusedAtLoad) {
  Case c = CudaCase("u_add");
  if (c.name.empty()) GTEST_SKIP() << "../shared/fixtures/gpu not present";
  auto load = [](const std::string& bytes) {
    std::string path = (std::filesystem::temp_directory_path() / ("aotrt-bad-cuda-" + std::to_string(::getpid()) + ".so")).string();
    std::ofstream(path, std::ios::binary) << bytes;
    struct Remove { std::string p; ~Remove() { std::remove(p.c_str()); } } remove{path};
    Model::Load(path);
  };
  const std::string key("\x04\0\0\0\0\0\0\0cuda", 12);
  EXPECT_AOTRT_ERROR(load(Patched(c.library, key, "ptx", "xyz")), ErrorCode::kNotImplemented,
                     {"CUDA module of format 'xyz': aotrt loads 'ptx', 'cubin' or 'fatbin' code"});
  // The function map's count (after the format) claims 2^56 kernels.
  EXPECT_AOTRT_ERROR(load(Patched(c.library, key, std::string("ptx\x01\0\0\0\0\0\0\0", 11), std::string("ptx\x01\0\0\0\0\0\0\x01", 11))),
                     ErrorCode::kFormatError, {"function map size"});
  // The first argument, a handle (code 3, 64 bits), turned into a float16 (code 2, 16 bits).
  EXPECT_AOTRT_ERROR(load(Patched(c.library, key, std::string("\x03\x40\x01\0", 4), std::string("\x02\x10\x01\0", 4))),
                     ErrorCode::kNotImplemented, {"CUDA kernel 'tvmgen_default_fused_add_kernel' takes a float16"});
  EXPECT_AOTRT_ERROR(load(Patched(c.library, key, "blockIdx.x", "blockIdy.x")), ErrorCode::kFormatError,
                     {"unknown launch tag 'blockIdy.x'"});
}
