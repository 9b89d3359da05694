// ELF shared libraries: reading them (bounded) and opening them with dlopen.
#include "module/loader/shared_library.h"

#include <dlfcn.h>

#include <cerrno>
#include <cstring>
#include <functional>
#include <memory>
#include <string>
#include <utility>

#include "aotrt/half.h"
#include "base/error_util.h"
#include "base/logging.h"
#include "base/mapped_file.h"
#include "module/loader/address_bounds.h"
#include "module/loader/system_lib.h"
#include "module/model_contract.h"
#include "module/symbol_source.h"

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

// Every PT_LOAD segment lies inside the file of `size` bytes at `base` (dlopen maps segments past
// the end of a truncated file, and touching them raises SIGBUS).
void CheckElfSegments(const char* base, size_t size, const std::string& what) {
  Elf64_Ehdr eh = ReadElfHeader(base, size, what);
  AOTRT_REQUIRE(eh.e_phentsize == sizeof(Elf64_Phdr) || eh.e_phnum == 0, kFormatError, what,
                ": unexpected ELF program header size ", eh.e_phentsize);
  const uint64_t table_bytes = uint64_t{eh.e_phnum} * sizeof(Elf64_Phdr);
  AOTRT_REQUIRE(eh.e_phnum == 0 || (eh.e_phoff <= size && table_bytes <= size - eh.e_phoff), kFormatError, what,
                ": ELF program headers at offset ", eh.e_phoff, " (", eh.e_phnum, " of them) lie outside the ", size,
                "-byte file");
  for (uint64_t i = 0; i < eh.e_phnum; ++i) {
    auto ph = ReadElfAt<Elf64_Phdr>(base, size, eh.e_phoff + i * sizeof(Elf64_Phdr), what, "program header");
    if (ph.p_type != PT_LOAD) continue;
    AOTRT_REQUIRE(ph.p_offset <= size && ph.p_filesz <= size - ph.p_offset, kFormatError, what, ": ELF segment ", i,
                  " (PT_LOAD) covers file bytes [", ph.p_offset, ", ", ph.p_offset + ph.p_filesz,
                  ") but the file has only ", size, " bytes: the file is truncated");
    AOTRT_REQUIRE(ph.p_filesz <= ph.p_memsz, kFormatError, what, ": ELF segment ", i, " (PT_LOAD) has ", ph.p_filesz,
                  " file bytes but only ", ph.p_memsz, " bytes in memory");
  }
}

}  // namespace

void ForEachElfSymbol(const void* data, size_t size, const std::string& what, uint32_t section_type,
                      const std::function<void(std::string_view, const Elf64_Sym&)>& visit) {
  const char* base = static_cast<const char*>(data);
  Elf64_Ehdr eh = ReadElfHeader(base, size, what);
  if (eh.e_shnum == 0) return;  // no section headers: no symbols listed
  AOTRT_REQUIRE(eh.e_shentsize == sizeof(Elf64_Shdr), kFormatError, what, ": unexpected ELF section header size ",
                eh.e_shentsize);
  const uint64_t sections_size = uint64_t{eh.e_shnum} * sizeof(Elf64_Shdr);
  const char* sections = ElfBytesAt(base, size, eh.e_shoff, sections_size, what, "section header");
  for (uint64_t i = 0; i < eh.e_shnum; ++i) {
    auto sh = ReadElfAt<Elf64_Shdr>(sections, sections_size, i * sizeof(Elf64_Shdr), what, "section header");
    if (sh.sh_type != section_type) continue;
    AOTRT_REQUIRE(sh.sh_link < eh.e_shnum, kFormatError, what, ": symbol table links to section ", sh.sh_link,
                  " of ", eh.e_shnum);
    auto strtab = ReadElfAt<Elf64_Shdr>(sections, sections_size, sh.sh_link * sizeof(Elf64_Shdr), what, "section header");
    const char* strings = ElfBytesAt(base, size, strtab.sh_offset, strtab.sh_size, what, "symbol string table");
    const char* symbols = ElfBytesAt(base, size, sh.sh_offset, sh.sh_size, what, "symbol table");
    for (uint64_t k = 1; k < sh.sh_size / sizeof(Elf64_Sym); ++k) {
      auto sym = ReadElfAt<Elf64_Sym>(symbols, sh.sh_size, k * sizeof(Elf64_Sym), what, "symbol");
      if (sym.st_name == 0 || sym.st_name >= strtab.sh_size) continue;
      const char* name = strings + sym.st_name;
      size_t length = strnlen(name, strtab.sh_size - sym.st_name);
      if (length < strtab.sh_size - sym.st_name) visit(std::string_view(name, length), sym);  // unterminated: not a name
    }
  }
}

