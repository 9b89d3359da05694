#include "base/env_flag.h"

#include <cstdlib>
#include <cstring>

#include "base/error_util.h"

namespace aotrt {

bool EnvFlag(const char* name, bool default_value, const char* meaning_of_1) {
  const char* v = std::getenv(name);
  if (v == nullptr || *v == '\0') return default_value;
  if (std::strcmp(v, "0") == 0) return false;
  if (std::strcmp(v, "1") == 0) return true;
  AOTRT_THROW(kInvalidArgument, name, "='", v, "': expected 0 or 1 (", meaning_of_1, ")");
}

}  // namespace aotrt
