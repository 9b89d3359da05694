// Opening model libraries with dlopen, with checks that turn every failure into a clear error.
#include <dlfcn.h>
#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <mutex>

#include "base/error_util.h"
#include "base/logging.h"
#include "module/elf_symbols.h"
#include "module/symbol_hints.h"
#include "module/symbol_source.h"

namespace aotrt {
namespace {

// A read-only mapping of a whole file, unmapped on destruction.
class MappedFile {
 public:
  explicit MappedFile(const std::string& path, const std::string& what) {
    int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
    if (fd < 0) {
      int err = errno;
      if (err == ENOENT) AOTRT_THROW(kNotFound, what, ": no such file");
      AOTRT_THROW(kIOError, what, ": cannot open: ", std::strerror(err));
    }
    struct stat st {};
    if (::fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
      ::close(fd);
      AOTRT_THROW(kIOError, what, ": not a regular file");
    }
    size_ = static_cast<size_t>(st.st_size);
    if (size_ > 0) {
      data_ = ::mmap(nullptr, size_, PROT_READ, MAP_PRIVATE, fd, 0);
      if (data_ == MAP_FAILED) {
        data_ = nullptr;
        ::close(fd);
        AOTRT_THROW(kIOError, what, ": cannot map the file: ", std::strerror(errno));
      }
    }
    ::close(fd);
  }
  ~MappedFile() {
    if (data_) ::munmap(data_, size_);
  }
  const void* data() const { return data_; }
  size_t size() const { return size_; }

 private:
  void* data_ = nullptr;
  size_t size_ = 0;
};

class SharedLibrary : public SymbolSource {
 public:
  SharedLibrary(void* handle, std::string name, ElfDynamicSymbols symbols)
      : handle_(handle), name_(std::move(name)), symbols_(std::move(symbols)) {}
  ~SharedLibrary() override { ::dlclose(handle_); }
  void* Lookup(const std::string& name) const override { return ::dlsym(handle_, name.c_str()); }
  uint64_t SymbolSize(const std::string& name) const override {
    const ElfSymbol* s = symbols_.FindDefined(name);
    return s ? s->size : 0;
  }
  const std::string& name() const override { return name_; }
  const void* identity() const override { return handle_; }

 private:
  void* handle_;
  std::string name_;
  ElfDynamicSymbols symbols_;
};

// Make libaotrt's own exported symbols (TVMBackend*, the float16 helpers) globally visible, as
// TVM's Python does by loading its runtime RTLD_GLOBAL, so models resolve them against us. Done
// before the first model is opened whatever the caller did: dlsym(RTLD_DEFAULT) from inside
// libaotrt would find its own symbols even when the library was loaded RTLD_LOCAL, and a model
// would not. Promoting an object also promotes its dependencies (glibc add_to_global).
void PromoteSelfToGlobalScope() {
  static std::once_flag once;
  std::call_once(once, [] {
    Dl_info info{};
    if (::dladdr(reinterpret_cast<void*>(&PromoteSelfToGlobalScope), &info) && info.dli_fname) {
      void* h = ::dlopen(info.dli_fname, RTLD_LAZY | RTLD_NOLOAD | RTLD_GLOBAL);
      if (h) ::dlclose(h);  // drops the extra reference; the promotion stays
    }
  });
}

// Whether aotrt itself defines `name` (then a failure to resolve it is a visibility problem).
bool DefinedByAotrt(const std::string& name) {
  Dl_info info{};
  if (!::dladdr(reinterpret_cast<void*>(&PromoteSelfToGlobalScope), &info) || !info.dli_fname) return false;
  void* self = ::dlopen(info.dli_fname, RTLD_LAZY | RTLD_NOLOAD);
  if (!self) return false;
  bool found = ::dlsym(self, name.c_str()) != nullptr;
  ::dlclose(self);
  return found;
}

// With RTLD_LAZY a function the library calls is looked up only at its first call, and a missing
// one ends the process ("symbol lookup error"). So every strong undefined symbol is looked up now,
// in the scope the dynamic linker will use for it: the global scope (the handle of the main program
// searches the executable, its libraries and every RTLD_GLOBAL load), then the library's own
// dependency tree (dlsym on its handle). Throws kNotFound naming each missing symbol.
void CheckUndefinedSymbolsResolve(void* handle, const ElfDynamicSymbols& syms, const std::string& what) {
  void* global = ::dlopen(nullptr, RTLD_LAZY);
  std::string missing;
  size_t count = 0;
  for (const std::string& s : syms.undefined) {
    if ((global && ::dlsym(global, s.c_str())) || ::dlsym(handle, s.c_str())) continue;
    std::string hint = DefinedByAotrt(s)
                           ? "defined by aotrt but not visible in the process's global scope: link the application "
                             "against libaotrt (with -rdynamic when linking the static library) or dlopen "
                             "libaotrt.so with RTLD_GLOBAL"
                           : SymbolProviderHint(s);
    missing += StrCat(count ? "; " : "", s, " (", hint, ")");
    ++count;
  }
  if (global) ::dlclose(global);
  ::dlerror();  // the failed lookups leave messages behind
  if (count == 0) return;
  AOTRT_THROW(kNotFound, what, " needs ", count == 1 ? "a symbol" : StrCat(count, " symbols"),
              " that nothing in the process provides, so it cannot run (its first call would end the process): ",
              missing);
}

}  // namespace

std::shared_ptr<SymbolSource> OpenSharedLibrary(const std::string& path, const std::string& display_name) {
  ElfDynamicSymbols syms;
  {
    MappedFile file(path, display_name);
    syms = ReadElfDynamicSymbols(file.data(), file.size(), display_name);
  }
  PromoteSelfToGlobalScope();
  ::dlerror();
  void* handle = ::dlopen(path.c_str(), RTLD_LAZY | RTLD_LOCAL);
  if (!handle) {
    const char* err = ::dlerror();
    AOTRT_THROW(kIOError, "Failed to load dynamic shared library ", display_name, ": ", err ? err : "unknown error");
  }
  try {
    CheckUndefinedSymbolsResolve(handle, syms, display_name);
  } catch (...) {
    ::dlclose(handle);
    throw;
  }
  AOTRT_LOG_DEBUG("loaded ", display_name, " (", syms.defined.size(), " dynamic symbols)");
  return std::make_shared<SharedLibrary>(handle, display_name, std::move(syms));
}

}  // namespace aotrt
