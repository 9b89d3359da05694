#include <gtest/gtest.h>

#include <elf.h>

#include <algorithm>
#include <cstring>
#include <fstream>
#include <iterator>

#include "aotrt/error.h"
#include "common/expect_error.h"
#include "module/loader/shared_library.h"

using namespace aotrt;

namespace {
std::string ReadFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return std::string((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
}
}  // namespace

TEST(Elf, ReadsAModelsDynamicSymbols) {
  std::string bytes = ReadFile(std::string(AOTRT_TEST_MODELS_DIR) + "/add_c.so");
  ASSERT_FALSE(bytes.empty());
  ElfDynamicSymbols s = ReadElfDynamicSymbols(bytes.data(), bytes.size(), "add_c.so");
  ASSERT_NE(s.FindDefined("__tvm_dev_mblob"), nullptr);
  EXPECT_GT(s.FindDefined("__tvm_dev_mblob")->size, 8u);
  EXPECT_NE(s.FindDefined("get_c_metadata"), nullptr);
  EXPECT_NE(s.FindDefined("tvmgen_default___tvm_main__"), nullptr);
}

TEST(Elf, CorruptFilesGiveFormatErrors) {
  std::string good = ReadFile(std::string(AOTRT_TEST_MODELS_DIR) + "/add_c.so");
  ASSERT_GT(good.size(), sizeof(Elf64_Ehdr));
  for (size_t cut : {size_t{0}, size_t{10}, sizeof(Elf64_Ehdr) - 1}) {
    EXPECT_AOTRT_ERROR(ReadElfDynamicSymbols(good.data(), cut, "x"), ErrorCode::kFormatError, {"x"});
  }
  std::string bad = good;
  bad[0] = 'X';
  try {
    ReadElfDynamicSymbols(bad.data(), bad.size(), "x.so");
    FAIL();
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), ErrorCode::kFormatError);
    EXPECT_NE(std::string(e.what()).find("not an ELF file"), std::string::npos);
  }
  // Section headers beyond the end: cut the file in half.
  EXPECT_AOTRT_ERROR(ReadElfDynamicSymbols(good.data(), good.size() / 2, "x"), ErrorCode::kFormatError, {"x"});
  // Random garbage after a valid header must not read out of bounds.
  bad = good;
  Elf64_Ehdr eh;
  std::memcpy(&eh, bad.data(), sizeof(eh));
  eh.e_shoff = ~uint64_t{0} - 10;
  std::memcpy(&bad[0], &eh, sizeof(eh));
  EXPECT_THROW(ReadElfDynamicSymbols(bad.data(), bad.size(), "x"), Error);
}

TEST(Elf, UndefinedListsTheStrongReferencesOnly) {
  // half_llvm leaves the float16 helpers to the runtime; gcc's weak __cxa_finalize/__gmon_start__
  // references may stay unresolved, so they are not listed.
  std::string bytes = ReadFile(std::string(AOTRT_TEST_MODELS_DIR) + "/half_llvm.so");
  ElfDynamicSymbols s = ReadElfDynamicSymbols(bytes.data(), bytes.size(), "half_llvm.so");
  auto has = [&](const char* n) { return std::find(s.undefined.begin(), s.undefined.end(), n) != s.undefined.end(); };
  EXPECT_TRUE(has("__gnu_f2h_ieee"));
  EXPECT_TRUE(has("__gnu_h2f_ieee"));
  EXPECT_FALSE(has("__cxa_finalize"));
  EXPECT_FALSE(has("__gmon_start__"));
}
