// Minimal JSON text building for the info functions that cross the C ABI as strings.
#pragma once

#include <string>
#include <vector>

#include "aot/metadata.h"

namespace aotrt {

std::string JsonQuote(const std::string& s);
// {"names": [...], "shapes": [[...], ...], "dtypes": [...]} for a list of tensors.
std::string TensorSpecsJson(const std::vector<TensorSpec>& specs);

}  // namespace aotrt
