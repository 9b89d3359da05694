// Hints are guesses from the name, for the message only: the load decision never depends on them.
#include "module/loader/symbol_hints.h"

#include <cstring>

namespace aotrt {
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

}  // namespace

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

}  // namespace aotrt
