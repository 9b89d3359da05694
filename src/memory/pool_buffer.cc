#include "memory/pool_buffer.h"

#include <cctype>
#include <utility>

#include "base/error_util.h"
#include "memory/tail_slack.h"

namespace aotrt {

PoolBuffer::PoolBuffer(std::string name, size_t bytes, const std::string& label) : bytes_(bytes), name_(std::move(name)) {
  std::string what = label.empty() ? StrCat("workspace pool '", name_, "' (", GroupedNumber(bytes_), " bytes)") : label;
  span_ = MapReserved(bytes_, what.c_str());
  AOTRT_REQUIRE(span_.data != nullptr, kOutOfMemory, "cannot map ", bytes_, " bytes (+", ReserveBytes(bytes_),
                " bytes of reserve) for pool '", name_, "'");
  ArmOverrunCheck(span_, bytes_);
}

PoolBuffer::PoolBuffer(PoolBuffer&& o) noexcept
    : span_(std::exchange(o.span_, ReservedSpan())), bytes_(o.bytes_), name_(std::move(o.name_)) {}

PoolBuffer& PoolBuffer::operator=(PoolBuffer&& o) noexcept {
  if (this != &o) {
    UnmapReserved(&span_);
    span_ = std::exchange(o.span_, ReservedSpan());
    bytes_ = o.bytes_;
    name_ = std::move(o.name_);
  }
  return *this;
}

PoolBuffer::~PoolBuffer() { UnmapReserved(&span_); }

Overrun PoolBuffer::TakeOverrun() { return aotrt::TakeOverrun(span_, bytes_); }

size_t PoolSlackBytes(size_t bytes) {
  size_t capacity = RoundUp(bytes == 0 ? 1 : bytes, PageSize());
  return capacity - bytes + ReserveBytes(capacity);
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
