// On/off switches read from the environment (AOTRT_CHECK_BOUNDS, AOTRT_CONSTANT_CACHE, ...).
#pragma once

namespace aotrt {

// The variable `name`: unset or "" -> `default_value`, "0" -> false, "1" -> true. Any other value
// throws Error(kInvalidArgument) naming the variable and its value, and saying what 1 does
// (`meaning_of_1`, e.g. "use huge pages").
bool EnvFlag(const char* name, bool default_value, const char* meaning_of_1);

}  // namespace aotrt
