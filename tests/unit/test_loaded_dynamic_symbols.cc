// ReadLoadedDynamicSymbols on a synthetic image: a dynamic section, symbol table, string table and
// hash table laid out in one buffer standing for a library's segment, with the addresses either
// run-time (as glibc leaves a writable section) or link-time (a read-only one); and every table
// that runs outside the segment is an error naming it, never a read outside.
#include <gtest/gtest.h>

#include <elf.h>

#include <cstring>
#include <vector>

#include "aotrt/error.h"
#include "common/expect_error.h"
#include "module/loader/loaded_dynamic_symbols.h"

using namespace aotrt;

namespace {

constexpr char kStrings[] = "\0used_by_model\0tvmgen_default_fused_add\0__cxa_finalize";  // offsets 1, 15, 40

// An image of 4 KiB: the dynamic section at 0, the symbols at 512, the strings at 1024, a SysV
// hash table at 1536 and the GNU hash table at 2048, zeros after it.
class Image {
 public:
  enum Addresses { kRunTime, kLinkTime };
  enum Hash { kGnuHash, kSysvHash };

  Image(Addresses addresses, Hash hash) : words_(512, 0) {
    Elf64_Sym syms[4] = {};
    syms[1] = Symbol(1, SHN_UNDEF, STB_GLOBAL, 0);    // used_by_model: a strong undefined reference
    syms[2] = Symbol(40, SHN_UNDEF, STB_WEAK, 0);     // __cxa_finalize: weak, may stay unresolved
    syms[3] = Symbol(15, 12, STB_GLOBAL, 64);         // tvmgen_default_fused_add, defined
    std::memcpy(at(512), syms, sizeof syms);
    std::memcpy(at(1024), kStrings, sizeof kStrings);
    // GNU hash: 1 bucket, symoffset 3 (the undefined ones are not hashed), 1 bloom word; the one
    // hashed symbol ends its chain (odd value).
    uint32_t gnu[4 + 2 + 1 + 1] = {1, 3, 1, 6, 0xffffffff, 0xffffffff, 3, 0x1235};
    std::memcpy(at(2048), gnu, sizeof gnu);
    uint32_t sysv[2 + 1 + 4] = {1, 4, 3, 0, 0, 0, 0};
    std::memcpy(at(1536), sysv, sizeof sysv);
    uintptr_t bias = addresses == kLinkTime ? base() : 0;
    auto address = [&](size_t offset) { return static_cast<uint64_t>(base() + offset - bias); };
    Elf64_Dyn dyn[] = {{DT_SYMTAB, {address(512)}},
                       {DT_STRTAB, {address(1024)}},
                       {DT_STRSZ, {sizeof kStrings}},
                       {DT_SYMENT, {sizeof(Elf64_Sym)}},
                       {hash == kGnuHash ? DT_GNU_HASH : DT_HASH, {address(hash == kGnuHash ? 2048 : 1536)}},
                       {DT_NULL, {0}}};
    std::memcpy(at(0), dyn, sizeof dyn);
    bias_ = bias;
  }

  ElfDynamicSymbols Read(size_t segment_bytes = 4096) const {
    AddressBounds segments({{base(), base() + segment_bytes, false}});
    return ReadLoadedDynamicSymbols(reinterpret_cast<const Elf64_Dyn*>(at(0)), bias_, segments, "lib.so");
  }
  Elf64_Dyn* dynamic() { return reinterpret_cast<Elf64_Dyn*>(at(0)); }
  uint32_t* gnu_hash() { return reinterpret_cast<uint32_t*>(at(2048)); }

 private:
  static Elf64_Sym Symbol(uint32_t name, uint16_t section, int bind, uint64_t size) {
    Elf64_Sym s{};
    s.st_name = name;
    s.st_info = ELF64_ST_INFO(bind, section == SHN_UNDEF ? STT_NOTYPE : STT_FUNC);
    s.st_shndx = section;
    s.st_size = size;
    return s;
  }
  uintptr_t base() const { return reinterpret_cast<uintptr_t>(words_.data()); }
  char* at(size_t offset) const { return reinterpret_cast<char*>(const_cast<uint64_t*>(words_.data())) + offset; }

  std::vector<uint64_t> words_;  // 8-byte aligned, as a segment is
  uintptr_t bias_ = 0;
};

void ExpectTheThreeSymbols(const ElfDynamicSymbols& s) {
  ASSERT_EQ(s.defined.size(), 1u);
  EXPECT_EQ(s.defined[0].name, "tvmgen_default_fused_add");
  EXPECT_EQ(s.defined[0].size, 64u);
  ASSERT_EQ(s.undefined.size(), 1u);  // the weak reference is not listed
  EXPECT_EQ(s.undefined[0], "used_by_model");
  EXPECT_EQ(s.undefined[0].data()[s.undefined[0].size()], '\0');
}

}  // namespace

