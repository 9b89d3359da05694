// The operator profiler's attribution rules and its ELF function table (CodeMap), both in
// profiling/op_attribution.h, on generated model libraries and their stripped copies.
#include <gtest/gtest.h>

#include <unistd.h>

#include <cstdlib>
#include <cstring>
#include <fstream>
#include <iterator>
#include <string>

#include "aotrt/error.h"
#include "profiling/op_attribution.h"

using namespace aotrt;
using namespace aotrt::profiling_internal;

namespace {

constexpr uintptr_t kBias = 0x7f0000000000;

std::string ReadFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return std::string((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
}

std::string Model(const std::string& name) { return std::string(AOTRT_TEST_MODELS_DIR) + "/" + name + ".so"; }

CodeMap MapOf(const std::string& path) {
  std::string bytes = ReadFile(path);
  EXPECT_FALSE(bytes.empty()) << path;
  return CodeMap::FromElf(bytes.data(), bytes.size(), path, kBias);
}

const CodeSymbol* Named(const CodeMap& m, const std::string& name) {
  for (const CodeSymbol& s : m.symbols()) {
    if (s.name == name) return &s;
  }
  return nullptr;
}

// A copy of `path` with .symtab removed (strip --strip-all keeps .dynsym).
std::string StrippedCopy(const std::string& path) {
  std::string out = ::testing::TempDir() + "stripped_" + std::to_string(::getpid()) + ".so";
  // The strip of $CC's binutils: a cross build's tests strip the target's libraries.
  std::string cmd = "\"$(${CC:-cc} -print-prog-name=strip)\" --strip-all -o '" + out + "' '" + path + "'";
  EXPECT_EQ(std::system(cmd.c_str()), 0) << cmd;
  return out;
}

}  // namespace

TEST(OpAttribution, OperatorNames) {
  EXPECT_EQ(OperatorName("tvmgen_default_fused_nn_conv2d_add", "tvmgen_default"), "fused_nn_conv2d_add");
  EXPECT_EQ(OperatorName("tvmgen_default_fused_nn_conv2d_add_compute_", "tvmgen_default"), "fused_nn_conv2d_add");
  EXPECT_EQ(OperatorName("tvmgen_other_fused_x", "tvmgen_default"), "tvmgen_other_fused_x");
  EXPECT_EQ(OperatorName("__truncsfhf2", "tvmgen_default"), "__truncsfhf2");
  EXPECT_EQ(OperatorName("_compute_", ""), "_compute_");
}

TEST(OpAttribution, WilsonBound) {
  EXPECT_EQ(WilsonHalfWidth95(0, 0), 0);
  EXPECT_NEAR(WilsonHalfWidth95(500, 1000), 3.1, 0.1);  // 1.96 * sqrt(.25 / 1000) = 3.1 pp
  EXPECT_GT(WilsonHalfWidth95(0, 100), 0);               // no samples is not a certain 0%
  EXPECT_LT(WilsonHalfWidth95(100, 10000), WilsonHalfWidth95(10, 1000));
}

TEST(OpAttribution, SamplesGoToOperatorsLaunchersUnnamedCodeAndOutside) {
  CodeMap m = MapOf(Model("profile_costs_parallel_llvm"));
  EXPECT_EQ(m.table(), ".symtab");
  const CodeSymbol* dense1 = Named(m, "tvmgen_default_fused_nn_dense_1x");
  const CodeSymbol* lambda = Named(m, "__tvm_parallel_lambda_0");
  const CodeSymbol* entry = Named(m, "tvmgen_default___tvm_main__");
  ASSERT_TRUE(dense1 && lambda && entry);
  std::vector<PcSample> samples = {
      {dense1->start + 1, 0},            // in the operator
      {lambda->start + 4, dense1->start + 8},  // in a task, launched by the operator
      {0x1000, dense1->start + 8},       // waiting in the runtime, launched by the operator
      {lambda->start + 4, 0},            // in the lambda, no launch known: its own (odd) name
      {entry->start + 2, 0},             // the entry's glue
      {0x1000, 0},                       // the runtime
  };
  OperatorProfile p;
  p.run_ms = 6;
  AttributeSamples(m, samples, "tvmgen_default", &p);
  EXPECT_EQ(p.samples, 6u);
  ASSERT_EQ(p.operators.size(), 2u);
  EXPECT_EQ(p.operators[0].name, "fused_nn_dense_1x");
  EXPECT_EQ(p.operators[0].symbol, "tvmgen_default_fused_nn_dense_1x");
  EXPECT_EQ(p.operators[0].samples, 3u);
  EXPECT_DOUBLE_EQ(p.operators[0].percent, 50);
  EXPECT_DOUBLE_EQ(p.operators[0].mean_ms, 3);
  EXPECT_EQ(p.operators[1].name, "__tvm_parallel_lambda_0");
  EXPECT_EQ(p.outside.samples, 2u);
  EXPECT_EQ(p.glue_samples, 1u);
}

// Without .symtab, code only a local symbol covered is reported by address, never under the
// name of the exported symbol before it.
TEST(OpAttribution, StrippedLibraryGivesAddressesNotWrongNames) {
  std::string path = Model("profile_costs_parallel_llvm");
  CodeMap full = MapOf(path);
  const CodeSymbol* lambda = Named(full, "__tvm_parallel_lambda_0");
  ASSERT_NE(lambda, nullptr);
  std::string stripped = StrippedCopy(path);
  CodeMap m = MapOf(stripped);
  std::remove(stripped.c_str());
  EXPECT_EQ(m.table(), ".dynsym");
  EXPECT_EQ(Named(m, "__tvm_parallel_lambda_0"), nullptr);
  EXPECT_NE(Named(m, "tvmgen_default_fused_nn_dense_1x"), nullptr);  // exported: still named
  EXPECT_EQ(m.Find(lambda->start + 4), nullptr);
  OperatorProfile p;
  AttributeSamples(m, {{lambda->start + 4, 0}}, "tvmgen_default", &p);
  ASSERT_EQ(p.operators.size(), 1u);
  EXPECT_EQ(p.operators[0].name.rfind("[unnamed code stripped_", 0), 0u) << p.operators[0].name;
  EXPECT_EQ(p.operators[0].symbol, "");
}

TEST(OpAttribution, CorruptElfIsAFormatError) {
  std::string bytes = ReadFile(Model("profile_costs_c_nousmp"));
  ASSERT_GT(bytes.size(), 64u);
  try {
    CodeMap::FromElf("not an elf file", 15, "junk", 0);
    ADD_FAILURE() << "accepted junk";
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), ErrorCode::kFormatError);
  }
  std::string cut = bytes;
  // Section headers pointing past the end of the file.
  uint64_t far = uint64_t{1} << 40;
  std::memcpy(&cut[0x28], &far, 8);  // e_shoff
  EXPECT_THROW(CodeMap::FromElf(cut.data(), cut.size(), "cut", 0), Error);
}

TEST(OpAttribution, AddressInNoLoadedObjectIsNotFound) {
  int on_stack = 0;
  try {
    CodeMap::ForAddress(&on_stack);
    ADD_FAILURE() << "mapped a stack address";
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), ErrorCode::kNotFound);
  }
}

// A c-target model calls the runtime through its PLT: samples there are the runtime's.
TEST(OpAttribution, PltStubsCountAsOutside) {
  CodeMap m = MapOf(Model("profile_costs_c_nousmp"));
  const CodeSymbol* plt = Named(m, kPltSymbol);
  ASSERT_NE(plt, nullptr);
  OperatorProfile p;
  AttributeSamples(m, {{plt->start + 2, 0}}, "tvmgen_default", &p);
  EXPECT_TRUE(p.operators.empty());
  EXPECT_EQ(p.outside.samples, 1u);
}
