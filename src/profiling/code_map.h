// The functions of a loaded model library, by address: what the operator profiler attributes
// sampled program counters to. Built from the library file's ELF symbol tables (.symtab when
// present, else .dynsym), never from debug information. Only symbols with a size are used, so an
// address inside code that has no symbol (a stripped `_compute_` body, an LLVM private lambda) is
// reported as unnamed, never as the preceding symbol's.
// Thread-safety: immutable after construction; Find() may be called from a signal handler (no
// allocation, no lock: a binary search over a sorted vector).
// Errors: kNotFound when the address lies in no loaded object, kIOError when its file cannot be
// read, kFormatError for a corrupt ELF file.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace aotrt {
namespace profiling_internal {

// The name CodeMap gives the PLT sections (.plt, .plt.got, .plt.sec).
constexpr char kPltSymbol[] = "@plt";

struct CodeSymbol {
  uintptr_t start = 0;  // run-time address
  uintptr_t end = 0;    // start + st_size
  std::string name;
};

class CodeMap {
 public:
  // The object (shared library or executable) holding `address` (a function of the model: its
  // entry). Reads the object's file once.
  static CodeMap ForAddress(const void* address);
  // From an ELF image already in memory (tests, fuzzing): `load_bias` is added to st_value.
  static CodeMap FromElf(const void* data, size_t size, const std::string& what, uintptr_t load_bias);

  // The symbol whose [start, end) holds `pc`, or nullptr. Async-signal-safe.
  const CodeSymbol* Find(uintptr_t pc) const;
  // Whether `pc` lies in the object's executable segments.
  bool Contains(uintptr_t pc) const;

  const std::vector<CodeSymbol>& symbols() const { return symbols_; }
  const std::string& path() const { return path_; }
  uintptr_t load_bias() const { return load_bias_; }
  // ".symtab", ".dynsym", or "" when the file has neither with a sized function. symbols() also
  // holds the PLT sections, named kPltSymbol.
  const std::string& table() const { return table_; }

 private:
  std::vector<CodeSymbol> symbols_;  // sorted by start, non-overlapping
  struct Range {
    uintptr_t start, end;
  };
  std::vector<Range> code_;  // executable PT_LOAD segments, run-time addresses
  std::string path_;
  std::string table_;
  uintptr_t load_bias_ = 0;
};

}  // namespace profiling_internal
}  // namespace aotrt
