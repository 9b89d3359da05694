// libFuzzer target: the .npy reader of the aotrt command line.
#include <cstddef>
#include <cstdint>
#include <string>

#include "aotrt/error.h"
#include "aotrt/npy.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  try {
    aotrt::NDArray a = aotrt::ParseNpy(std::string(reinterpret_cast<const char*>(data), size), "fuzz");
    (void)aotrt::SerializeNpy(a.tensor());
  } catch (const aotrt::Error&) {
  }
  return 0;
}
