#include "module/elf_symbols.h"

#include <elf.h>

#include <cstring>

#include "base/error_util.h"

namespace aotrt {
namespace {

template <typename T>
T ReadAt(const char* base, size_t size, uint64_t off, const std::string& what, const char* field) {
  if (off > size || sizeof(T) > size - off) {
    AOTRT_THROW(kFormatError, what, ": ELF ", field, " at offset ", off, " lies outside the ", size, "-byte file");
  }
  T v;
  std::memcpy(&v, base + off, sizeof(T));
  return v;
}

}  // namespace

ElfDynamicSymbols ReadElfDynamicSymbols(const void* data, size_t size, const std::string& what) {
  const char* base = static_cast<const char*>(data);
  AOTRT_REQUIRE(size >= SELFMAG && std::memcmp(base, ELFMAG, SELFMAG) == 0, kFormatError, what,
                ": not an ELF file (bad magic); expected a shared library");
  auto eh = ReadAt<Elf64_Ehdr>(base, size, 0, what, "header");
  AOTRT_REQUIRE(eh.e_ident[EI_CLASS] == ELFCLASS64 && eh.e_ident[EI_DATA] == ELFDATA2LSB, kFormatError, what,
                ": not a 64-bit little-endian ELF file");
  AOTRT_REQUIRE(eh.e_shentsize == sizeof(Elf64_Shdr) || eh.e_shnum == 0, kFormatError, what,
                ": unexpected ELF section header size ", eh.e_shentsize);
  ElfDynamicSymbols out;
  for (uint64_t i = 0; i < eh.e_shnum; ++i) {
    auto sh = ReadAt<Elf64_Shdr>(base, size, eh.e_shoff + i * sizeof(Elf64_Shdr), what, "section header");
    if (sh.sh_type != SHT_DYNSYM) continue;
    AOTRT_REQUIRE(sh.sh_link < eh.e_shnum, kFormatError, what, ": .dynsym links to section ", sh.sh_link,
                  " of ", eh.e_shnum);
    auto strtab = ReadAt<Elf64_Shdr>(base, size, eh.e_shoff + sh.sh_link * sizeof(Elf64_Shdr), what, "section header");
    AOTRT_REQUIRE(strtab.sh_offset <= size && strtab.sh_size <= size - strtab.sh_offset, kFormatError, what,
                  ": .dynstr lies outside the file");
    AOTRT_REQUIRE(sh.sh_offset <= size && sh.sh_size <= size - sh.sh_offset, kFormatError, what,
                  ": .dynsym lies outside the file");
    uint64_t count = sh.sh_size / sizeof(Elf64_Sym);
    for (uint64_t k = 1; k < count; ++k) {
      auto sym = ReadAt<Elf64_Sym>(base, size, sh.sh_offset + k * sizeof(Elf64_Sym), what, "symbol");
      if (sym.st_name == 0 || sym.st_name >= strtab.sh_size) continue;
      const char* name = base + strtab.sh_offset + sym.st_name;
      size_t max_len = strtab.sh_size - sym.st_name;
      std::string s(name, strnlen(name, max_len));
      if (sym.st_shndx == SHN_UNDEF) {
        if (ELF64_ST_BIND(sym.st_info) != STB_WEAK) out.undefined.push_back(s);
      } else {
        out.defined.push_back({s, sym.st_size});
      }
    }
  }
  return out;
}

}  // namespace aotrt
