#include "memory/reserve.h"

#include <fcntl.h>
#include <sys/mman.h>
#include <unistd.h>

#include <algorithm>
#include <cstring>

#include "memory/guard_fault.h"
#include "memory/tail_slack.h"
#include "base/unique_fd.h"
#include "memory/zeroed_memory.h"

namespace aotrt {
namespace {

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

}  // namespace

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

size_t ReserveBytes(size_t bytes) {
  size_t r = RoundUp(bytes, PageSize());
  return bytes > PageSize() && r >= bytes ? r : PageSize();
}

ReservedSpan MapReserved(size_t bytes, const char* label) {
  ReservedSpan s;
  size_t capacity = RoundUp(bytes == 0 ? 1 : bytes, PageSize());
  if (capacity < bytes) return s;
  size_t reserve = ReserveBytes(capacity);
  size_t total = capacity + reserve;
  if (total < capacity || total + kGuardBytes < total) return s;
  total += kGuardBytes;
  // Address space first (PROT_NONE costs nothing), then the buffer and the reserve inside it.
  auto* data = static_cast<uint8_t*>(
      MapAligned(total, capacity >= kHugePage ? kHugePage : PageSize(), PROT_NONE, MAP_NORESERVE));
  if (data == nullptr) return s;
  bool ok = ::mmap(data, capacity, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED, -1, 0) != MAP_FAILED &&
            ::mmap(data + capacity, reserve, PROT_READ | PROT_WRITE,
                   MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED | MAP_NORESERVE, -1, 0) != MAP_FAILED;
  if (!ok) {
    ::munmap(data, total);
    return s;
  }
  ::madvise(data + capacity, reserve, MADV_NOHUGEPAGE);  // best effort: THP may be compiled out
  s.data = data;
  s.capacity = capacity;
  s.reserve = reserve;
  s.mapped = total;
  s.guard = RegisterGuard(data, bytes, data + capacity + reserve, data + total, label);
  return s;
}

void UnmapReserved(ReservedSpan* s) {
  if (s->data == nullptr) return;
  UnregisterGuard(s->guard);
  ::munmap(s->data, s->mapped);
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
    size_t damage = CanaryDamage(s.data + used, page_end - used);
    if (damage) {
      FillCanary(s.data + used, damage);
      o.bytes_past = damage;
    }
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
    size_t from = std::max(page_end, last_nonzero ? ((last_nonzero - 1) / PageSize() + 1) * PageSize() : 0);
    size_t written_end = LastWrittenPageEnd(s.data, from, last_zero_page_end);
    if (written_end) o.zeros_to = written_end - used;
  }
  if (first_resident < resident_end) ::madvise(s.data + first_resident, resident_end - first_resident, MADV_DONTNEED);
  return o;
}

}  // namespace aotrt
