// libFuzzer target: the metadata reader (ReadMetadata, PlanConstantPool + Fill) on a synthetic library
// image. The input is the image: a TVMMetadata struct at offset 0, then whatever arrays, strings
// and constants it points to. An 8-byte word whose high half is kPointerTag is a pointer, relocated
// to image + low half as a loader would (so pointers may land inside the image or past it); every
// other word stays as it is. The image is the library's only segment: any read outside it is a
// bounds-check failure that ASan reports. Seeds: tests/fuzz/seeds.py (metadata_image).
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <vector>

#include "aot/metadata.h"
#include "aotrt/error.h"

namespace {
constexpr uint64_t kPointerTag = 0xA07AB0D5;
constexpr size_t kMaxImage = 1 << 16;
}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size > kMaxImage) return 0;
  std::vector<uint64_t> words((size + 7) / 8 + 1);  // 8-byte aligned, as a segment would be
  auto* image = reinterpret_cast<char*>(words.data());
  if (size) std::memcpy(image, data, size);
  for (size_t i = 0; i + 8 <= size; i += 8) {
    uint64_t w;
    std::memcpy(&w, image + i, 8);
    if ((w >> 32) == kPointerTag) {
      uintptr_t p = reinterpret_cast<uintptr_t>(image) + (w & 0xffffffffu);
      std::memcpy(image + i, &p, 8);
    }
  }
  aotrt::AddressBounds bounds({{reinterpret_cast<uintptr_t>(image), reinterpret_cast<uintptr_t>(image) + size, false}});
  try {
    aotrt::ModelMetadata md =
        aotrt::ReadMetadata(reinterpret_cast<const TVMMetadata*>(image), bounds, "fuzz.so");
    aotrt::ConstantPoolPlan plan = aotrt::PlanConstantPool(md, "fuzz.so");
    std::vector<uint8_t> pool(plan.bytes);
    plan.Fill(pool.data());
  } catch (const aotrt::Error&) {
  }
  return 0;
}
