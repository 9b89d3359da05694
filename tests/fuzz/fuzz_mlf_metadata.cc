// libFuzzer target: the metadata.json, Relay signature and generated-source readers of
// C-interface exports (aot/c_interface/mlf_sources.h) on the same bytes.
#include <cstddef>
#include <cstdint>
#include <map>
#include <string>

#include "aot/c_interface/mlf_sources.h"
#include "aotrt/error.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string text(reinterpret_cast<const char*>(data), size);
  try {
    (void)aotrt::ParseMlfMetadata(text, "metadata.json");
  } catch (const aotrt::Error&) {
  }
  (void)aotrt::ParseRelayMain(text);
  try {
    (void)aotrt::ParseMlfEntry({{"codegen/host/src/default_lib0.c", text}}, text, "tvmgen_default", "fuzz");
  } catch (const aotrt::Error&) {
  }
  return 0;
}
