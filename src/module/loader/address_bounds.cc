// The segments of loaded objects, from the dynamic linker (dl_iterate_phdr), and the bounded reads
// over them (module/loader/address_bounds.h).
#include "module/loader/address_bounds.h"

#include <link.h>

#include <algorithm>
#include <cstring>
#include <new>
#include <string>

#include "base/error_util.h"
#include "base/page_size.h"

namespace aotrt {

namespace {

// The readable PT_LOAD segments of one loaded object. Writable parts under PT_GNU_RELRO (page
// aligned down, as the loader protects them) count as read-only.
std::vector<AddressBounds::Segment> SegmentsOf(const dl_phdr_info& info) {
  uintptr_t relro_begin = 0, relro_end = 0;
  for (int i = 0; i < info.dlpi_phnum; ++i) {
    const ElfW(Phdr)& ph = info.dlpi_phdr[i];
    if (ph.p_type == PT_GNU_RELRO) {
      relro_begin = (info.dlpi_addr + ph.p_vaddr) & ~(PageSize() - 1);
      relro_end = info.dlpi_addr + ph.p_vaddr + ph.p_memsz;
    }
  }
  std::vector<AddressBounds::Segment> out;
  for (int i = 0; i < info.dlpi_phnum; ++i) {
    const ElfW(Phdr)& ph = info.dlpi_phdr[i];
    if (ph.p_type != PT_LOAD || !(ph.p_flags & PF_R) || ph.p_memsz == 0) continue;
    uintptr_t b = info.dlpi_addr + ph.p_vaddr, e = b + ph.p_memsz;
    bool w = (ph.p_flags & PF_W) != 0;
    if (!w || relro_end <= b || relro_begin >= e) {
      out.push_back({b, e, w});
      continue;
    }
    if (b < relro_begin) out.push_back({b, relro_begin, true});
    out.push_back({std::max(b, relro_begin), std::min(e, relro_end), false});
    if (relro_end < e) out.push_back({relro_end, e, true});
  }
  return out;
}

struct ObjectQuery {
  uintptr_t containing;  // the object whose segments contain this address
  AddressBounds bounds;
  bool out_of_memory = false;
};

// The walk passes every loaded object: only the one with a readable PT_LOAD segment containing the
// address has its segments built (allocated). No exception may unwind through dl_iterate_phdr
// (glibc holds its loader lock there): an allocation failure stops the walk and is thrown after it.
int VisitObject(dl_phdr_info* info, size_t, void* data) {
  auto* q = static_cast<ObjectQuery*>(data);
  bool may_contain = false;
  for (int i = 0; i < info->dlpi_phnum && !may_contain; ++i) {
    const ElfW(Phdr)& ph = info->dlpi_phdr[i];
    uintptr_t b = info->dlpi_addr + ph.p_vaddr;
    may_contain = ph.p_type == PT_LOAD && (ph.p_flags & PF_R) && q->containing >= b && q->containing - b < ph.p_memsz;
  }
  if (!may_contain) return 0;
  try {
    AddressBounds found(SegmentsOf(*info));
    if (found.Readable(reinterpret_cast<const void*>(q->containing)) == 0) return 0;
    q->bounds = std::move(found);
  } catch (const std::bad_alloc&) {
    q->out_of_memory = true;
  }
  return 1;
}

}  // namespace

AddressBounds AddressBounds::OfObjectContaining(const void* address) {
  if (!address) return AddressBounds();
  ObjectQuery q{reinterpret_cast<uintptr_t>(address), AddressBounds()};
  ::dl_iterate_phdr(VisitObject, &q);
  if (q.out_of_memory) throw std::bad_alloc();
  return std::move(q.bounds);
}

size_t AddressBounds::Find(const void* p, bool writable) const {
  if (any_loaded_object_) return OfObjectContaining(p).Find(p, writable);
  uintptr_t a = reinterpret_cast<uintptr_t>(p);
  for (const Segment& s : segments_) {
    if (a >= s.begin && a < s.end && (s.writable || !writable)) return s.end - a;
  }
  return 0;
}

void AddressBounds::Require(const void* p, size_t bytes, bool writable, const std::string& field) const {
  AOTRT_REQUIRE(p != nullptr, kFormatError, field, " is a null pointer");
  AOTRT_REQUIRE(Contains(p, bytes, writable), kFormatError, field, " pointer ",
                static_cast<const void*>(p), " (", bytes, " bytes) is outside the library's ", writable ? "writable" : "mapped",
                " segments");
}

ptrdiff_t AddressBounds::StringLength(const char* s, size_t max_len) const {
  size_t avail = s ? Readable(s) : 0;
  if (avail == 0) return -1;
  size_t n = strnlen(s, std::min(avail, max_len + 1));
  return n < avail && n <= max_len ? static_cast<ptrdiff_t>(n) : -1;
}

std::string AddressBounds::ReadString(const char* s, size_t max_len, const std::string& field) const {
  Require(s, 1, false, field);
  size_t avail = Readable(s);
  size_t n = strnlen(s, std::min(avail, max_len + 1));
  AOTRT_REQUIRE(n < avail, kFormatError, field, " string at ", static_cast<const void*>(s), " runs to the end of its segment unterminated");
  AOTRT_REQUIRE(n <= max_len, kFormatError, field, " is longer than ", max_len, " bytes");
  return std::string(s, n);
}

}  // namespace aotrt
