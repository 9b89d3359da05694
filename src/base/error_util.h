// Helpers to build and throw aotrt::Error with a message assembled from pieces.
//
// StrCat appends strings, characters and numbers itself (std::to_chars), and sends only other
// types through an ostream.
#pragma once

#include <charconv>
#include <cstdint>
#include <sstream>
#include <string>
#include <string_view>
#include <type_traits>
#include <utility>

#include "aotrt/error.h"

namespace aotrt {

// Whether `s` ends with `suffix`.
inline bool EndsWith(std::string_view s, std::string_view suffix) {
  return s.size() >= suffix.size() && s.compare(s.size() - suffix.size(), suffix.size(), suffix) == 0;
}

// A number printed in lower-case hexadecimal, without a prefix, zero-padded to `width` digits:
// StrCat("0x", Hex{v}), StrCat(Hex{hash, 16}).
struct Hex {
  uint64_t value;
  int width = 0;
};

namespace str_cat_detail {

// Out of Append, so that to_chars is compiled once per integer type, not into every Append
// instantiation (22 KB of libaotrt's text).
template <typename T>
void AppendNumber(std::string& out, T v) {
  char buf[64];
  auto r = std::to_chars(buf, buf + sizeof buf, v);
  out.append(buf, r.ptr);
}

inline void Append(std::string& out, std::string_view v) { out.append(v.data(), v.size()); }
inline void Append(std::string& out, const std::string& v) { out += v; }
inline void Append(std::string& out, const char* v) { out += v ? v : "(null)"; }
inline void Append(std::string& out, char* v) { Append(out, static_cast<const char*>(v)); }
inline void Append(std::string& out, Hex v) {
  char buf[20];
  auto r = std::to_chars(buf, buf + sizeof buf, v.value, 16);
  if (r.ptr - buf < v.width) out.append(static_cast<size_t>(v.width - (r.ptr - buf)), '0');
  out.append(buf, r.ptr);
}
inline void Append(std::string& out, const void* p) {
  out += "0x";
  Append(out, Hex{reinterpret_cast<uintptr_t>(p)});
}

template <typename T>
void Append(std::string& out, const T& v) {
  using D = std::decay_t<T>;
  if constexpr (std::is_same_v<D, char> || std::is_same_v<D, signed char> || std::is_same_v<D, unsigned char>) {
    out += static_cast<char>(v);  // as an ostream prints them: the character
  } else if constexpr (std::is_same_v<D, bool>) {
    out += v ? '1' : '0';
  } else if constexpr (std::is_integral_v<D>) {
    AppendNumber(out, v);
  } else if constexpr (std::is_floating_point_v<D>) {
    char buf[64];  // an ostream's default: %g, 6 significant digits
    auto r = std::to_chars(buf, buf + sizeof buf, v, std::chars_format::general, 6);
    out.append(buf, r.ptr);
  } else if constexpr (std::is_pointer_v<D>) {
    Append(out, static_cast<const void*>(v));
  } else {
    std::ostringstream os;  // enums, and types with their own operator<<
    os << v;
    out += os.str();
  }
}

}  // namespace str_cat_detail

// Appends to `out` what StrCat would return (no temporary string: with reserve, no allocation).
template <typename... Args>
void StrAppend(std::string& out, Args&&... args) {
  (str_cat_detail::Append(out, std::forward<Args>(args)), ...);
}

template <typename... Args>
std::string StrCat(Args&&... args) {
  std::string out;
  StrAppend(out, std::forward<Args>(args)...);
  return out;
}

}  // namespace aotrt

// Throw aotrt::Error(ErrorCode::CODE, <pieces concatenated>).
#define AOTRT_THROW(CODE, ...) throw ::aotrt::Error(::aotrt::ErrorCode::CODE, ::aotrt::StrCat(__VA_ARGS__))

// Throw when COND is false. For caller input and file bytes: never an abort.
#define AOTRT_REQUIRE(COND, CODE, ...) \
  do {                                 \
    if (!(COND)) AOTRT_THROW(CODE, __VA_ARGS__); \
  } while (0)

namespace aotrt {

// f(), an aotrt::Error it throws rethrown as a kFormatError (kOutOfMemory stays itself) whose
// message is `prefix...` then the error's: for a reader whose callee failing means the file is malformed.
template <typename F, typename... Prefix>
auto AsFormatError(F&& f, const Prefix&... prefix) -> decltype(f()) {
  try {
    return f();
  } catch (const Error& e) {
    throw Error(e.code() == ErrorCode::kOutOfMemory ? e.code() : ErrorCode::kFormatError, StrCat(prefix..., e.what()));
  }
}

}  // namespace aotrt
