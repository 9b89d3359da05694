// The operator profiler's pure half (no clock, no signal), testable on its own: the functions of a
// loaded model library by address (CodeMap), and the rules that turn sampled program counters into
// the lines of an operator profile (AttributeSamples). op_profile.cc takes the samples.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "aotrt/profiling.h"

namespace aotrt {
namespace profiling_internal {

// The name CodeMap gives the PLT sections (.plt, .plt.got, .plt.sec).
constexpr char kPltSymbol[] = "@plt";

struct CodeSymbol {
  uintptr_t start = 0;  // run-time address
  uintptr_t end = 0;    // start + st_size
  std::string name;
};

// A library's functions from its ELF symbol tables (.symtab when present, else .dynsym), never
// from debug information. Only symbols with a size are used, so an address inside code that has no
// symbol (a stripped `_compute_` body, an LLVM private lambda) is unnamed, never the preceding
// symbol's. Immutable after construction. Errors: kNotFound when the address lies in no loaded
// object, kIOError when its file cannot be read, kFormatError for a corrupt ELF file.
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

struct PcSample {
  uintptr_t pc = 0;
  uintptr_t launch_caller = 0;  // in the operator that launched the thread's parallel launch; 0 outside one
};

// Fills samples, operators (by cost), outside and glue_samples of `profile`, with percent and
// ci95; mean_ms from profile->run_ms. The rules:
//   - a sample taken inside a parallel launch goes to the function that launched it;
//   - else one in a symbol of the model library goes to that symbol; `<prefix>_` and a trailing
//     `_compute_` are stripped, so an operator and its compute body share one line, and the
//     entry (`__tvm_main__`) counts as the outside's glue;
//   - a sample in the library's PLT stubs is outside (they jump into the runtime);
//   - else one in the library's code but in no symbol goes to "[unnamed code ...]" by address
//     range (the gap between the symbols around it, or its 4 KiB page when there are none);
//   - else (the runtime, libc, ...) it is outside.
void AttributeSamples(const CodeMap& code, const std::vector<PcSample>& samples, const std::string& symbol_prefix,
                      OperatorProfile* profile);

// The operator name of symbol `symbol`: without "<prefix>_" and a trailing "_compute_".
std::string OperatorName(const std::string& symbol, const std::string& symbol_prefix);

// 95% Wilson score half-width, in percentage points, of k successes in n trials (0 when n == 0).
double WilsonHalfWidth95(uint64_t k, uint64_t n);

}  // namespace profiling_internal
}  // namespace aotrt
