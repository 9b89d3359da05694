// Opening model libraries with dlopen, with checks that turn every failure into a clear error.
#include "module/loader/shared_library.h"

#include <dlfcn.h>

#include <cstring>
#include <memory>

#include "aotrt/half.h"
#include "base/error_util.h"
#include "base/logging.h"
#include "base/mapped_file.h"
#include "module/loader/elf_file.h"
#include "module/loader/elf_symbols.h"
#include "module/loader/symbol_hints.h"
#include "module/loader/system_lib.h"
#include "module/model_contract.h"
#include "module/symbol_source.h"

namespace aotrt {
namespace {

// Models call the float16 helpers, aotrt never does: this reference pulls backend/half.o out of the
// static library into every application that loads models (its loader runs this check); linked
// with -rdynamic, the application then exports them.
__attribute__((used)) void* const kHalfHelpers[] = {reinterpret_cast<void*>(&__gnu_f2h_ieee),
                                                    reinterpret_cast<void*>(&__gnu_h2f_ieee),
                                                    reinterpret_cast<void*>(&__truncdfhf2)};

// Whether aotrt itself defines `name` (then a failure to resolve it is a visibility problem).
bool DefinedByAotrt(const std::string& name) {
  Dl_info info{};
  if (!::dladdr(reinterpret_cast<void*>(&SymbolProviderHint), &info) || !info.dli_fname) return false;
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
bool SelfInGlobalScope() {
  void* global = GlobalScopeHandle();
  void* found = global ? ::dlsym(global, "TVMBackendAllocWorkspace") : nullptr;
  ::dlerror();
  Dl_info mine{}, theirs{};
  return found && ::dladdr(reinterpret_cast<void*>(&SelfInGlobalScope), &mine) && ::dladdr(found, &theirs) &&
         mine.dli_fbase == theirs.dli_fbase;
}

void PromoteSelfToGlobalScopeOnce() {
  if (SelfInGlobalScope()) return;
  Dl_info info{};
  if (::dladdr(reinterpret_cast<void*>(&PromoteSelfToGlobalScopeOnce), &info) && info.dli_fname) {
    void* h = ::dlopen(info.dli_fname, RTLD_LAZY | RTLD_NOLOAD | RTLD_GLOBAL);
    if (h) ::dlclose(h);  // drops the extra reference; the promotion stays
  }
}

void PromoteSelfToGlobalScope() {
  static const bool done = (PromoteSelfToGlobalScopeOnce(), true);
  (void)done;
}

}  // namespace

void CheckUndefinedSymbolsResolve(void* handle, const ElfDynamicSymbols& syms, const std::string& what) {
  void* global = GlobalScopeHandle();
  std::string missing;
  size_t count = 0;
  for (std::string_view name : syms.undefined) {
    const char* s = name.data();  // NUL-terminated in place (elf_symbols.h)
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
  CheckSharedLibraryFile(path, display_name);
  PromoteSelfToGlobalScope();
  ::dlerror();
  void* handle = nullptr;
  {
    IgnoreSystemLibRegistrations loading_as_module;  // its constructors run inside dlopen
    // A name without a slash would be searched for in the library path, not the working directory.
    std::string file = path.find('/') == std::string::npos ? "./" + path : path;
    handle = ::dlopen(file.c_str(), RTLD_LAZY | RTLD_LOCAL);
  }
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
  auto file = std::make_unique<MappedFile>(path, display_name);
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
