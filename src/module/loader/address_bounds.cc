#include "module/loader/address_bounds.h"

#include <dlfcn.h>
#include <link.h>

#include <algorithm>
#include <cstring>
#include <new>

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

size_t BytesFrom(const std::vector<AddressBounds::Segment>& segments, uintptr_t a, bool writable) {
  for (const AddressBounds::Segment& s : segments) {
    if (a >= s.begin && a < s.end && (s.writable || !writable)) return s.end - a;
  }
  return 0;
}

struct ObjectQuery {
  uintptr_t containing = 0;  // the object whose segments contain this address
  // The load bias of that object when known in advance (FindBias): the walk then skips
  // every other object without reading its program headers, which in a new process are pages of
  // libc, libm, ... not touched yet (a page fault each).
  bool bias_known = false;
  uintptr_t bias = 0;
  std::vector<AddressBounds::Segment> segments;
  bool out_of_memory = false;
};

// Sets q->bias to the base address of the object containing q->containing (dladdr): its load
// bias when its first segment starts at address 0, as linkers lay out shared libraries; for any
// other layout the filter matches nothing and the whole walk decides.
void FindBias(ObjectQuery* q) {
  Dl_info info{};
  if (::dladdr(reinterpret_cast<void*>(q->containing), &info) != 0 && info.dli_fbase != nullptr) {
    q->bias = reinterpret_cast<uintptr_t>(info.dli_fbase);
    q->bias_known = true;
  }
}

// Whether `a` lies in a readable PT_LOAD segment of the object: the walk passes every loaded
// object, and only the one containing the address needs its segments built (allocated).
bool MayContain(const dl_phdr_info& info, uintptr_t a) {
  for (int i = 0; i < info.dlpi_phnum; ++i) {
    const ElfW(Phdr)& ph = info.dlpi_phdr[i];
    uintptr_t b = info.dlpi_addr + ph.p_vaddr;
    if (ph.p_type == PT_LOAD && (ph.p_flags & PF_R) && a >= b && a - b < ph.p_memsz) return true;
  }
  return false;
}

int VisitObjectOrThrow(dl_phdr_info* info, ObjectQuery* q) {
  if (q->bias_known && info->dlpi_addr != q->bias) return 0;
  if (!MayContain(*info, q->containing)) return 0;
  std::vector<AddressBounds::Segment> segments = SegmentsOf(*info);
  if (BytesFrom(segments, q->containing, false) == 0) return 0;
  q->segments = std::move(segments);
  return 1;
}

// No exception may unwind through dl_iterate_phdr (glibc holds its loader lock there): an
// allocation failure stops the walk and is thrown by Walk, after it.
int VisitObject(dl_phdr_info* info, size_t, void* data) {
  auto* q = static_cast<ObjectQuery*>(data);
  try {
    return VisitObjectOrThrow(info, q);
  } catch (const std::bad_alloc&) {
    q->out_of_memory = true;
    return 1;
  }
}

void Walk(ObjectQuery* q) {
  ::dl_iterate_phdr(VisitObject, q);
  if (q->out_of_memory) throw std::bad_alloc();
}

// The segments of the object q->containing lies in, the walk filtered by q's bias when known; if
// the filter finds nothing (a bias that is not the object's), the whole walk decides.
AddressBounds SegmentsOfQuery(ObjectQuery q) {
  Walk(&q);
  if (q.segments.empty() && q.bias_known) {
    q.bias_known = false;
    Walk(&q);
  }
  return AddressBounds(std::move(q.segments));
}

}  // namespace

AddressBounds AddressBounds::OfObjectContaining(const void* address) {
  if (!address) return AddressBounds();
  ObjectQuery q;
  q.containing = reinterpret_cast<uintptr_t>(address);
  FindBias(&q);
  return SegmentsOfQuery(std::move(q));
}

AddressBounds AddressBounds::OfObjectContaining(const void* address, uintptr_t load_bias) {
  if (!address) return AddressBounds();
  ObjectQuery q;
  q.containing = reinterpret_cast<uintptr_t>(address);
  q.bias = load_bias;
  q.bias_known = true;
  return SegmentsOfQuery(std::move(q));
}

AddressBounds AddressBounds::AnyLoadedObject() {
  AddressBounds b;
  b.any_loaded_object_ = true;
  return b;
}

size_t AddressBounds::Find(const void* p, bool writable) const {
  uintptr_t a = reinterpret_cast<uintptr_t>(p);
  if (!any_loaded_object_) return BytesFrom(segments_, a, writable);
  ObjectQuery q;
  q.containing = a;
  Walk(&q);
  return BytesFrom(q.segments, a, writable);
}

bool AddressBounds::Contains(const void* p, size_t bytes, bool writable) const {
  if (p == nullptr) return false;
  size_t avail = Find(p, writable);
  return avail > 0 && avail >= bytes;
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

void AddressBounds::RequireReadable(const void* p, size_t bytes, const std::string& field) const {
  Require(p, bytes, false, field);
}

void AddressBounds::RequireWritable(const void* p, size_t bytes, const std::string& field) const {
  Require(p, bytes, true, field);
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
