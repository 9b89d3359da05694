#include "aot/pool_buffer.h"

#include <cctype>
#include <cstdlib>
#include <cstring>

#include <sys/mman.h>

#include "base/error_util.h"
#include "base/tail_slack.h"

namespace aotrt {

namespace {
constexpr size_t kHugePage = size_t{2} << 20;
}  // namespace

void PoolBuffer::Free::operator()(uint8_t* p) const {
  if (mapped_bytes) {
    ::munmap(p, mapped_bytes);
  } else {
    std::free(p);
  }
}

PoolBuffer::PoolBuffer(std::string name, size_t bytes)
    : data_(nullptr, Free{0}), bytes_(bytes), slack_(TailSlack(bytes)), name_(std::move(name)) {
  size_t total = bytes_ + slack_;  // a multiple of 64, and of the page from kSlackPageFrom on
  void* p = nullptr;
  if (total >= kSlackPageFrom) {
    // Fresh anonymous pages are zero already, and cost nothing until the model touches them:
    // creating an executor does no work proportional to its pools.
    p = ::mmap(nullptr, total, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (p == MAP_FAILED) p = nullptr;
    if (p && total >= kHugePage) ::madvise(p, total, MADV_HUGEPAGE);  // fewer faults; advice only
  } else {
    p = std::aligned_alloc(kCacheLine, total);
    if (p) std::memset(p, 0, bytes_);
  }
  AOTRT_REQUIRE(p != nullptr, kOutOfMemory, "cannot allocate ", bytes_, " bytes (+", slack_, " slack) for pool '",
                name_, "'");
  data_ = std::unique_ptr<uint8_t, Free>(static_cast<uint8_t*>(p), Free{total >= kSlackPageFrom ? total : 0});
  FillCanary(data_.get() + bytes_, slack_);
}

size_t PoolBuffer::TakeOverrun() {
  size_t damage = CanaryDamage(data_.get() + bytes_, slack_);
  if (damage) FillCanary(data_.get() + bytes_, damage);
  return damage;
}

std::string PoolDisplayName(const std::string& var) {
  const std::string suffix = "_var";
  if (var.size() <= suffix.size() || var.compare(var.size() - suffix.size(), suffix.size(), suffix) != 0) return var;
  size_t end = var.size() - suffix.size();
  size_t i = end;
  while (i > 0 && std::isdigit(static_cast<unsigned char>(var[i - 1]))) --i;
  if (i == end || i < 2 || var[i - 1] != '_') return var;
  return var.substr(0, i - 1);
}

}  // namespace aotrt
