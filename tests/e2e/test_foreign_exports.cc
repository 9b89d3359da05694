// Exports made for one processor (../shared/fixtures/aarch64: AArch64; fixtures/tvm: x86-64). On the
// processor an export was made for, each aarch64 case runs through the C ABI alone to its expected
// outputs: bit for bit where case.json says "exact", else within rtol 1e-4 / atol 1e-5 (code made
// for another processor may contract and vectorise differently). On any other processor the load
// refuses it before dlopen, naming both. Synthetic headers (a generated model with e_machine
// changed) check the refusal of .so, .o and .tar files wherever the fixtures are absent.
#include <elf.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <fstream>
#include <iterator>
#include <tvm/runtime/c_runtime_api.h>

#include "aotrt/c_api.h"
#include "aotrt/error.h"
#include "aotrt/npy.h"
#include "common/cases.h"

using namespace aotrt_test;

namespace {

#if defined(__x86_64__)
constexpr uint16_t kHost = EM_X86_64;
#elif defined(__aarch64__)
constexpr uint16_t kHost = EM_AARCH64;
#else
constexpr uint16_t kHost = 0;  // neither: the fixtures are foreign, the synthetic cases are skipped
#endif

std::string Name(uint16_t m) {
  return m == EM_X86_64 ? "x86-64 (EM_X86_64)" : m == EM_AARCH64 ? "AArch64 (EM_AARCH64)" : "32-bit Arm (EM_ARM)";
}

std::string ReadFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(in), {});
}

uint16_t MachineOf(const std::string& path) {
  std::string b = ReadFile(path);
  return b.size() < 20 ? 0 : static_cast<uint16_t>(uint8_t(b[18]) | uint8_t(b[19]) << 8);
}

bool EndsWith(const std::string& s, const std::string& end) {
  return s.size() >= end.size() && s.compare(s.size() - end.size(), end.size(), end) == 0;
}

struct ArchCase {
  std::string dir, library;
  nlohmann::json meta;
};

// The cases under fixtures/<arch> whose artifact is one file (model.so or .tar; "factory": model.so).
std::vector<ArchCase> CasesOf(const std::string& arch) {
  std::vector<ArchCase> out;
  const std::string root = std::string(AOTRT_TEST_ALL_FIXTURES_DIR) + "/" + arch;
  for (const std::string& name : ListDir(root)) {
    ArchCase c{root + "/" + name, "", {}};
    std::ifstream in(c.dir + "/case.json");
    if (!in) continue;
    c.meta = nlohmann::json::parse(in);
    std::string artifact = c.meta.value("artifact", "model.so");
    c.library = c.dir + "/" + (artifact == "factory" ? "model.so" : artifact);
    const bool one_file = EndsWith(c.library, ".so") || EndsWith(c.library, ".tar");
    if (one_file && std::ifstream(c.library).good()) out.push_back(c);
  }
  return out;
}

// Loading `path` fails with kFormatError, the message naming the file (`named` first) and both processors.
void ExpectRefused(const std::string& path, const char* format, uint16_t built_for, const std::string& named) {
  void* mod = nullptr;
  ASSERT_EQ(TVMModLoadFromFile(path.c_str(), format, &mod), -1) << path;
  const std::string msg = TVMGetLastError();
  EXPECT_EQ(AOTRTGetLastErrorCode(), static_cast<int>(aotrt::ErrorCode::kFormatError)) << msg;
  EXPECT_EQ(msg.rfind(named, 0), 0u) << msg;
  EXPECT_NE(msg.find(" was built for " + Name(built_for) + "; this process runs on " + Name(kHost)), std::string::npos)
      << msg;
  EXPECT_EQ(msg.find("dlopen"), std::string::npos) << msg;
}

// mod[name](args...) through the C ABI; the result in *ret, *code. Returns TVMFuncCall's status.
int Call(void* mod, const char* name, std::vector<TVMValue> args, std::vector<int> codes, TVMValue* ret, int* code) {
  void* f = nullptr;
  if (TVMModGetFunction(mod, name, 0, &f) != 0 || f == nullptr) return -1;
  int rc = TVMFuncCall(f, args.data(), codes.data(), static_cast<int>(args.size()), ret, code);
  TVMFuncFree(f);
  return rc;
}

void ExpectClose(const DLTensor& got, const aotrt::NDArray& want, bool exact, const std::string& what) {
  ASSERT_EQ(std::vector<int64_t>(got.shape, got.shape + got.ndim), want.Shape()) << what;
  ASSERT_TRUE(aotrt::DataTypeEqual(got.dtype, want.dtype())) << what;
  if (exact || want.dtype().code != kDLFloat || want.dtype().bits != 32) {
    EXPECT_EQ(std::memcmp(got.data, want.data(), want.NumBytes()), 0) << what << " differs";
    return;
  }
  const auto* g = static_cast<const float*>(got.data);
  const auto* w = static_cast<const float*>(want.data());
  size_t bad = 0;
  for (size_t i = 0; i < want.NumBytes() / 4; ++i) bad += !(std::fabs(g[i] - w[i]) <= 1e-5f + 1e-4f * std::fabs(w[i]));
  EXPECT_EQ(bad, 0u) << what << ": elements outside rtol 1e-4 / atol 1e-5";
}

}  // namespace

// Each aarch64 export on an AArch64 host: load, "default"(dev), set_input, run, get_output.
class Aarch64Export : public ::testing::TestWithParam<std::string> {};

