// ReadSharedLibraryFile: the loader's pread of a library's headers and dynamic symbols gives what
// the walk of the whole mapped file gives, and the same errors for bad files.
#include <gtest/gtest.h>

#include <elf.h>
#include <unistd.h>

#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>

#include "aotrt/error.h"
#include "common/expect_error.h"
#include "module/loader/elf_file.h"

using namespace aotrt;

namespace {

std::string ReadAll(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return std::string((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
}

// A file in a fresh temporary directory, removed with it.
class TempFile {
 public:
  explicit TempFile(const std::string& bytes) {
    char tmpl[] = "/tmp/aotrt_elf_file_XXXXXX";
    dir_ = ::mkdtemp(tmpl);
    path_ = dir_ + "/lib.so";
    std::ofstream(path_, std::ios::binary) << bytes;
  }
  ~TempFile() { std::filesystem::remove_all(dir_); }
  const std::string& path() const { return path_; }

 private:
  std::string dir_, path_;
};

std::string Model(const char* name) { return std::string(AOTRT_TEST_MODELS_DIR) + "/" + name; }

}  // namespace

TEST(ElfFile, SameSymbolsAsTheWalkOfTheMappedFile) {
  int compared = 0;
  for (const auto& entry : std::filesystem::directory_iterator(AOTRT_TEST_MODELS_DIR)) {
    if (entry.path().extension() != ".so") continue;
    std::string bytes = ReadAll(entry.path());
    ElfDynamicSymbols whole = ReadElfDynamicSymbols(bytes.data(), bytes.size(), "whole");
    ElfDynamicSymbols read = ReadSharedLibraryFile(entry.path(), "read");
    ASSERT_EQ(read.defined.size(), whole.defined.size()) << entry.path();
    for (size_t i = 0; i < whole.defined.size(); ++i) {
      EXPECT_EQ(read.defined[i].name, whole.defined[i].name);
      EXPECT_EQ(read.defined[i].size, whole.defined[i].size);
    }
    EXPECT_EQ(read.undefined, whole.undefined) << entry.path();
    ++compared;
  }
  EXPECT_GT(compared, 3);
}

TEST(ElfFile, MissingFileAndDirectory) {
  EXPECT_AOTRT_ERROR(ReadSharedLibraryFile("/nonexistent/lib.so", "lib.so"), ErrorCode::kNotFound,
                     {"lib.so", "no such file"});
  EXPECT_AOTRT_ERROR(ReadSharedLibraryFile("/tmp", "tmpdir"), ErrorCode::kIOError, {"tmpdir", "not a regular file"});
}

TEST(ElfFile, NotElf) {
  TempFile empty("");
  EXPECT_AOTRT_ERROR(ReadSharedLibraryFile(empty.path(), "empty.so"), ErrorCode::kFormatError,
                     {"empty.so", "not an ELF file"});
  TempFile text("hello, this is not a library");
  EXPECT_AOTRT_ERROR(ReadSharedLibraryFile(text.path(), "text.so"), ErrorCode::kFormatError, {"not an ELF file"});
}

TEST(ElfFile, TruncatedLibraryNamesTheSegment) {
  std::string good = ReadAll(Model("add_c.so"));
  ASSERT_GT(good.size(), 8192u);
  TempFile cut(good.substr(0, good.size() / 2));
  EXPECT_AOTRT_ERROR(ReadSharedLibraryFile(cut.path(), "cut.so"), ErrorCode::kFormatError,
                     {"cut.so", "PT_LOAD", "truncated"});
}

TEST(ElfFile, HeadersOutsideTheFile) {
  std::string good = ReadAll(Model("add_c.so"));
  Elf64_Ehdr eh;
  std::memcpy(&eh, good.data(), sizeof(eh));
  std::string bad = good;
  Elf64_Ehdr e = eh;
  e.e_shoff = ~uint64_t{0} - 10;
  std::memcpy(&bad[0], &e, sizeof(e));
  TempFile shoff(bad);
  EXPECT_AOTRT_ERROR(ReadSharedLibraryFile(shoff.path(), "x.so"), ErrorCode::kFormatError, {"x.so", "section header"});
  bad = good;
  e = eh;
  e.e_phoff = good.size() + 100;
  std::memcpy(&bad[0], &e, sizeof(e));
  TempFile phoff(bad);
  EXPECT_AOTRT_ERROR(ReadSharedLibraryFile(phoff.path(), "y.so"), ErrorCode::kFormatError, {"y.so", "program header"});
  bad = good;
  e = eh;
  e.e_shstrndx = 0;
  e.e_shnum = 0xffff;  // more section headers than the file holds
  std::memcpy(&bad[0], &e, sizeof(e));
  TempFile shnum(bad);
  EXPECT_AOTRT_ERROR(ReadSharedLibraryFile(shnum.path(), "z.so"), ErrorCode::kFormatError, {"z.so", "outside"});
}
