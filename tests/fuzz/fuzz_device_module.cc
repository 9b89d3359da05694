// libFuzzer target: the device module readers of the blob (issues 44, 47): the input is the payload
// of an `opencl`, `cuda` or `vulkan` entry (format, function map, code), read by the built-in loader
// its format names, then saved again.
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
  // A blob of one entry: [payload bytes][entry count 1][key][the payload]; the key is "cuda" for a payload
  // whose format is ptx, cubin or fatbin (the cuda loader's), "vulkan" for format "vulkan", else "opencl".
  uint64_t n = 0;
  if (size >= 8) std::memcpy(&n, data, 8);
  std::string fmt = size >= 8 && n <= 6 && size - 8 >= n ? std::string(reinterpret_cast<const char*>(data) + 8, n) : "";
  std::string key = fmt == "ptx" || fmt == "cubin" || fmt == "fatbin" ? "cuda" : fmt == "vulkan" ? "vulkan" : "opencl";
  std::string blob(8, '\0');
  PutU64(&blob, 1);
  PutU64(&blob, key.size());
  blob += key;
  blob.append(reinterpret_cast<const char*>(data), size);
  n = blob.size() - 8;
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
