// Where a library module finds its symbols: a dlopened file or the process's system library.
#pragma once

#include <memory>
#include <string>

#include "module/loader/address_bounds.h"

namespace aotrt {

struct ElfDynamicSymbols;

class SymbolSource {
 public:
  virtual ~SymbolSource() = default;
  // Address of `name`, or nullptr when the library does not define it.
  virtual void* Lookup(const std::string& name) const = 0;
  // Size in bytes of the data symbol `name` if known, else 0 (then the caller trusts headers).
  virtual uint64_t SymbolSize(const std::string& name) const = 0;
  // Where the library's bytes are: every pointer read from it must lie inside. Default: nothing
  // (a source that cannot say where its bytes are is not read from).
  virtual AddressBounds Segments() const { return AddressBounds(); }
  // Names the library in messages, e.g. its path.
  virtual const std::string& name() const = 0;
  // What makes two sources the same loaded library (the dlopen handle: dlopen of one file twice
  // gives one handle, hence one set of globals), or nullptr when sources are never shared.
  virtual const void* identity() const { return nullptr; }
  // Why `name` may be missing and how to make it findable, for error messages; empty if nothing to say.
  virtual std::string MissingSymbolHint(const std::string& name) const { (void)name; return std::string(); }
  // The file's dynamic symbol table, or nullptr when there is none (the system library).
  virtual const ElfDynamicSymbols* dynamic_symbols() const { return nullptr; }
  // The file whose identity (device, inode, size, mtime) stands for the library's bytes in keys of
  // per-machine caches: the model file itself, or the executable for the system library. "" when
  // no file does (loaded from memory, or linked into a temporary file): key on content then.
  virtual std::string source_file() const { return std::string(); }
};

// dlopen `path` RTLD_LAZY | RTLD_LOCAL after checking it is an ELF shared library, then check that
// every symbol it leaves undefined resolves (against aotrt, the process, or the libraries it needs);
// if not, the library is closed again and kNotFound names each missing symbol and its usual
// provider. First makes aotrt's own symbols globally visible. `display_name` is used in messages
// (for a library loaded from memory the path is /proc/self/fd/N). `is_source_file`: `path` is the
// user's model file (its source_file()), not a memory image or a temporary link. Throws kNotFound,
// kIOError, kFormatError.
std::shared_ptr<SymbolSource> OpenSharedLibrary(const std::string& path, const std::string& display_name,
                                                bool is_source_file = false);

// The system library: symbols registered by TVMBackendRegisterSystemLibSymbol, `prefix` first.
std::shared_ptr<SymbolSource> SystemLibrarySymbols(const std::string& prefix);

// Record a system-library symbol (TVMBackendRegisterSystemLibSymbol): process-wide, thread-safe;
// a second address for a name replaces the first, with a warning. Throws kInvalidArgument (null name).
void RegisterSystemLibSymbol(const char* name, void* ptr);

// While alive on a thread, system-library registrations from that thread are ignored: the static
// constructors of objects linked into a library that aotrt itself loads as a module (a system-lib
// `.tar` loaded as a library) must not overwrite the process's real system library.
class IgnoreSystemLibRegistrations {
 public:
  IgnoreSystemLibRegistrations();
  ~IgnoreSystemLibRegistrations();
  IgnoreSystemLibRegistrations(const IgnoreSystemLibRegistrations&) = delete;
  IgnoreSystemLibRegistrations& operator=(const IgnoreSystemLibRegistrations&) = delete;

 private:
  bool previous_;
};

}  // namespace aotrt
