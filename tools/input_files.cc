#include "input_files.h"

#include <aotrt/error.h>

#include "npy.h"
#include "npz.h"
#include "usage_error.h"

namespace aotrt_cli {
namespace {

// numpy.savez(file, a, b) names positional arrays arr_0, arr_1, ...: input 0, 1, ... unless the
// model has an input of that very name.
size_t InputOfKey(const std::string& key, const aotrt::Executor& ex) {
  const std::string prefix = "arr_";
  bool positional = key.size() > prefix.size() && key.compare(0, prefix.size(), prefix) == 0 &&
                    key.find_first_not_of("0123456789", prefix.size()) == std::string::npos && key.size() < 12;
  if (positional) {
    for (size_t i = 0; i < ex.NumInputs(); ++i) {
      if (ex.Input(i).name == key) return i;
    }
    size_t i = std::stoul(key.substr(prefix.size()));
    if (i < ex.NumInputs()) return i;
  }
  return ex.InputIndex(key);
}

}  // namespace

std::vector<GivenInput> ReadInputFiles(const std::vector<std::string>& specs, const aotrt::Executor& ex) {
  std::vector<GivenInput> out;
  for (const std::string& spec : specs) {
    size_t eq = spec.rfind('=');
    if (eq == std::string::npos && IsNpzPath(spec)) {
      for (NamedTensor& t : ReadNpz(spec)) out.push_back({InputOfKey(t.name, ex), spec + ":" + t.name, t.array});
      continue;
    }
    if (eq == std::string::npos || eq == 0 || eq + 1 == spec.size()) {
      throw UsageError("--input '" + spec + "': expected NAME=FILE.npy or FILE.npz");
    }
    std::string file = spec.substr(eq + 1);
    out.push_back({ex.InputIndex(spec.substr(0, eq)), file, ReadNpy(file)});
  }
  return out;
}

}  // namespace aotrt_cli
