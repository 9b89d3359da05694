#include "profiling/op_attribution.h"

#include <algorithm>
#include <cmath>
#include <map>

#include "base/error_util.h"

namespace aotrt {
namespace profiling_internal {
namespace {

constexpr char kEntrySuffix[] = "__tvm_main__";

bool EndsWith(const std::string& s, const std::string& tail) {
  return s.size() >= tail.size() && s.compare(s.size() - tail.size(), tail.size(), tail) == 0;
}

std::string BaseName(const std::string& path) {
  size_t slash = path.find_last_of('/');
  return slash == std::string::npos ? path : path.substr(slash + 1);
}

// "[unnamed code model.so+0x2330..0x9ea0]": the gap between the symbols around `pc`.
std::string UnnamedRange(const CodeMap& code, uintptr_t pc) {
  const auto& syms = code.symbols();
  uintptr_t lo, hi;
  auto it = std::upper_bound(syms.begin(), syms.end(), pc, [](uintptr_t v, const CodeSymbol& s) { return v < s.start; });
  if (syms.empty()) {
    lo = pc & ~uintptr_t{4095};
    hi = lo + 4096;
  } else {
    lo = it == syms.begin() ? (pc & ~uintptr_t{4095}) : std::prev(it)->end;
    hi = it == syms.end() ? ((pc | 4095) + 1) : it->start;
  }
  uintptr_t bias = code.load_bias();
  return StrCat("[unnamed code ", BaseName(code.path()), "+0x", Hex{lo - bias}, "..0x", Hex{hi - bias}, "]");
}

}  // namespace

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
    if (!code.Contains(pc)) {
      ++outside;
      continue;
    }
    const CodeSymbol* sym = code.Find(pc);
    if (sym && sym->name == kPltSymbol) {  // a jump into the runtime
      ++outside;
      continue;
    }
    std::string name = sym ? OperatorName(sym->name, symbol_prefix) : UnnamedRange(code, pc);
    if (sym && (name == kEntrySuffix || EndsWith(sym->name, std::string("___") + kEntrySuffix))) {
      ++outside;
      ++glue;
      continue;
    }
    Line& line = lines[name];
    if (sym && (line.symbol.empty() || !EndsWith(sym->name, "_compute_"))) line.symbol = sym->name;
    ++line.samples;
  }
  uint64_t n = samples.size();
  auto make = [&](std::string name, std::string symbol, uint64_t k) {
    OperatorCost c;
    c.name = std::move(name);
    c.symbol = std::move(symbol);
    c.samples = k;
    c.percent = n ? 100.0 * static_cast<double>(k) / static_cast<double>(n) : 0;
    c.ci95 = WilsonHalfWidth95(k, n);
    c.mean_ms = c.percent / 100.0 * profile->run_ms;
    return c;
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
