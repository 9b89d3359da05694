// What usually provides a symbol a model library leaves undefined, for load errors.
#pragma once

#include <string>

namespace aotrt {

// A short phrase naming the usual provider of `symbol` and what to do, e.g. for `expf`: "the C
// math library (libm.so.6): link the model with -lm". Never empty. Thread-safe, no errors.
std::string SymbolProviderHint(const std::string& symbol);

}  // namespace aotrt
