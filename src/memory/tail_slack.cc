#include "memory/tail_slack.h"

#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <cstring>

#include "base/error_util.h"

namespace aotrt {

size_t TailSlack(size_t bytes) {
  size_t end = (bytes + kCacheLine + kCacheLine - 1) / kCacheLine * kCacheLine;
  if (bytes >= kSlackPageFrom) end = (end + kSlackPage - 1) / kSlackPage * kSlackPage;
  return end - bytes;
}

void FillCanary(void* p, size_t n) { std::memset(p, kCanaryByte, n); }

namespace {
// A page of canary bytes to memcmp against: libc's memcmp is vectorized.
struct CanaryPage {
  unsigned char bytes[4096];
  CanaryPage() { std::memset(bytes, kCanaryByte, sizeof bytes); }
};
const CanaryPage& Page() {
  static const CanaryPage page;
  return page;
}
}  // namespace

size_t CanaryDamage(const void* p, size_t n) {
  const auto* b = static_cast<const unsigned char*>(p);
  // Fast path: the canary is intact nearly always (and may be megabytes: the rest of a reused
  // workspace block).
  const unsigned char* page = Page().bytes;
  bool intact = true;
  for (size_t i = 0; i < n && intact; i += sizeof(CanaryPage)) {
    intact = std::memcmp(b + i, page, std::min(n - i, sizeof(CanaryPage))) == 0;
  }
  if (intact) return 0;
  size_t last = n;
  while (last > 0 && b[last - 1] == kCanaryByte) --last;
  return last;
}

std::string GroupedNumber(size_t n) {
  std::string digits = std::to_string(n);
  std::string out;
  for (size_t i = 0; i < digits.size(); ++i) {
    if (i > 0 && (digits.size() - i) % 3 == 0) out += ',';
    out += digits[i];
  }
  return out;
}

}  // namespace aotrt
