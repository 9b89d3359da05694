// The memory a loaded model library may be read from (and written to): its PT_LOAD segments at
// the load bias. Every pointer, array and string the runtime takes from a library is checked
// against them before it is read. Immutable once built: thread-safe to share.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace aotrt {

class AddressBounds {
 public:
  struct Segment {
    uintptr_t begin;
    uintptr_t end;  // exclusive
    bool writable;  // PF_W and outside PT_GNU_RELRO (made read-only after relocation)
  };

  // Nothing readable: every check fails.
  AddressBounds() = default;
  // Exactly `segments` (tests and fuzz targets: a buffer standing for a library's image).
  explicit AddressBounds(std::vector<Segment> segments) : segments_(std::move(segments)) {}
  // The segments of the loaded object (library or executable) containing `address`, e.g. one of a
  // dlopened library's own symbols (dl_iterate_phdr); nothing readable when none contains it.
  // Never throws except std::bad_alloc.
  static AddressBounds OfObjectContaining(const void* address);
  // For a system library (code linked into the process, symbols registered at start-up): a pointer
  // is in bounds when it lies in the segments of whichever loaded object (executable or shared
  // library, dladdr's view) contains it.
  static AddressBounds AnyLoadedObject() {
    AddressBounds b;
    b.any_loaded_object_ = true;
    return b;
  }

  // Bytes readable from `p` to the end of the segment containing it; 0 when outside.
  size_t Readable(const void* p) const { return Find(p, false); }

  // RequireReadable's and ReadString's checks without their messages (callers build the field's
  // name only when one fails). ContainsReadable: [p, p + bytes) lies in one readable segment.
  bool ContainsReadable(const void* p, size_t bytes) const { return Contains(p, bytes, false); }
  // StringLength: the length of the valid string at `s` (as ReadString would return it), or -1.
  ptrdiff_t StringLength(const char* s, size_t max_len) const;
  // Throw Error(kFormatError) "<field> pointer 0x... (N bytes) is outside the library's mapped
  // segments" unless [p, p + bytes) lies inside one readable (writable) segment; a null `p` is
  // "<field> is a null pointer". Callers prefix the library's name.
  void RequireReadable(const void* p, size_t bytes, const std::string& f) const { Require(p, bytes, false, f); }
  void RequireWritable(const void* p, size_t bytes, const std::string& f) const { Require(p, bytes, true, f); }
  // The NUL-terminated string at `s`, which must end inside its segment and within `max_len` bytes.
  // Throws kFormatError naming `field` (null, outside, unterminated or too long).
  std::string ReadString(const char* s, size_t max_len, const std::string& field) const;

 private:
  size_t Find(const void* p, bool writable) const;
  bool Contains(const void* p, size_t bytes, bool writable) const {  // what Require checks
    size_t avail = p ? Find(p, writable) : 0;
    return avail > 0 && avail >= bytes;
  }
  void Require(const void* p, size_t bytes, bool writable, const std::string& field) const;

  std::vector<Segment> segments_;
  bool any_loaded_object_ = false;
};

}  // namespace aotrt
