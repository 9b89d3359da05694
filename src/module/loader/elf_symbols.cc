#include "module/loader/elf_symbols.h"

#include <cstring>
#include <functional>

#include "base/error_util.h"

namespace aotrt {

Elf64_Ehdr ReadElfHeader(const char* base, size_t size, const std::string& what) {
  AOTRT_REQUIRE(size >= SELFMAG && std::memcmp(base, ELFMAG, SELFMAG) == 0, kFormatError, what,
                ": not an ELF file (bad magic); expected a shared library");
  auto eh = ReadElfAt<Elf64_Ehdr>(base, size, 0, what, "header");
  AOTRT_REQUIRE(eh.e_ident[EI_CLASS] == ELFCLASS64 && eh.e_ident[EI_DATA] == ELFDATA2LSB, kFormatError, what,
                ": not a 64-bit little-endian ELF file");
  return eh;
}

namespace {

// Calls `visit` for every named symbol of one symbol table and its string table.
void ForEachSymbolIn(const char* symtab, size_t symtab_size, const char* strtab, size_t strtab_size,
                     const std::string& what, const std::function<void(std::string_view, const Elf64_Sym&)>& visit) {
  uint64_t count = symtab_size / sizeof(Elf64_Sym);
  for (uint64_t k = 1; k < count; ++k) {
    auto sym = ReadElfAt<Elf64_Sym>(symtab, symtab_size, k * sizeof(Elf64_Sym), what, "symbol");
    if (sym.st_name == 0 || sym.st_name >= strtab_size) continue;
    const char* name = strtab + sym.st_name;
    size_t length = strnlen(name, strtab_size - sym.st_name);
    if (length < strtab_size - sym.st_name) visit(std::string_view(name, length), sym);  // unterminated: not a name
  }
}

}  // namespace

void ForEachElfSymbol(const void* data, size_t size, const std::string& what, uint32_t section_type,
                      const std::function<void(std::string_view, const Elf64_Sym&)>& visit) {
  const char* base = static_cast<const char*>(data);
  // The `bytes` bytes at `offset`, which must lie inside the file (else kFormatError naming `field`).
  auto at = [&](uint64_t offset, uint64_t bytes, const char* field) {
    AOTRT_REQUIRE(offset <= size && bytes <= size - offset, kFormatError, what, ": ELF ", field, " at offset ", offset,
                  " (", bytes, " bytes) lies outside the ", size, "-byte file");
    return base + offset;
  };
  Elf64_Ehdr eh = ReadElfHeader(base, size, what);
  if (eh.e_shnum == 0) return;  // no section headers: no symbols listed
  AOTRT_REQUIRE(eh.e_shentsize == sizeof(Elf64_Shdr), kFormatError, what, ": unexpected ELF section header size ",
                eh.e_shentsize);
  const uint64_t sections_size = uint64_t{eh.e_shnum} * sizeof(Elf64_Shdr);
  const char* sections = at(eh.e_shoff, sections_size, "section header");
  for (uint64_t i = 0; i < eh.e_shnum; ++i) {
    auto sh = ReadElfAt<Elf64_Shdr>(sections, sections_size, i * sizeof(Elf64_Shdr), what, "section header");
    if (sh.sh_type != section_type) continue;
    AOTRT_REQUIRE(sh.sh_link < eh.e_shnum, kFormatError, what, ": symbol table links to section ", sh.sh_link,
                  " of ", eh.e_shnum);
    auto strtab = ReadElfAt<Elf64_Shdr>(sections, sections_size, sh.sh_link * sizeof(Elf64_Shdr), what, "section header");
    const char* strings = at(strtab.sh_offset, strtab.sh_size, "symbol string table");
    const char* symbols = at(sh.sh_offset, sh.sh_size, "symbol table");
    ForEachSymbolIn(symbols, sh.sh_size, strings, strtab.sh_size, what, visit);
  }
}

namespace {

// Files a dynamic symbol under `out`'s defined or (strong) undefined ones.
void AddDynamicSymbol(std::string_view name, const Elf64_Sym& sym, ElfDynamicSymbols* out) {
  if (sym.st_shndx == SHN_UNDEF) {
    // Weak references may stay unresolved (the dynamic linker makes them null).
    if (ELF64_ST_BIND(sym.st_info) != STB_WEAK) out->undefined.push_back(name);
  } else {
    out->defined.push_back({name, sym.st_size});
  }
}

}  // namespace

ElfDynamicSymbols ReadElfDynamicSymbols(const void* data, size_t size, const std::string& what) {
  ElfDynamicSymbols out;
  ForEachElfSymbol(data, size, what, SHT_DYNSYM,
                   [&out](std::string_view name, const Elf64_Sym& sym) { AddDynamicSymbol(name, sym, &out); });
  return out;
}

void CheckElfSegments(const char* base, size_t avail, uint64_t size, const std::string& what) {
  Elf64_Ehdr eh = ReadElfHeader(base, avail, what);
  AOTRT_REQUIRE(eh.e_phentsize == sizeof(Elf64_Phdr) || eh.e_phnum == 0, kFormatError, what,
                ": unexpected ELF program header size ", eh.e_phentsize);
  for (uint64_t i = 0; i < eh.e_phnum; ++i) {
    auto ph = ReadElfAt<Elf64_Phdr>(base, avail, eh.e_phoff + i * sizeof(Elf64_Phdr), what, "program header");
    if (ph.p_type != PT_LOAD) continue;
    AOTRT_REQUIRE(ph.p_offset <= size && ph.p_filesz <= size - ph.p_offset, kFormatError, what, ": ELF segment ", i,
                  " (PT_LOAD) covers file bytes [", ph.p_offset, ", ", ph.p_offset + ph.p_filesz,
                  ") but the file has only ", size, " bytes: the file is truncated");
    AOTRT_REQUIRE(ph.p_filesz <= ph.p_memsz, kFormatError, what, ": ELF segment ", i, " (PT_LOAD) has ", ph.p_filesz,
                  " file bytes but only ", ph.p_memsz, " bytes in memory");
  }
}

uint64_t FindElfStaticSymbol(const void* data, size_t size, const std::string& what, const std::string& name) {
  uint64_t value = 0;
  ForEachElfSymbol(data, size, what, SHT_SYMTAB, [&](std::string_view n, const Elf64_Sym& sym) {
    int type = ELF64_ST_TYPE(sym.st_info), bind = ELF64_ST_BIND(sym.st_info);
    bool usable = sym.st_shndx != SHN_UNDEF && (type == STT_FUNC || type == STT_OBJECT) &&
                  (bind == STB_GLOBAL || bind == STB_WEAK);
    if (value == 0 && usable && n == name) value = sym.st_value;
  });
  return value;
}

}  // namespace aotrt
