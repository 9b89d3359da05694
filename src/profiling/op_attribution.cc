#include "profiling/op_attribution.h"

#include <dlfcn.h>
#include <elf.h>
#include <link.h>
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <fstream>
#include <map>

#include "base/error_util.h"
#include "base/mapped_file.h"
#include "module/loader/shared_library.h"
#include "module/model_contract.h"

namespace aotrt {
namespace profiling_internal {
namespace {

// The sized function symbols of every section of `type`, as run-time addresses.
std::vector<CodeSymbol> FunctionSymbols(const char* base, size_t size, uint32_t type, const std::string& what,
                                        uintptr_t bias) {
  std::vector<CodeSymbol> out;
  ForEachElfSymbol(base, size, what, type, [&out, bias](std::string_view name, const Elf64_Sym& sym) {
    if (ELF64_ST_TYPE(sym.st_info) != STT_FUNC || sym.st_shndx == SHN_UNDEF || sym.st_size == 0) return;
    uintptr_t start = bias + sym.st_value;
    out.push_back({start, start + sym.st_size, std::string(name)});
  });
  return out;
}

// Sorted by start; a symbol starting inside the one kept before it (an alias) is dropped.
std::vector<CodeSymbol> SortedDisjoint(std::vector<CodeSymbol> syms) {
  std::sort(syms.begin(), syms.end(), [](const CodeSymbol& a, const CodeSymbol& b) {
    return a.start != b.start ? a.start < b.start : a.end > b.end;
  });
  std::vector<CodeSymbol> out;
  for (CodeSymbol& s : syms) {
    if (!out.empty() && s.start < out.back().end) continue;
    out.push_back(std::move(s));
  }
  return out;
}

// `path`, or /proc/self/map_files/<start>-<end> of a mapping of it when the file was deleted after
// it was loaded (as the object linker does with the library it links).
std::string ModelFilePath(const std::string& path) {
  if (::access(path.c_str(), F_OK) == 0) return path;
  std::ifstream maps("/proc/self/maps");
  std::string line;
  while (std::getline(maps, line)) {
    size_t slash = line.find('/');
    if (slash == std::string::npos) continue;
    std::string name = line.substr(slash);
    if (name == path || name == path + " (deleted)") return "/proc/self/map_files/" + line.substr(0, line.find(' '));
  }
  return path;
}

// "[unnamed code model.so+0x2330..0x9ea0]": the gap between the symbols around `pc`.
std::string UnnamedRange(const CodeMap& code, uintptr_t pc) {
  const auto& syms = code.symbols();
  auto it = std::upper_bound(syms.begin(), syms.end(), pc, [](uintptr_t v, const CodeSymbol& s) { return v < s.start; });
  uintptr_t lo = it == syms.begin() ? (pc & ~uintptr_t{4095}) : std::prev(it)->end;  // no symbol: its 4 KiB page
  uintptr_t hi = it == syms.end() ? ((pc | 4095) + 1) : it->start;
  uintptr_t bias = code.load_bias();
  return StrCat("[unnamed code ", code.path().substr(code.path().find_last_of('/') + 1),  // npos + 1: all of it
                "+0x", Hex{lo - bias}, "..0x", Hex{hi - bias}, "]");
}

}  // namespace

CodeMap CodeMap::FromElf(const void* data, size_t size, const std::string& what, uintptr_t load_bias) {
  const char* base = static_cast<const char*>(data);
  Elf64_Ehdr eh = ReadElfHeader(base, size, what);
  AOTRT_REQUIRE((eh.e_shentsize == sizeof(Elf64_Shdr) || eh.e_shnum == 0) &&
                    (eh.e_phentsize == sizeof(Elf64_Phdr) || eh.e_phnum == 0),
                kFormatError, what, ": unexpected ELF header entry sizes");
  CodeMap map;
  map.path_ = what;
  map.load_bias_ = load_bias;
  map.symbols_ = FunctionSymbols(base, size, SHT_SYMTAB, what, load_bias);
  map.table_ = ".symtab";
  if (map.symbols_.empty()) {
    map.symbols_ = FunctionSymbols(base, size, SHT_DYNSYM, what, load_bias);
    map.table_ = map.symbols_.empty() ? "" : ".dynsym";
  }
  // PLT stubs have no sized symbols: one line for them, which attribution counts as the
  // runtime's (they only jump into it).
  if (eh.e_shstrndx != SHN_UNDEF && eh.e_shstrndx < eh.e_shnum) {
    auto names = ReadElfAt<Elf64_Shdr>(base, size, eh.e_shoff + eh.e_shstrndx * sizeof(Elf64_Shdr), what, "section header");
    for (uint64_t i = 0; i < eh.e_shnum; ++i) {
      auto sh = ReadElfAt<Elf64_Shdr>(base, size, eh.e_shoff + i * sizeof(Elf64_Shdr), what, "section header");
      if (sh.sh_size == 0 || names.sh_offset > size || sh.sh_name >= names.sh_size ||
          names.sh_size > size - names.sh_offset) {
        continue;
      }
      const char* n = base + names.sh_offset + sh.sh_name;
      std::string name(n, strnlen(n, names.sh_size - sh.sh_name));
      if (name == ".plt" || name == ".plt.got" || name == ".plt.sec") {
        map.symbols_.push_back({load_bias + sh.sh_addr, load_bias + sh.sh_addr + sh.sh_size, kPltSymbol});
      }
    }
  }
  map.symbols_ = SortedDisjoint(std::move(map.symbols_));
  for (uint64_t i = 0; i < eh.e_phnum; ++i) {
    auto ph = ReadElfAt<Elf64_Phdr>(base, size, eh.e_phoff + i * sizeof(Elf64_Phdr), what, "program header");
    if (ph.p_type == PT_LOAD && (ph.p_flags & PF_X)) {
      map.code_.push_back({load_bias + ph.p_vaddr, load_bias + ph.p_vaddr + ph.p_memsz});
    }
  }
  return map;
}

CodeMap CodeMap::ForAddress(const void* address) {
  Dl_info info;
  struct link_map* lm = nullptr;
  AOTRT_REQUIRE(address && ::dladdr1(address, &info, reinterpret_cast<void**>(&lm), RTLD_DL_LINKMAP) != 0 && lm,
                kNotFound, "operator profile: the model's code at ", address,
                " lies in no loaded object (a model linked from objects in memory cannot be profiled)");
  // The main program has an empty name.
  std::string path = (lm->l_name && lm->l_name[0]) ? lm->l_name : "/proc/self/exe";
  MappedFile file(ModelFilePath(path), "operator profile: the model library " + path);
  return FromElf(file.data(), file.size(), path, static_cast<uintptr_t>(lm->l_addr));
}

const CodeSymbol* CodeMap::Find(uintptr_t pc) const {
  auto it = std::upper_bound(symbols_.begin(), symbols_.end(), pc,
                             [](uintptr_t v, const CodeSymbol& s) { return v < s.start; });
  if (it == symbols_.begin()) return nullptr;
  --it;
  return pc < it->end ? &*it : nullptr;
}

bool CodeMap::Contains(uintptr_t pc) const {
  return std::any_of(code_.begin(), code_.end(), [pc](const Range& r) { return pc >= r.start && pc < r.end; });
}

std::string OperatorName(const std::string& symbol, const std::string& symbol_prefix) {
  std::string name = symbol;
  std::string prefix = symbol_prefix + "_";
  if (!symbol_prefix.empty() && name.compare(0, prefix.size(), prefix) == 0) name = name.substr(prefix.size());
  if (EndsWith(name, "_compute_") && name.size() > 9) name.resize(name.size() - 9);
  return name;
}

double WilsonHalfWidth95(uint64_t k, uint64_t n) {
  if (n == 0) return 0;
  const double z = 1.959963984540054;
  double nn = static_cast<double>(n), p = static_cast<double>(k) / nn;
  double denom = 1 + z * z / nn;
  double center = (p + z * z / (2 * nn)) / denom;
  double half = z * std::sqrt(p * (1 - p) / nn + z * z / (4 * nn * nn)) / denom;
  // The interval is not symmetric around p: report the larger distance from p.
  return 100.0 * std::max(center + half - p, p - (center - half));
}

void AttributeSamples(const CodeMap& code, const std::vector<PcSample>& samples, const std::string& symbol_prefix,
                      OperatorProfile* profile) {
  struct Line {
    std::string symbol;
    uint64_t samples = 0;
  };
  std::map<std::string, Line> lines;  // by name
  uint64_t outside = 0, glue = 0;
  for (const PcSample& s : samples) {
    uintptr_t pc = s.launch_caller ? s.launch_caller : s.pc;
    bool in_code = code.Contains(pc);
    const CodeSymbol* sym = in_code ? code.Find(pc) : nullptr;
    std::string name = sym ? OperatorName(sym->name, symbol_prefix) : in_code ? UnnamedRange(code, pc) : "";
    bool entry = sym && (name == contract::kMainAlias || EndsWith(sym->name, contract::kEntrySuffix));
    if (!in_code || (sym && sym->name == kPltSymbol) || entry) {  // the runtime, a jump into it, the entry's glue
      ++outside;
      glue += entry;
      continue;
    }
    Line& line = lines[name];
    if (sym && (line.symbol.empty() || !EndsWith(sym->name, "_compute_"))) line.symbol = sym->name;
    ++line.samples;
  }
  uint64_t n = samples.size();
  auto make = [&](std::string name, std::string symbol, uint64_t k) {
    double percent = n ? 100.0 * static_cast<double>(k) / static_cast<double>(n) : 0;
    return OperatorCost{std::move(name), std::move(symbol), k, percent, WilsonHalfWidth95(k, n),
                        percent / 100.0 * profile->run_ms, ""};
  };
  profile->samples = n;
  profile->operators.clear();
  for (auto& [name, line] : lines) profile->operators.push_back(make(name, line.symbol, line.samples));
  std::stable_sort(profile->operators.begin(), profile->operators.end(),
                   [](const OperatorCost& a, const OperatorCost& b) { return a.samples > b.samples; });
  profile->outside = make("(outside operators: runtime, entry glue)", "", outside);
  profile->glue_samples = glue;
}

}  // namespace profiling_internal
}  // namespace aotrt
