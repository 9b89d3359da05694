// libFuzzer target: the NDArray (ABI.md 6.1) and params-dict (6.2) loaders, and a save/load round
// trip of whatever loads.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <cstring>

#include "aotrt/error.h"
#include "aotrt/ndarray.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  try {
    aotrt::NDArray a = aotrt::LoadNDArray(data, size);
    std::string again = aotrt::SaveNDArray(a.tensor());
    aotrt::NDArray b = aotrt::LoadNDArray(again.data(), again.size());
    if (a.NumBytes() != b.NumBytes() || std::memcmp(a.data(), b.data(), a.NumBytes()) != 0) std::abort();
  } catch (const aotrt::Error&) {
  }
  try {
    auto params = aotrt::LoadParams(data, size);
    (void)aotrt::SaveParams(params);
  } catch (const aotrt::Error&) {
  }
  return 0;
}
