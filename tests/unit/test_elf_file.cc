// The loader's two reads of a shared library: CheckSharedLibraryFile (the ELF and program headers,
// read before dlopen) and, after dlopen, the file's dynamic symbols (OpenSharedLibrary).
#include <gtest/gtest.h>

#include <dlfcn.h>
#include <elf.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

#include "aotrt/error.h"
#include "common/expect_error.h"
#include "module/loader/shared_library.h"
#include "module/symbol_source.h"

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

// CheckSharedLibraryFile of the file at `path`, mapped as the loader maps it.
void CheckLibraryFile(const std::string& path, const std::string& what) {
  CheckSharedLibraryFile(MappedFile(path, what), what);
}

}  // namespace

TEST(ElfFile, MissingFileAndDirectory) {
  EXPECT_AOTRT_ERROR(CheckLibraryFile("/nonexistent/lib.so", "lib.so"), ErrorCode::kNotFound,
                     {"lib.so", "no such file"});
  EXPECT_AOTRT_ERROR(CheckLibraryFile("/tmp", "tmpdir"), ErrorCode::kIOError, {"tmpdir", "not a regular file"});
}

TEST(ElfFile, NotElf) {
  TempFile empty("");
  EXPECT_AOTRT_ERROR(CheckLibraryFile(empty.path(), "empty.so"), ErrorCode::kFormatError,
                     {"empty.so", "not an ELF file"});
  TempFile text("hello, this is not a library");
  EXPECT_AOTRT_ERROR(CheckLibraryFile(text.path(), "text.so"), ErrorCode::kFormatError, {"not an ELF file"});
}

TEST(ElfFile, TruncatedLibraryNamesTheSegment) {
  std::string good = ReadAll(Model("add_c.so"));
  ASSERT_GT(good.size(), 8192u);
  CheckLibraryFile(Model("add_c.so"), "add_c.so");
  TempFile cut(good.substr(0, good.size() / 2));
  EXPECT_AOTRT_ERROR(CheckLibraryFile(cut.path(), "cut.so"), ErrorCode::kFormatError,
                     {"cut.so", "PT_LOAD", "truncated"});
}

TEST(ElfFile, ProgramHeadersOutsideTheFile) {
  std::string good = ReadAll(Model("add_c.so"));
  Elf64_Ehdr eh;
  std::memcpy(&eh, good.data(), sizeof(eh));
  std::string bad = good;
  Elf64_Ehdr e = eh;
  e.e_phoff = good.size() + 100;
  std::memcpy(&bad[0], &e, sizeof(e));
  TempFile phoff(bad);
  EXPECT_AOTRT_ERROR(CheckLibraryFile(phoff.path(), "y.so"), ErrorCode::kFormatError,
                     {"y.so", "program headers at offset", "lie outside the"});
  e.e_phoff = ~uint64_t{0} - 10;  // the end would wrap around
  std::memcpy(&bad[0], &e, sizeof(e));
  TempFile wrap(bad);
  EXPECT_AOTRT_ERROR(CheckLibraryFile(wrap.path(), "w.so"), ErrorCode::kFormatError, {"w.so", "program headers"});
}

// The check before dlopen reads no section header (the dynamic linker reads none either); the
// symbols read after it do, and a library whose section headers point anywhere loads without them.
TEST(ElfFile, SectionHeadersAreReadOnlyForTheSymbols) {
  std::string good = ReadAll(Model("add_c.so"));
  Elf64_Ehdr e;
  std::memcpy(&e, good.data(), sizeof(e));
  e.e_shoff = ~uint64_t{0} - 10;
  e.e_shnum = 0xffff;
  std::string bad = good;
  std::memcpy(&bad[0], &e, sizeof(e));
  TempFile odd(bad);
  CheckLibraryFile(odd.path(), "odd.so");
  std::shared_ptr<SymbolSource> lib = OpenSharedLibrary(odd.path(), "odd.so");
  EXPECT_TRUE(lib->dynamic_symbols()->defined.empty());
  EXPECT_NE(lib->Lookup("__tvm_dev_mblob"), nullptr);
  EXPECT_GT(lib->Segments().Readable(lib->Lookup("__tvm_dev_mblob")), 0u);  // found by name
}