TEST(LoadedDynamicSymbols, RunTimeAndLinkTimeAddresses) {
  for (auto hash : {Image::kGnuHash, Image::kSysvHash}) {
    ExpectTheThreeSymbols(Image(Image::kRunTime, hash).Read());
    ExpectTheThreeSymbols(Image(Image::kLinkTime, hash).Read());
  }
}

// An empty GNU hash table (a library that defines nothing) leaves the relocations to tell which
// symbols the library uses.
TEST(LoadedDynamicSymbols, EmptyGnuHashCountsTheRelocatedSymbols) {
  Image image(Image::kRunTime, Image::kGnuHash);
  uint32_t empty[] = {1, 1, 1, 6, 0, 0, 0};  // nbuckets 1, symoffset 1, one zero bloom word, bucket 0
  std::memcpy(image.gnu_hash(), empty, sizeof empty);
  Elf64_Rela relocs[2] = {{0x100, ELF64_R_INFO(0, R_X86_64_RELATIVE), 0x200},
                          {0x108, ELF64_R_INFO(1, R_X86_64_JUMP_SLOT), 0}};
  char* at = reinterpret_cast<char*>(image.dynamic()) + 3072;
  std::memcpy(at, relocs, sizeof relocs);
  image.dynamic()[5] = {DT_JMPREL, {reinterpret_cast<uint64_t>(at)}};
  image.dynamic()[6] = {DT_PLTRELSZ, {sizeof relocs}};
  image.dynamic()[7] = {DT_PLTREL, {DT_RELA}};
  image.dynamic()[8] = {DT_NULL, {0}};
  ElfDynamicSymbols s = image.Read();
  ASSERT_EQ(s.undefined.size(), 1u);
  EXPECT_EQ(s.undefined[0], "used_by_model");
  EXPECT_TRUE(s.defined.empty());  // past the relocated ones: nothing can use it
  image.dynamic()[6] = {DT_PLTRELSZ, {uint64_t{1} << 40}};
  EXPECT_AOTRT_ERROR(image.Read(), ErrorCode::kFormatError, {"lib.so", "relocation table", "outside"});
}

TEST(LoadedDynamicSymbols, NoHashTableListsNothing) {
  Image image(Image::kRunTime, Image::kGnuHash);
  image.dynamic()[4].d_tag = DT_DEBUG;  // the hash table's entry, now something else
  ElfDynamicSymbols s = image.Read();
  EXPECT_TRUE(s.defined.empty());
  EXPECT_TRUE(s.undefined.empty());
}

TEST(LoadedDynamicSymbols, TablesOutsideTheSegmentAreErrors) {
  {
    Image image(Image::kRunTime, Image::kGnuHash);
    image.dynamic()[0].d_un.d_ptr = uint64_t{1} << 62;
    EXPECT_AOTRT_ERROR(image.Read(), ErrorCode::kFormatError, {"lib.so", "symbol table", "outside the library's mapped segments"});
  }
  {
    Image image(Image::kLinkTime, Image::kGnuHash);
    image.dynamic()[2].d_un.d_val = 1 << 20;  // DT_STRSZ past the segment
    EXPECT_AOTRT_ERROR(image.Read(), ErrorCode::kFormatError, {"lib.so", "string table", "outside"});
  }
  {
    Image image(Image::kRunTime, Image::kGnuHash);
    image.gnu_hash()[0] = 0x40000000;  // buckets far past the segment
    EXPECT_AOTRT_ERROR(image.Read(), ErrorCode::kFormatError, {"lib.so", "GNU hash buckets", "outside"});
  }
  {
    Image image(Image::kRunTime, Image::kGnuHash);
    image.gnu_hash()[7] = 0x1234;  // the chain never ends: it runs to the segment's end
    EXPECT_AOTRT_ERROR(image.Read(), ErrorCode::kFormatError, {"lib.so", "GNU hash chain entry", "outside"});
  }
  {
    Image image(Image::kRunTime, Image::kSysvHash);
    image.dynamic()[3].d_un.d_val = 16;
    EXPECT_AOTRT_ERROR(image.Read(), ErrorCode::kFormatError, {"lib.so", "dynamic symbol entry size 16"});
  }
}

TEST(LoadedDynamicSymbols, UnterminatedDynamicSectionStopsAtTheSegment) {
  Image image(Image::kRunTime, Image::kGnuHash);
  for (size_t i = 5; i < 512 / sizeof(Elf64_Dyn); ++i) image.dynamic()[i].d_tag = DT_DEBUG;  // no DT_NULL
  EXPECT_AOTRT_ERROR(image.Read(512), ErrorCode::kFormatError, {"lib.so", "dynamic section entry", "outside"});
}

TEST(LoadedDynamicSymbols, NameWithoutItsNulIsSkipped) {
  Image image(Image::kRunTime, Image::kSysvHash);
  image.dynamic()[2].d_un.d_val = 39;  // the table ends before the defined symbol's NUL
  ElfDynamicSymbols s = image.Read();
  EXPECT_TRUE(s.defined.empty());
  ASSERT_EQ(s.undefined.size(), 1u);
  EXPECT_EQ(s.undefined[0], "used_by_model");
}
