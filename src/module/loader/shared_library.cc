// Opening model libraries with dlopen, with checks that turn every failure into a clear error.
#include <dlfcn.h>
#include <link.h>

#include <cstring>
#include <memory>

#include "base/error_util.h"
#include "base/logging.h"
#include "module/loader/elf_file.h"
#include "module/loader/loaded_dynamic_symbols.h"
#include "module/loader/symbol_check.h"
#include "module/symbol_source.h"

namespace aotrt {
namespace {

class SharedLibrary : public SymbolSource {
 public:
  SharedLibrary(void* handle, std::string name, AddressBounds segments, ElfDynamicSymbols symbols,
                std::string source_file)
      : handle_(handle), name_(std::move(name)), symbols_(std::move(symbols)), segments_(std::move(segments)),
        source_file_(std::move(source_file)) {}
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
  ElfDynamicSymbols symbols_;  // views into the library's string table: valid while handle_ is open
  AddressBounds segments_;  // fixed while the library is loaded
  std::string source_file_;
};

struct LoadedDynamicSection {
  const ElfW(Dyn)* section = nullptr;  // null when dlinfo fails
  uintptr_t bias = 0;
};

// The dynamic section and load bias of the library behind `handle`, from its link map. Not seen
// by ThreadSanitizer: the link map is written by another thread's dlopen of the same file when
// that one loaded it first, and the dynamic linker's lock, which orders that write before this
// dlopen returned, is invisible to it (a false report of a race otherwise).
__attribute__((no_sanitize("thread"))) LoadedDynamicSection DynamicSectionOf(void* handle) {
  link_map* map = nullptr;
  if (::dlinfo(handle, RTLD_DI_LINKMAP, &map) != 0 || map == nullptr) return {};
  return {map->l_ld, static_cast<uintptr_t>(map->l_addr)};
}

// Make libaotrt's own exported symbols (TVMBackend*, the float16 helpers) globally visible, as
// TVM's Python does by loading its runtime RTLD_GLOBAL, so models resolve them against us. Done
// before the first model is opened whatever the caller did: dlsym(RTLD_DEFAULT) from inside
// libaotrt would find its own symbols even when the library was loaded RTLD_LOCAL, and a model
// would not. Promoting an object also promotes its dependencies (glibc add_to_global).
//
// Nothing to do when the object holding libaotrt is in the global scope already (linked into the
// program, or loaded RTLD_GLOBAL): the global lookup of one of its own exports lands in it. That
// check costs a hash lookup; the promoting dlopen costs a walk of libaotrt's whole dependency tree
// (glibc builds the search list of an object first opened by name), about 40 us of a model load
// on a hit, paid by every process.
bool SelfInGlobalScope() {
  void* global = GlobalScopeHandle();
  if (!global) return false;
  void* found = ::dlsym(global, "TVMBackendAllocWorkspace");
  ::dlerror();
  if (!found) return false;
#ifdef DLFO_EH_SEGMENT_TYPE  // glibc 2.35 and later: a lock-free lookup
  dl_find_object mine{}, theirs{};
  return ::_dl_find_object(reinterpret_cast<void*>(&SelfInGlobalScope), &mine) == 0 &&
         ::_dl_find_object(found, &theirs) == 0 && mine.dlfo_link_map == theirs.dlfo_link_map;
#else
  Dl_info mine{}, theirs{};
  return ::dladdr(reinterpret_cast<void*>(&SelfInGlobalScope), &mine) && ::dladdr(found, &theirs) &&
         mine.dli_fbase == theirs.dli_fbase;
#endif
}

void PromoteSelfToGlobalScopeOnce() {
  if (SelfInGlobalScope()) return;
  Dl_info info{};
  if (::dladdr(reinterpret_cast<void*>(&PromoteSelfToGlobalScopeOnce), &info) && info.dli_fname) {
    void* h = ::dlopen(info.dli_fname, RTLD_LAZY | RTLD_NOLOAD | RTLD_GLOBAL);
    if (h) ::dlclose(h);  // drops the extra reference; the promotion stays
  }
}

// A function-local static rather than std::call_once: the guard it takes is bound already, while
// the first std::call_once of a process binds and faults in libstdc++'s and libc's once machinery
// (about 8 us of a load on a hit).
void PromoteSelfToGlobalScope() {
  static const bool done = (PromoteSelfToGlobalScopeOnce(), true);
  (void)done;
}

}  // namespace

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
  // The library's segments and symbols, from its own mapping: its dynamic section lies in one of
  // its segments, and the link map names both.
  LoadedDynamicSection dynamic = DynamicSectionOf(handle);
  if (dynamic.section == nullptr) {
    const char* err = ::dlerror();
    AOTRT_THROW(kIOError, display_name, ": the dynamic linker gives no dynamic section for it: ",
                err ? err : "no link map");
  }
  AddressBounds segments = AddressBounds::OfObjectContaining(dynamic.section, dynamic.bias);
  ElfDynamicSymbols syms = ReadLoadedDynamicSymbols(dynamic.section, dynamic.bias, segments, display_name);
  CheckUndefinedSymbolsResolve(handle, syms, display_name);
  AOTRT_LOG_DEBUG("loaded ", display_name, " (", syms.defined.size(), " dynamic symbols)");
  auto lib = std::make_shared<SharedLibrary>(handle, display_name, std::move(segments), std::move(syms),
                                             is_source_file ? path : std::string());
  owned.release();  // the SharedLibrary closes it now
  return lib;
}

}  // namespace aotrt