TEST_P(Aarch64Export, RunsThroughTheCAbiOnAarch64) {
  std::vector<ArchCase> cases = CasesOf("aarch64");
  const std::string folder = "/" + GetParam();
  auto it = std::find_if(cases.begin(), cases.end(), [&](const ArchCase& c) { return EndsWith(c.dir, folder); });
  if (it == cases.end()) GTEST_SKIP() << "../shared/fixtures/aarch64 not present";
  if (kHost != EM_AARCH64) GTEST_SKIP() << "not an AArch64 process (ExportsForAnotherProcessorAreRefused)";
  const ArchCase& c = *it;
  void* lib = nullptr;
  if (TVMModLoadFromFile(c.library.c_str(), "so", &lib) != 0) {
    std::string msg = TVMGetLastError();
    if (msg.find("{GraphExecutorFactory} but a loader") != std::string::npos) GTEST_SKIP() << "no graph executor";
    FAIL() << msg;
  }
  TVMValue dev, ret;
  dev.v_device = DLDevice{kDLCPU, 0};
  int code = 0;
  ASSERT_EQ(Call(lib, c.meta.value("mod_name", "default").c_str(), {dev}, {kDLDevice}, &ret, &code), 0)
      << TVMGetLastError();
  void* ex = ret.v_handle;
  for (aotrt::NamedArray& in : aotrt::ReadNpz(c.dir + "/inputs.npz")) {
    TVMValue a[2];
    a[0].v_str = in.name.c_str();
    a[1].v_handle = in.array.handle();
    ASSERT_EQ(Call(ex, "set_input", {a[0], a[1]}, {kTVMStr, kTVMDLTensorHandle}, &ret, &code), 0) << TVMGetLastError();
  }
  ASSERT_EQ(Call(ex, "run", {}, {}, &ret, &code), 0) << TVMGetLastError();
  std::vector<aotrt::NamedArray> expected = aotrt::ReadNpz(c.dir + "/expected.npz");
  for (size_t i = 0; i < expected.size(); ++i) {
    TVMValue index;
    index.v_int64 = static_cast<int64_t>(i);
    ASSERT_EQ(Call(ex, "get_output", {index}, {kTVMArgInt}, &ret, &code), 0) << TVMGetLastError();
    ASSERT_EQ(code, kTVMNDArrayHandle);
    ExpectClose(*static_cast<DLTensor*>(ret.v_handle), expected[i].array, c.meta.value("exact", false),
                "output " + std::to_string(i));
    TVMArrayFree(static_cast<DLTensor*>(ret.v_handle));
  }
  TVMModFree(ex);
  TVMModFree(lib);
}

// One test per shared aarch64 export (one placeholder, skipped, when there are none).
std::vector<std::string> Aarch64CaseNames() {
  std::vector<std::string> names;
  for (const ArchCase& c : CasesOf("aarch64")) names.push_back(c.dir.substr(c.dir.rfind('/') + 1));
  if (names.empty()) names.push_back("absent");
  return names;
}
INSTANTIATE_TEST_SUITE_P(ForeignExports, Aarch64Export, ::testing::ValuesIn(Aarch64CaseNames()),
                         [](const ::testing::TestParamInfo<std::string>& p) { return p.param; });

// Every real export made for another processor is refused by name, before dlopen.
TEST(ForeignExports, ExportsForAnotherProcessorAreRefusedNamingBoth) {
  size_t refused = 0;
  for (const char* arch : {"aarch64", "tvm"}) {
    for (const ArchCase& c : CasesOf(arch)) {
      const bool tar = EndsWith(c.library, ".tar");
      uint16_t m = tar ? EM_X86_64 : MachineOf(c.library);  // fixtures/tvm is x86-64 throughout
      if (m == kHost || kHost == 0) continue;
      SCOPED_TRACE(c.library);
      ExpectRefused(c.library, tar ? "tar" : "so", m, tar ? c.library + "'s " : c.library);  // "x.tar's lib0.o"
      ++refused;
    }
  }
  if (refused == 0) GTEST_SKIP() << "no fixture made for another processor than this one";
}

// A generated model with another processor's e_machine, as a .so, a .o and inside a .tar.
TEST(ForeignExports, SyntheticHeadersOfAnotherProcessorAreRefused) {
  if (kHost == 0) GTEST_SKIP() << "this processor has no counterpart here";
  const std::string model = ReadFile(ModelPath("add_c"));
  ASSERT_GT(model.size(), 20u);
  const std::string dir = ::testing::TempDir() + "aotrt_foreign_" + std::to_string(::getpid());
  ASSERT_EQ(std::system(("mkdir -p " + dir).c_str()), 0);
  for (uint16_t other : {uint16_t(kHost == EM_X86_64 ? EM_AARCH64 : EM_X86_64), uint16_t(EM_ARM)}) {
    std::string bytes = model;
    bytes[18] = static_cast<char>(other & 0xff);
    bytes[19] = static_cast<char>(other >> 8);
    if (other == EM_ARM) bytes[EI_CLASS] = ELFCLASS32;  // refused for its processor, not its class
    for (const char* name : {"model.so", "lib0.o"}) std::ofstream(dir + "/" + name, std::ios::binary) << bytes;
    ExpectRefused(dir + "/model.so", "so", other, dir + "/model.so");
    ExpectRefused(dir + "/lib0.o", "o", other, dir + "/lib0.o");
    ASSERT_EQ(std::system(("tar -cf " + dir + "/model.tar -C " + dir + " lib0.o").c_str()), 0);
    ExpectRefused(dir + "/model.tar", "tar", other, dir + "/model.tar's lib0.o");
  }
  std::system(("rm -rf " + dir).c_str());
}