// Program headers after the first KiB are read apart, and checked the same way.
TEST(ElfFile, ProgramHeadersAtTheEndOfTheFile) {
  std::string good = ReadAll(Model("add_c.so"));
  Elf64_Ehdr e;
  std::memcpy(&e, good.data(), sizeof(e));
  std::string table = good.substr(e.e_phoff, size_t{e.e_phnum} * sizeof(Elf64_Phdr));
  std::string moved = good;
  e.e_phoff = moved.size();
  std::memcpy(&moved[0], &e, sizeof(e));
  TempFile at_end(moved + table);
  CheckLibraryFile(at_end.path(), "at_end.so");
  for (size_t i = 0; i < e.e_phnum; ++i) {
    Elf64_Phdr ph;
    std::memcpy(&ph, &table[i * sizeof ph], sizeof ph);
    if (ph.p_type != PT_LOAD) continue;
    ph.p_filesz = ph.p_memsz = good.size() * 4;  // past the end of the file
    std::memcpy(&table[i * sizeof ph], &ph, sizeof ph);
    break;
  }
  TempFile long_segment(moved + table);
  EXPECT_AOTRT_ERROR(CheckLibraryFile(long_segment.path(), "long.so"), ErrorCode::kFormatError,
                     {"long.so", "PT_LOAD", "truncated"});
}

namespace {

// A small shared library built with `flags` into `dir`; empty when the toolchain refuses them
// (a linker that is not installed).
std::string BuildLibrary(const std::string& dir, const std::string& name, const std::string& flags) {
  std::string src = dir + "/lib.c", out = dir + "/" + name + ".so";
  std::ofstream(src) << "#include <string.h>\n"
                        "extern int optional_hook(void) __attribute__((weak));\n"
                        "int table[37] = {1};\n"
                        "const char label[] = \"loaded\";\n"
                        "int first(int x) { return x + table[0]; }\n"
                        "void second(char* p, int n) { memset(p, optional_hook ? optional_hook() : 0, n); }\n";
  const char* cc = std::getenv("CC");  // a cross build's tests: the target's compiler
  std::string cmd = std::string(cc && *cc ? cc : "cc") + " -shared -fPIC -o " + out + " " + src + " " + flags +
                    " >/dev/null 2>&1";
  return std::system(cmd.c_str()) == 0 ? out : std::string();
}

}  // namespace

// Real linkers' layouts: GNU hash, SysV hash, both; ld.bfd, gold and lld; and lld's read-only
// dynamic section.
TEST(ElfFile, SymbolsOfEachLinkersLayout) {
  char tmpl[] = "/tmp/aotrt_linkers_XXXXXX";
  std::string dir = ::mkdtemp(tmpl);
  struct Variant {
    const char* name;
    const char* flags;
  } variants[] = {{"gnu_hash", "-Wl,--hash-style=gnu"},
                  {"sysv_hash", "-Wl,--hash-style=sysv"},
                  {"both_hashes", "-Wl,--hash-style=both"},
                  {"gold", "-fuse-ld=gold"},
                  {"lld", "-fuse-ld=lld"},
                  {"lld_readonly_dynamic", "-fuse-ld=lld -Wl,-z,rodynamic"}};
  int built = 0;
  for (const Variant& v : variants) {
    std::string path = BuildLibrary(dir, v.name, v.flags);
    if (path.empty()) {
      std::printf("note: cannot build the %s variant here (%s); skipped\n", v.name, v.flags);
      continue;
    }
    ++built;
    std::shared_ptr<SymbolSource> lib = OpenSharedLibrary(path, v.name);
    const ElfDynamicSymbols& loaded = *lib->dynamic_symbols();
    EXPECT_EQ(lib->SymbolSize("table"), 37 * sizeof(int)) << v.name;
    EXPECT_GT(lib->Segments().Readable(lib->Lookup("label")), 0u) << v.name;
    EXPECT_NO_THROW(lib->Segments().RequireWritable(lib->Lookup("table"), sizeof(int), "table")) << v.name;
    EXPECT_NE(loaded.FindDefined("first"), nullptr) << v.name;
    EXPECT_NE(std::find(loaded.undefined.begin(), loaded.undefined.end(), "memset"), loaded.undefined.end()) << v.name;
    EXPECT_EQ(std::find(loaded.undefined.begin(), loaded.undefined.end(), "optional_hook"), loaded.undefined.end())
        << v.name << ": a weak reference is not a symbol the library needs";
  }
  std::filesystem::remove_all(dir);
  EXPECT_GE(built, 3) << "the default linker's three hash styles must build";
}
