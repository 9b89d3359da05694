// Bounded reading of the binary formats (blob, NDArray, params, factory payload).
//
// SpanStream is a dmlc::SeekStream over borrowed read-only bytes. BoundedReader reads the dmlc
// serializer encodings (ABI.md 5.1) from any dmlc::Stream and checks every length against the bytes
// that remain before allocating, so corrupt input yields Error(kFormatError), never an overread or
// a huge allocation. Neither is thread-safe; both are cheap to create.
#pragma once

#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

#include <dmlc/io.h>

#include "base/error_util.h"

namespace aotrt {

class SpanStream : public dmlc::SeekStream {
 public:
  SpanStream(const void* data, size_t size) : data_(static_cast<const char*>(data)), size_(size) {}
  SpanStream(const SpanStream&) = delete;
  SpanStream& operator=(const SpanStream&) = delete;

  size_t Read(void* ptr, size_t size) override {
    size_t n = size < size_ - pos_ ? size : size_ - pos_;
    if (n) std::memcpy(ptr, data_ + pos_, n);
    pos_ += n;
    return n;
  }
  void Write(const void*, size_t) override { AOTRT_THROW(kInternal, "SpanStream is read-only"); }
  void Seek(size_t pos) override { pos_ = pos < size_ ? pos : size_; }
  size_t Tell() override { return pos_; }

 private:
  const char* data_;
  size_t size_;
  size_t pos_ = 0;
};

class BoundedReader {
 public:
  // `what` names the thing being parsed in error messages, e.g. "module blob of model.so".
  BoundedReader(dmlc::Stream* stream, uint64_t size, std::string what)
      : stream_(stream), size_(size), what_(std::move(what)) {}

  uint64_t offset() const { return offset_; }
  uint64_t remaining() const { return size_ - offset_; }
  const std::string& what() const { return what_; }

  void ReadBytes(void* dst, uint64_t n, const char* field) {
    Need(n, field);
    if (n && stream_->Read(dst, n) != n) Truncated(n, field);
    offset_ += n;
  }
  // Account for `n` bytes consumed directly from the underlying stream by someone else.
  void Advance(uint64_t n, const char* field) {
    Need(n, field);
    offset_ += n;
  }
  template <typename T>
  T Read(const char* field) {
    T v;
    ReadBytes(&v, sizeof(T), field);  // little-endian hosts only (checked at build time)
    return v;
  }
  // A count that is followed by `count` items of at least `min_item_bytes` each.
  uint64_t ReadCount(const char* field, uint64_t min_item_bytes) {
    uint64_t n = Read<uint64_t>(field);
    if (min_item_bytes && n > remaining() / min_item_bytes) {
      AOTRT_THROW(kFormatError, what_, ": ", field, " claims ", n, " items at byte ", offset_ - 8,
                  " but only ", remaining(), " bytes remain");
    }
    return n;
  }
  std::string ReadString(const char* field) {
    uint64_t n = ReadCount(field, 1);
    std::string s(n, '\0');
    ReadBytes(s.data(), n, field);
    return s;
  }
  std::vector<std::string> ReadStringVector(const char* field) {
    uint64_t n = ReadCount(field, 8);
    std::vector<std::string> v;
    v.reserve(n);
    for (uint64_t i = 0; i < n; ++i) v.push_back(ReadString(field));
    return v;
  }
  std::vector<uint64_t> ReadU64Vector(const char* field) {
    uint64_t n = ReadCount(field, 8);
    std::vector<uint64_t> v(n);
    ReadBytes(v.data(), n * 8, field);
    return v;
  }
  [[noreturn]] void Fail(const std::string& message) const {
    AOTRT_THROW(kFormatError, what_, ": ", message, " (at byte ", offset_, ")");
  }

 private:
  void Need(uint64_t n, const char* field) const {
    if (n > remaining()) Truncated(n, field);
  }
  [[noreturn]] void Truncated(uint64_t n, const char* field) const {
    AOTRT_THROW(kFormatError, what_, ": truncated at byte ", offset_, " reading ", field, ": need ", n,
                " bytes, ", remaining(), " left");
  }
  dmlc::Stream* stream_;
  uint64_t size_;
  uint64_t offset_ = 0;
  std::string what_;
};

static_assert(__BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__, "aotrt reads little-endian formats natively");

// Appends a u64 (a count), or a u64 length and the bytes, as BoundedReader::ReadCount / ReadString read them.
inline void WriteU64(uint64_t n, std::string* out) { out->append(reinterpret_cast<const char*>(&n), 8); }
inline void WriteString(const std::string& s, std::string* out) {
  WriteU64(s.size(), out);
  *out += s;
}

}  // namespace aotrt
