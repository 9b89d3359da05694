// Where a library module finds its symbols: a dlopened file or the process's system library.
#pragma once

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
}  // namespace aotrt
