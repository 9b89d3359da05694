// libFuzzer target: the device module readers of the blob (issues 44, 47): the input is the payload
// of an `opencl` entry (format, function map, source) or, when its format string is "vulkan", of a
// `vulkan` entry (format, function map, SPIR-V shader map), read by the built-in loader, then saved again.
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <string>

#include "aotrt/error.h"
#include "fuzz_blob_common.h"

namespace {
void PutU64(std::string* s, uint64_t v) { s->append(reinterpret_cast<const char*>(&v), 8); }
}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  // A blob of one entry: [payload bytes][entry count 1]["opencl" or "vulkan"][the payload].
  bool vulkan = size >= 14 && std::memcmp(data, "\x06\0\0\0\0\0\0\0vulkan", 14) == 0;
  std::string blob(8, '\0');
  PutU64(&blob, 1);
  PutU64(&blob, 6);
  blob += vulkan ? "vulkan" : "opencl";
  blob.append(reinterpret_cast<const char*>(data), size);
  uint64_t n = blob.size() - 8;
  std::memcpy(blob.data(), &n, 8);
  try {
    aotrt::ObjectPtr<aotrt::ModuleNode> root = fuzz::ProcessBlob(blob.data(), blob.size());
    for (const auto& m : root->imports()) {
      (void)m->SaveToBinary();
      (void)m->MissingFunctionHint("x");
    }
  } catch (const aotrt::Error&) {
  }
  return 0;
}