ElfDynamicSymbols ReadElfDynamicSymbols(const void* data, size_t size, const std::string& what) {
  ElfDynamicSymbols out;
  ForEachElfSymbol(data, size, what, SHT_DYNSYM, [&out](std::string_view name, const Elf64_Sym& sym) {
    if (sym.st_shndx != SHN_UNDEF) {
      out.defined.push_back({name, sym.st_size});
    } else if (ELF64_ST_BIND(sym.st_info) != STB_WEAK) {  // weak references may stay unresolved (null)
      out.undefined.push_back(name);
    }
  });
  return out;
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

namespace {

// The processor this library runs on: e_machine of its own ELF header, mapped at its base address
// (0 when dladdr cannot say: nothing checked).
uint16_t HostMachine() {
  static const uint16_t machine = [] {
    Dl_info self{};
    bool found = ::dladdr(reinterpret_cast<void*>(&HostMachine), &self) && self.dli_fbase;
    return found ? static_cast<const Elf64_Ehdr*>(self.dli_fbase)->e_machine : uint16_t{0};
  }();
  return machine;
}

std::string MachineName(uint16_t m) {
  static const std::pair<uint16_t, const char*> kNames[] = {
      {EM_X86_64, "x86-64 (EM_X86_64)"}, {EM_AARCH64, "AArch64 (EM_AARCH64)"}, {EM_386, "32-bit x86 (EM_386)"},
      {EM_ARM, "32-bit Arm (EM_ARM)"},   {EM_RISCV, "RISC-V (EM_RISCV)"},     {EM_PPC64, "64-bit POWER (EM_PPC64)"},
      {EM_S390, "IBM Z (EM_S390)"}};
  for (const auto& [machine, name] : kNames) {
    if (machine == m) return name;
  }
  return "processor number " + std::to_string(m) + " (e_machine)";
}

// Checks e_machine of the ELF file whose first `size` bytes are at `head` against this library's
// processor; bytes that are not ELF are left to the other checks.
void CheckElfMachine(const char* head, size_t size, const std::string& what) {
  // e_machine: bytes 18-19 in ELF32 and ELF64 alike, in the file's byte order.
  if (size < 20 || std::memcmp(head, ELFMAG, SELFMAG) != 0 || HostMachine() == 0) return;
  const bool known = (head[EI_CLASS] == ELFCLASS32 || head[EI_CLASS] == ELFCLASS64) &&
                     (head[EI_DATA] == ELFDATA2LSB || head[EI_DATA] == ELFDATA2MSB);
  if (!known) return;  // a class or byte order ELF does not define: not ELF enough to name a processor
  const auto* b = reinterpret_cast<const unsigned char*>(head);
  uint16_t m = head[EI_DATA] == ELFDATA2MSB ? uint16_t(b[18] << 8 | b[19]) : uint16_t(b[19] << 8 | b[18]);
  AOTRT_REQUIRE(m == HostMachine(), kFormatError, what, " was built for ", MachineName(m), "; this process runs on ",
                MachineName(HostMachine()), ": export the model for this processor, or run it on one it was built for");
}

}  // namespace

void CheckElfObjectFile(const std::string& path, const std::string& what) {
  MappedFile file(path, what);
  CheckElfMachine(static_cast<const char*>(file.data()), file.size(), what);
}

void CheckSharedLibraryFile(const MappedFile& file, const std::string& what) {
  CheckElfMachine(static_cast<const char*>(file.data()), file.size(), what);
  CheckElfSegments(static_cast<const char*>(file.data()), file.size(), what);
}

namespace {

bool StartsWith(const std::string& s, const char* prefix) { return s.rfind(prefix, 0) == 0; }

// libm functions TVM's code generators call (float, double and long double forms).
bool IsMathFunction(const std::string& s) {
  static const char* const kNames[] = {
      "exp", "exp2", "exp10", "expm1", "log", "log2", "log10", "log1p", "pow", "sqrt", "cbrt", "hypot",
      "sin", "cos", "tan", "asin", "acos", "atan", "atan2", "sinh", "cosh", "tanh", "asinh", "acosh",
      "atanh", "erf", "erfc", "lgamma", "tgamma", "floor", "ceil", "round", "trunc", "rint", "nearbyint",
      "fmod", "remainder", "fma", "fmin", "fmax", "fabs", "copysign", "ldexp", "frexp", "modf", "nextafter",
      "sincos", "lround", "llround", "lrint", "llrint"};
  for (const char* n : kNames) {
    size_t len = std::strlen(n);
    if (s.compare(0, len, n) == 0 && (s.size() == len || (s.size() == len + 1 && (s[len] == 'f' || s[len] == 'l')))) {
      return true;
    }
  }
  return false;
}

// What usually provides a symbol a model library leaves undefined, e.g. for `expf`: "the C math
// library (libm.so.6): link the model with -lm". A guess from the name, for the message only.
std::string SymbolProviderHint(const std::string& s) {
  if (StartsWith(s, "TVM")) {
    return "a TVM runtime function that aotrt does not provide (the model may need a newer or extended runtime)";
  }
  if (s == "__gnu_f2h_ieee" || s == "__gnu_h2f_ieee" || s == "__truncdfhf2" || s == "__extendhfsf2" ||
      s == "__truncsfhf2" || StartsWith(s, "__truncxfhf") || StartsWith(s, "__extendhf")) {
    return "a float16 conversion helper from the TVM runtime or compiler-rt";
  }
  if (IsMathFunction(s)) return "the C math library (libm.so.6): link the model with -lm";
  if (StartsWith(s, "__kmpc_") || StartsWith(s, "omp_") || StartsWith(s, "GOMP_")) {
    return "an OpenMP runtime (libomp or libgomp): the model was built for TVM with OpenMP";
  }
  if (StartsWith(s, "_Z") || StartsWith(s, "__cxa_")) return "the C++ runtime (libstdc++ or libc++)";
  if (StartsWith(s, "__") && s.find("_chk") != std::string::npos) return "the C library (a newer glibc)";
  return "a library the model was built against but does not list as needed (check how it was linked: "
         "`readelf -d` shows its NEEDED libraries), or the application that was meant to load it";
}

// Models call the float16 helpers, aotrt never does: this reference pulls backend/half.o out of the
// static library into every application that loads models (its loader runs this check); linked
// with -rdynamic, the application then exports them.
__attribute__((used)) void* const kHalfHelpers[] = {reinterpret_cast<void*>(&__gnu_f2h_ieee),
                                                    reinterpret_cast<void*>(&__gnu_h2f_ieee),
                                                    reinterpret_cast<void*>(&__truncdfhf2)};

// Whether aotrt itself defines `name` (then a failure to resolve it is a visibility problem).
bool DefinedByAotrt(const std::string& name) {
  Dl_info info{};
  if (!::dladdr(reinterpret_cast<void*>(&DefinedByAotrt), &info) || !info.dli_fname) return false;
  void* self = ::dlopen(info.dli_fname, RTLD_LAZY | RTLD_NOLOAD);
  if (!self) return false;
  bool found = ::dlsym(self, name.c_str()) != nullptr;
  ::dlclose(self);
  return found;
}

// Each symbol is looked up in the scope the dynamic linker will use for it: the global scope (the
// handle of the main program searches the executable, its libraries and every RTLD_GLOBAL load,
// without the bias of dlsym(RTLD_DEFAULT), which also searches the caller's own dependencies), then
// the library's own dependency tree (dlsym on its handle, which does not search the global scope).
void* GlobalScopeHandle() {
  static void* const global = ::dlopen(nullptr, RTLD_LAZY);
  return global;
}

class SharedLibrary : public SymbolSource {
 public:
  SharedLibrary(void* handle, std::string name, std::unique_ptr<MappedFile> file, ElfDynamicSymbols symbols,
                AddressBounds segments, std::string source_file)
      : handle_(handle), name_(std::move(name)), file_(std::move(file)), symbols_(std::move(symbols)),
        segments_(std::move(segments)), source_file_(std::move(source_file)) {}
  ~SharedLibrary() override { ::dlclose(handle_); }
  void* Lookup(const std::string& name) const override { return ::dlsym(handle_, name.c_str()); }
  uint64_t SymbolSize(const std::string& name) const override {
    const ElfSymbol* s = symbols_.FindDefined(name);
    return s ? s->size : 0;
  }
  AddressBounds Segments() const override { return segments_; }
  const std::string& name() const override { return name_; }
  const void* identity() const override { return handle_; }
  const ElfDynamicSymbols* dynamic_symbols() const override { return &symbols_; }
  std::string source_file() const override { return source_file_; }

 private:
  void* handle_;
  std::string name_;
  std::unique_ptr<MappedFile> file_;  // the library's file, read-only
  ElfDynamicSymbols symbols_;  // views into file_
  AddressBounds segments_;  // fixed while the library is loaded
  std::string source_file_;
};

// The address of a symbol the library itself defines (dlsym on a handle searches the library
// before its dependencies), or nullptr. Sized ones only: linkers' markers (_edata, _end) may lie
// just past a segment. A file without section headers lists no symbols: the names every model
// library defines stand in.
const void* OwnSymbol(void* handle, const ElfDynamicSymbols& symbols) {
  for (const ElfSymbol& s : symbols.defined) {
    if (s.size == 0) continue;
    if (void* p = ::dlsym(handle, s.name.data())) return p;
  }
  for (const char* name : {contract::kModuleBlob, contract::kModuleContext, contract::kGetCMetadata}) {
    if (void* p = ::dlsym(handle, name)) return p;
  }
  return nullptr;
}

// Make libaotrt's own exported symbols (TVMBackend*, the float16 helpers) globally visible, as
// TVM's Python does by loading its runtime RTLD_GLOBAL, so models resolve them against us. Done
// before the first model is opened whatever the caller did: dlsym(RTLD_DEFAULT) from inside
// libaotrt would find its own symbols even when the library was loaded RTLD_LOCAL, and a model
// would not. Promoting an object also promotes its dependencies (glibc add_to_global).
//
// Nothing to do when the object holding libaotrt is in the global scope already (linked into the
// program, or loaded RTLD_GLOBAL): the global lookup of one of its own exports lands in it.
void PromoteSelfToGlobalScopeOnce() {
  void* global = GlobalScopeHandle();
  void* found = global ? ::dlsym(global, "TVMBackendAllocWorkspace") : nullptr;
  ::dlerror();
  Dl_info mine{}, theirs{};
  if (!::dladdr(reinterpret_cast<void*>(&PromoteSelfToGlobalScopeOnce), &mine) || !mine.dli_fname) return;
  if (found && ::dladdr(found, &theirs) && mine.dli_fbase == theirs.dli_fbase) return;
  void* h = ::dlopen(mine.dli_fname, RTLD_LAZY | RTLD_NOLOAD | RTLD_GLOBAL);
  if (h) ::dlclose(h);  // drops the extra reference; the promotion stays
}

}  // namespace

void CheckUndefinedSymbolsResolve(void* handle, const ElfDynamicSymbols& syms, const std::string& what) {
  void* global = GlobalScopeHandle();
  std::string missing;
  size_t count = 0;
  for (std::string_view name : syms.undefined) {
    const char* s = name.data();  // NUL-terminated in place (ElfSymbol)
    if ((global && ::dlsym(global, s)) || ::dlsym(handle, s)) continue;
    std::string hint = DefinedByAotrt(s)
                           ? "defined by aotrt but not visible in the process's global scope: link the application "
                             "against libaotrt (with -rdynamic when linking the static library) or dlopen "
                             "libaotrt.so with RTLD_GLOBAL"
                           : SymbolProviderHint(s);
    missing += StrCat(count ? "; " : "", s, " (", hint, ")");
    ++count;
  }
  ::dlerror();  // the failed lookups leave messages behind
  if (count == 0) return;
  AOTRT_THROW(kNotFound, what, " needs ", count == 1 ? "a symbol" : StrCat(count, " symbols"),
              " that nothing in the process provides, so it cannot run (its first call would end the process): ",
              missing);
}

std::shared_ptr<SymbolSource> OpenSharedLibrary(const std::string& path, const std::string& display_name,
                                                bool is_source_file) {
  auto file = std::make_unique<MappedFile>(path, display_name);  // read-only, for the checks and the symbols
  CheckSharedLibraryFile(*file, display_name);
  static const bool promoted = (PromoteSelfToGlobalScopeOnce(), true);
  (void)promoted;
  ::dlerror();
  // A name without a slash would be searched for in the library path, not the working directory.
  std::string file_name = path.find('/') == std::string::npos ? "./" + path : path;
  bool outer = std::exchange(t_ignore_system_lib_registrations, true);  // its constructors run inside dlopen
  void* handle = ::dlopen(file_name.c_str(), RTLD_LAZY | RTLD_LOCAL);
  t_ignore_system_lib_registrations = outer;
  if (!handle) {
    const char* err = ::dlerror();
    // glibc reports its own allocation failures as a load failure: keep them out-of-memory errors.
    bool oom = err && ::strcasestr(err, "cannot allocate memory");
    throw Error(oom ? ErrorCode::kOutOfMemory : ErrorCode::kIOError,
                StrCat("Failed to load dynamic shared library ", display_name, ": ", err ? err : "unknown error"));
  }
  // Closed again if anything below throws (a missing symbol, out of memory).
  std::unique_ptr<void, int (*)(void*)> owned(handle, ::dlclose);
  // The library's dynamic symbols, from its file; its segments, from the dynamic linker.
  ElfDynamicSymbols syms;
  try {
    syms = ReadElfDynamicSymbols(file->data(), file->size(), display_name);
  } catch (const Error& e) {
    // Section headers are for tools, not the dynamic linker: a file cut after its segments loads,
    // as one without section headers does, with no symbols listed (none checked).
    if (e.code() != ErrorCode::kFormatError) throw;
    AOTRT_LOG_DEBUG(display_name, ": no symbol table read (", e.what(), "); its symbols are not checked");
  }
  ::dlerror();
  AddressBounds segments = AddressBounds::OfObjectContaining(OwnSymbol(handle, syms));
  ::dlerror();  // the failed lookups leave messages behind
  CheckUndefinedSymbolsResolve(handle, syms, display_name);
  AOTRT_LOG_DEBUG("loaded ", display_name, " (", syms.defined.size(), " dynamic symbols)");
  auto lib = std::make_shared<SharedLibrary>(handle, display_name, std::move(file), std::move(syms),
                                             std::move(segments), is_source_file ? path : std::string());
  owned.release();  // the SharedLibrary closes it now
  return lib;
}

}  // namespace aotrt
