#include "base/tail_slack.h"

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

size_t CanaryDamage(const void* p, size_t n) {
  const auto* b = static_cast<const unsigned char*>(p);
  // Fast path: the slack is intact nearly always; compare eight bytes at a time.
  uint64_t word;
  std::memset(&word, kCanaryByte, sizeof(word));
  size_t i = 0;
  bool intact = true;
  for (; i + 8 <= n && intact; i += 8) {
    uint64_t v;
    std::memcpy(&v, b + i, 8);
    intact = v == word;
  }
  for (; i < n && intact; ++i) intact = b[i] == kCanaryByte;
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
