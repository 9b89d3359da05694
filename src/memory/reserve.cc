// Implements memory/reserve.h: zeroed blocks, the canary and tail slack, reserved spans, pool buffers.
#include "memory/reserve.h"

#include <fcntl.h>
#include <sys/mman.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <cstdlib>
#include <cstring>
#include <utility>

#include "base/error_util.h"
#include "base/unique_fd.h"
#include "memory/guard_fault.h"

namespace aotrt {

namespace {

// A page of canary bytes to memcmp against: libc's memcmp is vectorized.
struct CanaryPage {
  unsigned char bytes[4096];
  CanaryPage() { std::memset(bytes, kCanaryByte, sizeof bytes); }
};

// 1 + the index of the last byte of [p, p + n) that is not zero; 0 when all are. n: a multiple of 8.
size_t LastNonZero(const uint8_t* p, size_t n) {
  size_t i = n;
  while (i >= 8) {
    uint64_t w;
    std::memcpy(&w, p + i - 8, 8);
    if (w) break;
    i -= 8;
  }
  while (i > 0 && p[i - 1] == 0) --i;
  return i;
}

// The end (offset from `data`) of the last page in [from, to) that was written, 0 when none: a
// written page is the process's own ("exclusively mapped" in /proc/self/pagemap), a page that was
// only read is the shared zero page. 0 also when pagemap cannot be read.
size_t LastWrittenPageEnd(const uint8_t* data, size_t from, size_t to) {
  UniqueFd pagemap(::open("/proc/self/pagemap", O_RDONLY | O_CLOEXEC));
  if (pagemap.fd < 0) return 0;
  uint64_t entries[512];
  const size_t first = reinterpret_cast<uintptr_t>(data) / PageSize();  // data is page aligned
  for (size_t hi = to / PageSize(); hi > from / PageSize();) {
    size_t lo = std::max(from / PageSize(), hi > 512 ? hi - 512 : 0);
    size_t n = hi - lo;
    off_t at = static_cast<off_t>((first + lo) * sizeof(uint64_t));
    if (::pread(pagemap.fd, entries, n * sizeof(uint64_t), at) != static_cast<ssize_t>(n * sizeof(uint64_t))) return 0;
    for (size_t i = n; i-- > 0;) {
      bool present = (entries[i] >> 63) & 1, exclusive = (entries[i] >> 56) & 1;
      if (present && exclusive) return (lo + i + 1) * PageSize();
    }
    hi = lo;
  }
  return 0;
}

// The reserve after a buffer of `bytes`: its own size rounded up to pages, at least one page.
size_t ReserveBytes(size_t bytes) {
  size_t r = RoundUp(bytes, PageSize());
  return bytes > PageSize() && r >= bytes ? r : PageSize();
}

}  // namespace

void* MapAligned(size_t size, size_t align, int prot, int flags) {
  size_t reserve = size + (align > PageSize() ? align - PageSize() : 0);
  if (reserve < size) return nullptr;
  void* raw = ::mmap(nullptr, reserve, prot, MAP_PRIVATE | MAP_ANONYMOUS | flags, -1, 0);
  if (raw == MAP_FAILED) return nullptr;
  uintptr_t start = reinterpret_cast<uintptr_t>(raw);
  uintptr_t aligned = RoundUp(start, align);
  if (aligned > start) ::munmap(raw, aligned - start);
  uintptr_t end = start + reserve;
  if (end > aligned + size) ::munmap(reinterpret_cast<void*>(aligned + size), end - (aligned + size));
  return reinterpret_cast<void*>(aligned);
}

void* AllocZeroed(size_t bytes, size_t align, size_t* mapped) {
  *mapped = 0;
  if (bytes >= kMappedFrom && align <= PageSize()) {
    size_t size = RoundUp(bytes, PageSize());
    if (size < bytes) return nullptr;
    void* p = MapAligned(size, size >= kHugePage ? kHugePage : PageSize(), PROT_READ | PROT_WRITE, 0);
    if (p) *mapped = size;
    return p;
  }
  void* p = std::aligned_alloc(align, bytes == 0 ? align : RoundUp(bytes, align));
  if (p) std::memset(p, 0, bytes);
  return p;
}

void FreeZeroed(void* p, size_t mapped) {
  if (mapped) ::munmap(p, mapped);
  else std::free(p);
}

size_t AdviseHugePages(void* p, size_t bytes) {
  uintptr_t begin = RoundUp(reinterpret_cast<uintptr_t>(p), kHugePage);
  uintptr_t end = (reinterpret_cast<uintptr_t>(p) + bytes) / kHugePage * kHugePage;
  if (end <= begin || ::madvise(reinterpret_cast<void*>(begin), end - begin, MADV_HUGEPAGE) != 0) return 0;
  return end - begin;
}

size_t TailSlack(size_t bytes) {
  size_t end = RoundUp(bytes + kCacheLine, kCacheLine);
  if (bytes >= kSlackPageFrom) end = RoundUp(end, kSlackPage);
  return end - bytes;
}

void FillCanary(void* p, size_t n) { std::memset(p, kCanaryByte, n); }

size_t CanaryDamage(const void* p, size_t n) {
  const auto* b = static_cast<const unsigned char*>(p);
  // Fast path: the canary is intact nearly always (and may be megabytes: the rest of a reused
  // workspace block).
  static const CanaryPage page;
  bool intact = true;
  for (size_t i = 0; i < n && intact; i += sizeof(CanaryPage)) {
    intact = std::memcmp(b + i, page.bytes, std::min(n - i, sizeof(CanaryPage))) == 0;
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

bool ReadsMapTheZeroPage() {
  static const bool yes = [] {
    const size_t n = PageSize();
    void* p = ::mmap(nullptr, n, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (p == MAP_FAILED) return false;
    volatile const uint8_t sink = *static_cast<volatile const uint8_t*>(p);
    (void)sink;
    bool zero_page = LastWrittenPageEnd(static_cast<const uint8_t*>(p), 0, n) == 0;
    ::munmap(p, n);
    return zero_page;
  }();
  return yes;
}

size_t ReservedSpanBytes(size_t bytes) {
  size_t capacity = RoundUp(bytes == 0 ? 1 : bytes, PageSize());
  if (capacity < bytes || capacity > (SIZE_MAX - kGuardBytes - PageSize()) / 2) return 0;
  return capacity + ReserveBytes(capacity) + kGuardBytes;
}

size_t ReservedSpanAlignment(size_t bytes) { return bytes >= kHugePage ? kHugePage : PageSize(); }

ReservedSpan PlaceReserved(uint8_t* at, size_t bytes, const char* label) {
  size_t capacity = RoundUp(bytes == 0 ? 1 : bytes, PageSize());
  size_t reserve = ReserveBytes(capacity);
  // The buffer's pages accounted as any memory; the reserve stays MAP_NORESERVE; the guard PROT_NONE.
  bool ok = ::mmap(at, capacity, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED, -1, 0) != MAP_FAILED &&
            ::mprotect(at + capacity + reserve, kGuardBytes, PROT_NONE) == 0;
  if (!ok) return ReservedSpan();
  ::madvise(at + capacity, reserve, MADV_NOHUGEPAGE);  // best effort: THP may be compiled out
  uint8_t* guard = at + capacity + reserve;
  return ReservedSpan{at, capacity, reserve, 0, RegisterGuard(at, bytes, guard, guard + kGuardBytes, label)};
}

ReservedSpan MapReserved(size_t bytes, const char* label) {
  size_t total = ReservedSpanBytes(bytes);
  if (total == 0) return ReservedSpan();
  auto* data = static_cast<uint8_t*>(MapAligned(total, ReservedSpanAlignment(bytes), PROT_READ | PROT_WRITE, MAP_NORESERVE));
  if (data == nullptr) return ReservedSpan();
  ReservedSpan s = PlaceReserved(data, bytes, label);
  if (s.data == nullptr) ::munmap(data, total);
  s.mapped = s.data ? total : 0;
  return s;
}

void UnmapReserved(ReservedSpan* s) {
  if (s->data == nullptr) return;
  UnregisterGuard(s->guard);
  if (s->mapped != 0) ::munmap(s->data, s->mapped);
  *s = ReservedSpan();
}

void ArmOverrunCheck(const ReservedSpan& s, size_t used) {
  // The buffer's own pages after `used` (a reused block's, resident already): the canary.
  if (used < s.capacity) FillCanary(s.data + used, s.capacity - used);
  ::madvise(s.data + s.capacity, s.reserve, MADV_DONTNEED);  // nothing resident: ~1 µs
}

Overrun TakeOverrun(const ReservedSpan& s, size_t used) {
  Overrun o;
  const size_t page_end = s.capacity;  // the canary ends with the buffer's pages, the reserve starts
  if (used < page_end) {
    o.bytes_past = CanaryDamage(s.data + used, page_end - used);
    FillCanary(s.data + used, o.bytes_past);  // restored
  }
  // The pages after: only the resident ones can have been written.
  const size_t end = s.capacity + s.reserve;
  size_t first_resident = end, resident_end = page_end;
  size_t last_nonzero = 0;          // offset + 1 of the last nonzero byte found
  size_t last_zero_page_end = 0;    // end of the last resident page holding zeros only
  unsigned char vec[2048];
  for (size_t off = page_end; off < end;) {
    size_t len = std::min(end - off, sizeof vec * PageSize());
    if (::mincore(s.data + off, len, vec) != 0) break;  // cannot happen for our own mapping
    for (size_t p = 0; p < len / PageSize(); ++p) {
      if (!(vec[p] & 1)) continue;
      size_t page = off + p * PageSize();
      first_resident = std::min(first_resident, page);
      resident_end = page + PageSize();
      size_t nz = LastNonZero(s.data + page, PageSize());
      if (nz) {
        last_nonzero = page + nz;
      } else {
        last_zero_page_end = page + PageSize();
      }
    }
    off += len;
  }
  if (last_nonzero) o.bytes_past = last_nonzero - used;
  if (last_zero_page_end > last_nonzero && ReadsMapTheZeroPage()) {
    // Resident pages of zeros after the last nonzero byte: written with zeros, or only read?
    size_t from = std::max(page_end, RoundUp(last_nonzero, PageSize()));
    size_t written_end = LastWrittenPageEnd(s.data, from, last_zero_page_end);
    if (written_end) o.zeros_to = written_end - used;
  }
  if (first_resident < resident_end) ::madvise(s.data + first_resident, resident_end - first_resident, MADV_DONTNEED);
  return o;
}

PoolBuffer::PoolBuffer(std::string name, size_t bytes, const std::string& label, uint8_t* at)
    : bytes_(bytes), name_(std::move(name)) {
  std::string what = label.empty() ? StrCat("workspace pool '", name_, "' (", GroupedNumber(bytes_), " bytes)") : label;
  span_ = at ? PlaceReserved(at, bytes_, what.c_str()) : MapReserved(bytes_, what.c_str());
  AOTRT_REQUIRE(span_.data != nullptr, kOutOfMemory, "cannot map ", bytes_, " bytes (+", ReserveBytes(bytes_),
                " bytes of reserve) for pool '", name_, "'");
  ArmOverrunCheck(span_, bytes_);
}

PoolBuffer::PoolBuffer(PoolBuffer&& o) noexcept
    : span_(std::exchange(o.span_, ReservedSpan())), bytes_(o.bytes_), name_(std::move(o.name_)) {}

PoolBuffer::~PoolBuffer() { UnmapReserved(&span_); }

Overrun PoolBuffer::TakeOverrun() { return aotrt::TakeOverrun(span_, bytes_); }

size_t PoolSlackBytes(size_t bytes) {
  size_t capacity = RoundUp(bytes == 0 ? 1 : bytes, PageSize());
  return capacity - bytes + ReserveBytes(capacity);
}

std::string PoolDisplayName(const std::string& var) {
  size_t end = var.size() > 4 && var.compare(var.size() - 4, 4, "_var") == 0 ? var.size() - 4 : 0, i = end;
  while (i > 0 && std::isdigit(static_cast<unsigned char>(var[i - 1]))) --i;
  return i == end || i < 2 || var[i - 1] != '_' ? var : var.substr(0, i - 1);
}

}  // namespace aotrt
