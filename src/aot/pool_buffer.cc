#include "aot/pool_buffer.h"

#include <cctype>
#include <cstdlib>
#include <cstring>

#include "base/error_util.h"
#include "base/tail_slack.h"
#include "base/zeroed_memory.h"

namespace aotrt {

void PoolBuffer::Free::operator()(uint8_t* p) const { FreeZeroed(p, mapped_bytes); }

PoolBuffer::PoolBuffer(std::string name, size_t bytes) : bytes_(bytes), slack_(TailSlack(bytes)), name_(std::move(name)) {
  size_t mapped = 0;
  void* p = AllocZeroed(bytes_ + slack_, kCacheLine, &mapped);  // bytes + slack: a multiple of 64 by TailSlack
  AOTRT_REQUIRE(p != nullptr, kOutOfMemory, "cannot allocate ", bytes_, " bytes (+", slack_, " slack) for pool '",
                name_, "'");
  data_ = std::unique_ptr<uint8_t, Free>(static_cast<uint8_t*>(p), Free{mapped});
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
