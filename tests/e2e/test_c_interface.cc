// Real TVM v0.14 C-interface exports (Model Library Format archives, ../shared/fixtures/mlf):
// loaded, compiled and run bit-exact through the C++ API and the C ABI, in every archive form.
#include <gtest/gtest.h>

#include <cstdlib>

#include <fstream>
#include <iterator>
#include <thread>

#include "aotrt/c_api.h"
#include "aotrt/profiling.h"
#include "common/expect_error.h"
#include "common/mlf_cases.h"
#include "common/run_case.h"
#include "tvm/runtime/c_runtime_api.h"

using namespace aotrt;
using namespace aotrt_test;

namespace {

void ExpectRunsBitExact(const Case& c, const Model& m) {
  Executor ex = m.CreateExecutor();
  SetCaseInputs(c, ex);
  ex.Run();
  ExpectOutputBytesMatch(c, ex);
}

TEST(CInterface, ConvUsmpLoadsWithNamesShapesAndPools) {
  Case c = MlfCase("mlf_conv_usmp");
  AOTRT_SKIP_WITHOUT_MLF(c);
  ScratchDir d;
  Model m = Model::Load(c.library, CacheIn(d));
  EXPECT_EQ(m.Info().interface, "c");
  EXPECT_EQ(m.name(), "default");
  ASSERT_EQ(m.Inputs().size(), 1u);
  EXPECT_EQ(m.Inputs()[0].name, "x");
  EXPECT_EQ(m.Inputs()[0].shape, (std::vector<int64_t>{1, 4, 16, 16}));  // from src/default.relay
  EXPECT_TRUE(m.Inputs()[0].shape_known);
  ASSERT_EQ(m.Outputs().size(), 2u);
  EXPECT_EQ(m.Outputs()[0].name, "output0");
  EXPECT_EQ(m.Outputs()[1].name, "output1");
  EXPECT_EQ(m.Outputs()[1].bytes, 4u);  // the scalar sum
  EXPECT_FALSE(m.Outputs()[1].shape_known);  // the relay states no return type
  ASSERT_EQ(m.Info().workspace_pools.size(), 1u);
  EXPECT_EQ(m.Info().workspace_pools[0].name, "global_workspace");
  EXPECT_EQ(m.WorkspaceBytes(), 9536u);
  ExpectRunsBitExact(c, m);
}

// The operator profile (issue 27) names a C-interface archive's operators from its compiled library.
TEST(CInterface, OperatorProfileNamesTheArchivesOperators) {
  Case c = MlfCase("mlf_conv_usmp");
  AOTRT_SKIP_WITHOUT_MLF(c);
  Executor ex = Model::Load(c.library).CreateExecutor();
  SetCaseInputs(c, ex);
  OperatorProfileOptions opt;
  opt.runs = 2000;
  opt.period_us = 200;
  OperatorProfile p = ProfileOperators(ex, opt);
  // Sanitizer builds defer and slow signals: a handful of samples may be all there is.
  if (p.samples == 0) GTEST_SKIP() << "no sample taken in 2,000 runs (sanitized build?)";
  ASSERT_FALSE(p.operators.empty()) << p.ToTable();
  bool conv = false;
  double total = p.outside.percent;
  for (const OperatorCost& op : p.operators) {
    EXPECT_EQ(op.name.find("tvmgen_default_"), std::string::npos) << op.name;  // prefix stripped
    conv = conv || op.name.find("conv2d") != std::string::npos;
    total += op.percent;
  }
  EXPECT_TRUE(conv) << p.ToTable();
  EXPECT_NEAR(total, 100.0, 0.01);
}

TEST(CInterface, UserPoolArchiveGetsItsAppPoolPerExecutor) {
  Case c = MlfCase("mlf_user_pool");
  AOTRT_SKIP_WITHOUT_MLF(c);
  ScratchDir d;
  Model m = Model::Load(c.library, CacheIn(d));
  ASSERT_EQ(m.Info().workspace_pools.size(), 1u);
  EXPECT_EQ(m.Info().workspace_pools[0].name, "app_pool");
  EXPECT_EQ(m.Info().workspace_pools[0].bytes, 9536u);
  EXPECT_EQ(m.Outputs()[0].name, "output");
  ExpectRunsBitExact(c, m);
}

TEST(CInterface, SecondLoadCompilesNothing) {
  Case c = MlfCase("mlf_conv_usmp");
  AOTRT_SKIP_WITHOUT_MLF(c);
  ScratchDir d;
  EXPECT_EQ(Model::Load(c.library, CacheIn(d)).Info().c_origin, "compiled into the compile cache");
  Model again = Model::Load(c.library, CacheIn(d));
  EXPECT_EQ(again.Info().c_origin, "compile cache");
  ExpectRunsBitExact(c, again);
  LoadOptions off = CacheIn(d);
  off.compile_cache = false;
  EXPECT_EQ(Model::Load(c.library, off).Info().c_origin, "compiled (no cache)");
}

TEST(CInterface, CompressedArchivesAndFoldersLoadAlike) {
  Case c = MlfCase("mlf_user_pool");
  AOTRT_SKIP_WITHOUT_MLF(c);
  ScratchDir d;
  std::string dir = d.path() + "/unpacked";
  ASSERT_EQ(ScratchDir::Sh("mkdir -p " + dir + " && tar -xf " + c.library + " -C " + dir), 0);
  ASSERT_EQ(ScratchDir::Sh("cd " + dir + " && tar -czf ../m.tar.gz . && tar -cJf ../m.tar.xz . && tar -cjf ../m.tbz ."), 0);
  for (const std::string& path : {dir, d.path() + "/m.tar.gz", d.path() + "/m.tar.xz", d.path() + "/m.tbz"}) {
    SCOPED_TRACE(path);
    ExpectRunsBitExact(c, Model::Load(path, CacheIn(d)));
    // Module::LoadFromFile (the C ABI's and Python's path) recognizes the archive by content too.
    ExpectRunsBitExact(c, Model::FromModule(Module::LoadFromFile(path)));
  }
}

TEST(CInterface, ExecutorsHaveTheirOwnWorkspace) {
  // Two executors running at once on different inputs: with the archive's one static workspace
  // they would overwrite each other's intermediates.
  Case c = MlfCase("mlf_conv_usmp");
  AOTRT_SKIP_WITHOUT_MLF(c);
  ScratchDir d;
  Model m = Model::Load(c.library, CacheIn(d));
  Executor ref = m.CreateExecutor();  // zeros in, its outputs are the reference for zeros
  ref.Run();
  std::vector<uint8_t> zeros_out(static_cast<const uint8_t*>(ref.GetOutput(0).data()),
                                 static_cast<const uint8_t*>(ref.GetOutput(0).data()) + ref.GetOutput(0).NumBytes());
  bool ok[2] = {true, true};
  auto work = [&](int k) {
    Executor ex = m.CreateExecutor();
    if (k == 0) SetCaseInputs(c, ex);
    for (int i = 0; i < 300; ++i) {
      ex.Run();
      const void* want = k == 0 ? c.expected[0].data() : static_cast<const void*>(zeros_out.data());
      ok[k] = ok[k] && std::memcmp(ex.GetOutput(0).data(), want, zeros_out.size()) == 0;
    }
  };
  std::thread t0(work, 0), t1(work, 1);
  t0.join();
  t1.join();
  EXPECT_TRUE(ok[0]);
  EXPECT_TRUE(ok[1]);
}

TEST(CInterface, CallerPoolIsCheckedAndUsedInPlace) {
  Case c = MlfCase("mlf_user_pool");
  AOTRT_SKIP_WITHOUT_MLF(c);
  ScratchDir d;
  Model m = Model::Load(c.library, CacheIn(d));
  std::vector<uint8_t> storage(9536 + 128, 0xAB);
  auto* aligned = reinterpret_cast<uint8_t*>((reinterpret_cast<uintptr_t>(storage.data()) + 63) / 64 * 64);
  ExecutorOptions o;
  o.workspace_pools = {{"app_pool", aligned, 9536}};
  Executor ex = m.CreateExecutor(DLDevice{kDLCPU, 0}, o);
  SetCaseInputs(c, ex);
  ex.Run();
  ExpectOutputBytesMatch(c, ex);
  bool written = false;
  for (size_t i = 0; i < 9536; ++i) written = written || aligned[i] != 0xAB;
  EXPECT_TRUE(written) << "the model did not use the caller's pool";
  o.workspace_pools = {{"app_pool", aligned, 9535}};
  EXPECT_AOTRT_ERROR(m.CreateExecutor(DLDevice{kDLCPU, 0}, o), ErrorCode::kInvalidArgument,
                     {"workspace pool 'app_pool'", "needs 9536 bytes", "9535"});
  o.workspace_pools = {{"app_pool", aligned + 8, 9536}};
  EXPECT_AOTRT_ERROR(m.CreateExecutor(DLDevice{kDLCPU, 0}, o), ErrorCode::kInvalidArgument, {"'app_pool'", "64-byte aligned"});
  o.workspace_pools = {{"nope", aligned, 9536}};
  EXPECT_AOTRT_ERROR(m.CreateExecutor(DLDevice{kDLCPU, 0}, o), ErrorCode::kNotFound, {"no workspace pool 'nope'", "'app_pool'"});
}

TEST(CInterface, LibraryCompiledByTheUser) {
  Case c = MlfCase("mlf_user_pool");
  AOTRT_SKIP_WITHOUT_MLF(c);
  ScratchDir d;
  std::string dir = d.path() + "/m", lib = d.path() + "/libmodel.so";
  ASSERT_EQ(ScratchDir::Sh("mkdir -p " + dir + " && tar -xf " + c.library + " -C " + dir), 0);
  const char* cc = std::getenv("CC");  // a cross build's tests: the target's compiler
  // -ffp-contract=off as aotrt compiles archives: no fused multiply-add (aarch64 GCC's default), exact floats.
  ASSERT_EQ(ScratchDir::Sh(std::string(cc && *cc ? cc : "cc") + " -shared -fPIC -O2 -ffp-contract=off -w -I" +
                           AOTRT_TEST_INCLUDE_DIR " -I" + dir + "/codegen/host/include -o " + lib + " " + dir +
                           "/codegen/host/src/*.c -lm"), 0);
  LoadOptions o = CacheIn(d);
  o.c_library = lib;
  for (const std::string& path : {c.library, dir, dir + "/metadata.json"}) {
    SCOPED_TRACE(path);
    Model m = Model::Load(path, o);
    EXPECT_EQ(m.Info().c_origin, "given (c_library)");
    ExpectRunsBitExact(c, m);
  }
  Case usmp = MlfCase("mlf_conv_usmp");  // its run function passes its own static workspace
  EXPECT_AOTRT_ERROR(Model::Load(usmp.library, o), ErrorCode::kNotImplemented,
                     {usmp.library, "static workspace 'global_workspace'", "without c_library"});
  o.c_library = AOTRT_TEST_DATA_DIR "/not_a_model.so";
  EXPECT_AOTRT_ERROR(Model::Load(c.library, o), ErrorCode::kNotFound, {"not_a_model.so", "does not define tvmgen_default_run"});
}

TEST(CInterface, CAbiLoadsTheArchive) {
  Case c = MlfCase("mlf_user_pool");
  AOTRT_SKIP_WITHOUT_MLF(c);
  TVMModuleHandle factory = nullptr, executor = nullptr;
  ASSERT_EQ(TVMModLoadFromFile(c.library.c_str(), "", &factory), 0) << TVMGetLastError();
  TVMFunctionHandle create = nullptr;
  ASSERT_EQ(TVMModGetFunction(factory, "default", 0, &create), 0) << TVMGetLastError();
  ASSERT_NE(create, nullptr);
  TVMValue dev, ret;
  dev.v_device = DLDevice{kDLCPU, 0};
  int dev_code = kDLDevice, ret_code = 0;
  ASSERT_EQ(TVMFuncCall(create, &dev, &dev_code, 1, &ret, &ret_code), 0) << TVMGetLastError();
  executor = ret.v_handle;
  TVMFunctionHandle set_input = nullptr, run = nullptr, get_output = nullptr;
  ASSERT_EQ(TVMModGetFunction(executor, "set_input", 0, &set_input), 0) << TVMGetLastError();
  ASSERT_EQ(TVMModGetFunction(executor, "run", 0, &run), 0) << TVMGetLastError();
  ASSERT_EQ(TVMModGetFunction(executor, "get_output", 0, &get_output), 0) << TVMGetLastError();
  DLTensor in = c.inputs[0].tensor();
  TVMValue args[2];
  int codes[2] = {kTVMStr, kTVMDLTensorHandle};
  args[0].v_str = "x";
  args[1].v_handle = &in;
  ASSERT_EQ(TVMFuncCall(set_input, args, codes, 2, &ret, &ret_code), 0) << TVMGetLastError();
  ASSERT_EQ(TVMFuncCall(run, nullptr, nullptr, 0, &ret, &ret_code), 0) << TVMGetLastError();
  NDArray out = NDArray::Empty({1024}, DLDataType{kDLFloat, 32, 1});  // the archive states a size only
  DLTensor out_t = out.tensor();
  codes[0] = kDLInt;
  args[0].v_int64 = 0;
  args[1].v_handle = &out_t;
  ASSERT_EQ(TVMFuncCall(get_output, args, codes, 2, &ret, &ret_code), 0) << TVMGetLastError();
  EXPECT_EQ(std::memcmp(out.data(), c.expected[0].data(), out.NumBytes()), 0);
  for (TVMFunctionHandle f : {set_input, run, get_output}) TVMFuncFree(f);
  TVMModFree(executor);
  TVMFuncFree(create);
  TVMModFree(factory);
}

}  // namespace

namespace {

std::string FileBytes(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
}

// An archive held in memory (Model::LoadFromMemory, AOTRTModLoadFromMemory) loads as from its file.
TEST(CInterface, ArchiveLoadsFromMemory) {
  Case c = MlfCase("mlf_conv_usmp");
  AOTRT_SKIP_WITHOUT_MLF(c);
  ScratchDir d;
  std::string bytes = FileBytes(c.library);
  ASSERT_FALSE(bytes.empty());
  Model m = Model::LoadFromMemory(bytes.data(), bytes.size(), CacheIn(d));
  EXPECT_EQ(m.Info().interface, "c");
  ExpectRunsBitExact(c, m);
  // Truncated in memory: an error, never a crash.
  EXPECT_THROW(Model::LoadFromMemory(bytes.data(), bytes.size() / 2, CacheIn(d)), Error);
}

}  // namespace
