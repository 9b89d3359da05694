#include "module/loader/loaded_dynamic_symbols.h"

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <utility>

#include "base/error_util.h"

namespace aotrt {
namespace {

// At most this many dynamic entries are read (linkers write 20-40); an unterminated section
// stops here if its segment does not stop it first.
constexpr size_t kMaxDynamicEntries = 4096;

class LoadedObject {
 public:
  LoadedObject(uintptr_t bias, const AddressBounds& segments, const std::string& what)
      : bias_(bias), segments_(segments), what_(what) {}

  // The run-time address of the d_ptr `value` of a table of `bytes` bytes, which must lie inside
  // the segments. glibc rebiases the addresses of a writable dynamic section in place, and leaves
  // a read-only one's at their link-time values: a value is taken as run-time when the table lies
  // inside the segments there, else as link-time. (The two agree when the bias is 0; otherwise a
  // link-time value is below the object's span, and a mapped object starts above it.)
  const char* Table(uint64_t value, uint64_t bytes, const char* table) const {
    const auto* as_is = reinterpret_cast<const char*>(static_cast<uintptr_t>(value));
    if (Inside(as_is, bytes)) return as_is;
    const auto* biased = reinterpret_cast<const char*>(bias_ + static_cast<uintptr_t>(value));
    AOTRT_REQUIRE(Inside(biased, bytes), kFormatError, what_, ": the dynamic section's ", table, " (address 0x",
                  Hex{value}, ", ", bytes, " bytes) lies outside the library's mapped segments");
    return biased;
  }

  // The T at `p`, which must lie inside the segments.
  template <typename T>
  T Read(const void* p, const char* field) const {
    AOTRT_REQUIRE(Inside(p, sizeof(T)), kFormatError, what_, ": ", field, " at ", p,
                  " lies outside the library's mapped segments");
    T v;
    std::memcpy(&v, p, sizeof v);
    return v;
  }

 private:
  bool Inside(const void* p, uint64_t bytes) const {
    return p != nullptr && bytes <= SIZE_MAX && segments_.ContainsReadable(p, static_cast<size_t>(bytes));
  }

  uintptr_t bias_;
  const AddressBounds& segments_;
  const std::string& what_;
};

struct DynamicTables {
  uint64_t symtab = 0, strtab = 0, strsz = 0, syment = sizeof(Elf64_Sym), hash = 0, gnu_hash = 0;
  // Relocation tables: RELA, REL, and the PLT's (either kind, by DT_PLTREL).
  uint64_t rela = 0, relasz = 0, rel = 0, relsz = 0, jmprel = 0, pltrelsz = 0, pltrel = DT_RELA;
};

// The dynamic entries read, and where each goes.
constexpr std::pair<Elf64_Sxword, uint64_t DynamicTables::*> kDynamicFields[] = {
    {DT_SYMTAB, &DynamicTables::symtab}, {DT_STRTAB, &DynamicTables::strtab},     {DT_STRSZ, &DynamicTables::strsz},
    {DT_SYMENT, &DynamicTables::syment}, {DT_HASH, &DynamicTables::hash},         {DT_GNU_HASH, &DynamicTables::gnu_hash},
    {DT_RELA, &DynamicTables::rela},     {DT_RELASZ, &DynamicTables::relasz},     {DT_REL, &DynamicTables::rel},
    {DT_RELSZ, &DynamicTables::relsz},   {DT_JMPREL, &DynamicTables::jmprel},     {DT_PLTRELSZ, &DynamicTables::pltrelsz},
    {DT_PLTREL, &DynamicTables::pltrel}};

DynamicTables ReadDynamicSection(const Elf64_Dyn* dynamic, const LoadedObject& object, const std::string& what) {
  DynamicTables t;
  for (size_t i = 0;; ++i) {
    AOTRT_REQUIRE(i < kMaxDynamicEntries, kFormatError, what, ": the dynamic section has no end within ",
                  kMaxDynamicEntries, " entries");
    auto d = object.Read<Elf64_Dyn>(dynamic + i, "dynamic section entry");
    if (d.d_tag == DT_NULL) break;
    for (const auto& [tag, field] : kDynamicFields) {
      if (d.d_tag == tag) t.*field = d.d_un.d_val;  // d_ptr and d_val share the union's 64 bits
    }
  }
  return t;
}

// One more than the largest symbol index of the relocations in the `bytes` bytes at `table`
// (entries of `entry_bytes`, Elf64_Rela or Elf64_Rel: r_info follows r_offset in both); 0 for none.
uint64_t RelocatedSymbolBound(uint64_t table, uint64_t bytes, uint64_t entry_bytes, const LoadedObject& object) {
  if (table == 0 || bytes == 0) return 0;
  const char* r = object.Table(table, bytes, "relocation table");
  uint64_t bound = 0;
  for (uint64_t at = 0; at + entry_bytes <= bytes; at += entry_bytes) {
    uint64_t info;
    std::memcpy(&info, r + at + 8, sizeof info);
    bound = std::max<uint64_t>(bound, ELF64_R_SYM(info) + 1);
  }
  return bound;
}

// The dynamic symbols any relocation names: when nothing is hashed, the only ones that can matter.
uint64_t RelocatedSymbolCount(const DynamicTables& t, const LoadedObject& object) {
  uint64_t plt_entry = t.pltrel == DT_REL ? sizeof(Elf64_Rel) : sizeof(Elf64_Rela);
  return std::max({RelocatedSymbolBound(t.rela, t.relasz, sizeof(Elf64_Rela), object),
                   RelocatedSymbolBound(t.rel, t.relsz, sizeof(Elf64_Rel), object),
                   RelocatedSymbolBound(t.jmprel, t.pltrelsz, plt_entry, object)});
}

// The number of dynamic symbols (index 0 included), from the hash table the dynamic linker looks
// them up with: DT_HASH holds it; DT_GNU_HASH holds the symbols from its symoffset on in chains
// ending with an odd hash value, and the largest bucket starts the last chain. An empty GNU hash
// table (a library that defines nothing) does not tell how many undefined symbols precede it:
// then the relocations do, as no other use of the library's symbols is possible.
uint64_t SymbolCount(const DynamicTables& t, const LoadedObject& object) {
  if (t.gnu_hash != 0) {
    const char* h = object.Table(t.gnu_hash, 16, "GNU hash table header");
    uint32_t header[4];  // nbuckets, symoffset, bloom words, bloom shift
    std::memcpy(header, h, sizeof header);
    const uint64_t buckets_at = 16 + uint64_t{header[2]} * 8;
    const uint64_t buckets_bytes = uint64_t{header[0]} * 4;
    const char* buckets = object.Table(t.gnu_hash + buckets_at, buckets_bytes, "GNU hash buckets");
    uint32_t last = 0;
    for (uint32_t b = 0; b < header[0]; ++b) {
      uint32_t v;
      std::memcpy(&v, buckets + 4 * uint64_t{b}, 4);
      last = std::max(last, v);
    }
    if (last < header[1]) return std::max<uint64_t>(header[1], RelocatedSymbolCount(t, object));  // nothing hashed
    const char* chains = buckets + buckets_bytes;  // entry k is symbol symoffset + k
    for (uint64_t k = last - header[1];; ++k) {
      if (object.Read<uint32_t>(chains + 4 * k, "GNU hash chain entry") & 1) return header[1] + k + 1;
    }
  }
  if (t.hash != 0) {
    const char* h = object.Table(t.hash, 8, "hash table header");
    uint32_t nchain;
    std::memcpy(&nchain, h + 4, 4);
    return nchain;
  }
  return 0;
}

}  // namespace

ElfDynamicSymbols ReadLoadedDynamicSymbols(const Elf64_Dyn* dynamic, uintptr_t bias, const AddressBounds& segments,
                                           const std::string& what) {
  LoadedObject object(bias, segments, what);
  DynamicTables t = ReadDynamicSection(dynamic, object, what);
  ElfDynamicSymbols out;
  if (t.symtab == 0 || t.strtab == 0) return out;
  AOTRT_REQUIRE(t.syment == sizeof(Elf64_Sym), kFormatError, what, ": unexpected dynamic symbol entry size ", t.syment);
  uint64_t count = SymbolCount(t, object);
  if (count <= 1) return out;
  AOTRT_REQUIRE(count <= SIZE_MAX / sizeof(Elf64_Sym), kFormatError, what, ": ", count, " dynamic symbols");
  const char* symbols = object.Table(t.symtab, count * sizeof(Elf64_Sym), "symbol table");
  const char* strings = object.Table(t.strtab, t.strsz, "string table");
  out.defined.reserve(static_cast<size_t>(count));
  for (uint64_t k = 1; k < count; ++k) {
    Elf64_Sym sym;
    std::memcpy(&sym, symbols + k * sizeof(Elf64_Sym), sizeof sym);
    if (sym.st_name == 0 || sym.st_name >= t.strsz) continue;
    const char* name = strings + sym.st_name;
    size_t room = static_cast<size_t>(t.strsz - sym.st_name);
    size_t length = strnlen(name, room);
    if (length < room) AddDynamicSymbol(std::string_view(name, length), sym, &out);  // unterminated: not a name
  }
  return out;
}

}  // namespace aotrt
