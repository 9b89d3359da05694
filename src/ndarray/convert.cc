// The conversion rule for values given to a tensor of another dtype (include/aotrt/ndarray.h,
// README "Giving inputs of another dtype"). Two passes: every value is checked before any is
// written, so a refused conversion leaves the destination as it was.
#include <charconv>
#include <cmath>
#include <cstring>
#include <limits>
#include <string>
#include <type_traits>
#include <vector>

#include "aotrt/half.h"
#include "aotrt/ndarray.h"
#include "base/error_util.h"

namespace aotrt {
namespace {

enum class Kind { kBool, kInt, kUInt, kFloat, kOther };

Kind KindOf(DLDataType t) {
  if (t.lanes != 1) return Kind::kOther;
  if ((t.code == kDLUInt && t.bits == 1) || (t.code == 6 /* kDLBool */ && t.bits == 8)) return Kind::kBool;
  bool pow2 = t.bits == 8 || t.bits == 16 || t.bits == 32 || t.bits == 64;
  if (t.code == kDLInt && pow2) return Kind::kInt;
  if (t.code == kDLUInt && pow2) return Kind::kUInt;
  if (t.code == kDLFloat && (t.bits == 16 || t.bits == 32 || t.bits == 64)) return Kind::kFloat;
  return Kind::kOther;
}

// Element types by storage: a tag per dtype the rule knows.
struct Bool { using S = uint8_t; static constexpr Kind kind = Kind::kBool; };
template <typename T> struct Int { using S = T; static constexpr Kind kind = std::is_signed_v<T> ? Kind::kInt : Kind::kUInt; };
struct Half { using S = uint16_t; static constexpr Kind kind = Kind::kFloat; };
template <typename T> struct Float { using S = T; static constexpr Kind kind = Kind::kFloat; };

// Why a value does not survive, for the message.
struct Failure {
  int64_t index = -1;          // of the first value that does not survive; -1: none
  std::string value, becomes;  // "1e+300", "inf"
  bool range = false;          // an integer outside the destination's range (no "becomes")
};

// An integer or double in its shortest text ("1e+300"); int8_t as a number, not a character.
template <typename T>
std::string NumText(T v) {
  char buf[64];
  auto r = std::to_chars(buf, buf + sizeof buf, v);
  return std::string(buf, r.ptr);
}

template <typename From>
double AsDouble(typename From::S v) {
  if constexpr (std::is_same_v<From, Half>) {
    return static_cast<double>(__gnu_h2f_ieee(v));
  } else {
    return static_cast<double>(v);
  }
}

// `v` stored as To (a float: rounded to nearest; a half through a double, exact for every integer a half holds).
template <typename To, typename V>
typename To::S Store(V v) {
  if constexpr (std::is_same_v<To, Half>) {
    return __truncdfhf2(static_cast<double>(v));
  } else {
    return static_cast<typename To::S>(v);
  }
}

// One element: the converted value in *out; false (with *why filled) when it does not survive.
template <typename From, typename To>
bool ConvertOne(typename From::S in, typename To::S* out, Failure* why) {
  using TS = typename To::S;
  if constexpr (From::kind == Kind::kBool) {
    *out = Store<To>(in != 0 ? 1.0 : 0.0);
    return true;
  } else if constexpr (From::kind == Kind::kInt || From::kind == Kind::kUInt) {
    const __int128 x = static_cast<__int128>(in);
    if constexpr (To::kind == Kind::kInt || To::kind == Kind::kUInt) {
      if (x < static_cast<__int128>(std::numeric_limits<TS>::min()) ||
          x > static_cast<__int128>(std::numeric_limits<TS>::max())) {
        why->value = NumText(in);
        why->range = true;
        return false;
      }
      *out = static_cast<TS>(in);
      return true;
    } else {  // to a float: exactly, or refused
      TS f = Store<To>(in);
      double back = AsDouble<To>(f);
      if (std::isfinite(back) && std::fabs(back) < 1.7e38 && static_cast<__int128>(back) == x) {
        *out = f;
        return true;
      }
      why->value = NumText(in);
      why->becomes = NumText(back);
      return false;
    }
  } else {  // float to float: rounded to nearest; a finite value must stay finite
    static_assert(To::kind == Kind::kFloat, "float converts only to float (checked per dtype)");
    double d = AsDouble<From>(in);
    TS f = Store<To>(d);
    if (std::isinf(AsDouble<To>(f)) && std::isfinite(d)) {
      why->value = NumText(d);
      why->becomes = d > 0 ? "inf" : "-inf";
      return false;
    }
    *out = f;
    return true;
  }
}

template <typename From, typename To>
void ConvertAll(const void* src, void* dst, int64_t n, Failure* why) {
  const auto* s = static_cast<const typename From::S*>(src);
  for (bool write : {false, true}) {  // every value checked before any is written
    for (int64_t i = 0; i < n; ++i) {
      typename From::S v;
      std::memcpy(&v, s + i, sizeof v);
      typename To::S out{};
      if (!ConvertOne<From, To>(v, &out, why)) {
        why->index = i;
        return;
      }
      if (write) std::memcpy(static_cast<typename To::S*>(dst) + i, &out, sizeof out);
    }
  }
}

// Calls visit(T{}) with T the one of T8, T16, T32, T64 of `bits` bits (of 8, 16, 32, 64).
template <typename T8, typename T16, typename T32, typename T64, typename Visit>
void VisitBits(int bits, Visit& visit) {
  bits == 8 ? visit(T8{}) : bits == 16 ? visit(T16{}) : bits == 32 ? visit(T32{}) : visit(T64{});
}

// Calls visit(T{}) with the element type T of `t` (a tag above); nothing for a dtype without one.
template <typename Visit>
void WithElementType(DLDataType t, Visit&& visit) {
  switch (KindOf(t)) {
    case Kind::kBool: return visit(Bool{});
    case Kind::kInt: return VisitBits<Int<int8_t>, Int<int16_t>, Int<int32_t>, Int<int64_t>>(t.bits, visit);
    case Kind::kUInt: return VisitBits<Int<uint8_t>, Int<uint16_t>, Int<uint32_t>, Int<uint64_t>>(t.bits, visit);
    case Kind::kFloat: return VisitBits<Half, Half, Float<float>, Float<double>>(t.bits, visit);  // no 8-bit float
    case Kind::kOther: return;
  }
}

// Bool converts only to bool, float only to float (the rule is checked per dtype before this).
void Dispatch(DLDataType from, DLDataType to, const void* src, void* dst, int64_t n, Failure* why) {
  bool converted = false;
  WithElementType(from, [&](auto from_tag) {
    using From = decltype(from_tag);
    WithElementType(to, [&](auto to_tag) {
      using To = decltype(to_tag);
      constexpr bool allowed = To::kind == Kind::kBool ? From::kind == Kind::kBool
                                                       : To::kind == Kind::kFloat || From::kind != Kind::kFloat;
      if constexpr (allowed) {
        ConvertAll<From, To>(src, dst, n, why);
        converted = true;
      }
    });
  });
  if (!converted) AOTRT_THROW(kInternal, "ConvertTensor: no conversion (checked before)");
}

// "[1, 4]" for flat index 9 of shape [2, 5]; "[9]" without a shape.
std::string IndexText(int64_t flat, const int64_t* shape, int ndim) {
  if (ndim <= 0 || shape == nullptr) return ShapeToString(&flat, 1);
  std::vector<int64_t> idx(static_cast<size_t>(ndim));
  for (int d = ndim - 1; d >= 0; --d) {
    int64_t n = shape[d] > 0 ? shape[d] : 1;
    idx[static_cast<size_t>(d)] = flat % n;
    flat /= n;
  }
  return ShapeToString(idx.data(), ndim);
}

std::string RangeText(DLDataType t) {
  auto bits = t.bits;
  if (t.code == kDLInt) {
    __int128 hi = (static_cast<__int128>(1) << (bits - 1)) - 1;
    return "[" + NumText(static_cast<int64_t>(-hi - 1)) + ", " + NumText(static_cast<int64_t>(hi)) + "]";
  }
  unsigned __int128 hi = (static_cast<unsigned __int128>(1) << bits) - 1;
  return "[0, " + NumText(static_cast<uint64_t>(hi)) + "]";
}

}  // namespace

void CheckConversion(DLDataType from, DLDataType to, const std::string& what) {
  if (DataTypeEqual(from, to)) return;
  Kind f = KindOf(from), t = KindOf(to);
  std::string head = StrCat(what, ": expected dtype ", DataTypeToString(to), ", got ", DataTypeToString(from));
  AOTRT_REQUIRE(f != Kind::kOther && t != Kind::kOther, kTypeMismatch, head,
                ": only bool, int, uint and float dtypes of one lane convert into each other");
  AOTRT_REQUIRE(!(f == Kind::kFloat && t != Kind::kFloat), kTypeMismatch, head,
                ": a float is not converted to ", t == Kind::kBool ? "bool" : "an integer",
                " (it would be truncated); convert explicitly if that is what you mean");
  AOTRT_REQUIRE(!(t == Kind::kBool && f != Kind::kBool), kTypeMismatch, head,
                ": only bool converts to bool; compare explicitly (e.g. x != 0) if that is what you mean");
}

void ConvertTensor(const DLTensor& from, DLTensor* to, const std::string& what) {
  AOTRT_REQUIRE(to != nullptr, kInvalidArgument, what, ": no destination");
  CheckConversion(from.dtype, to->dtype, what);
  int64_t n = ShapeElements(from.shape, from.ndim);
  int64_t m = ShapeElements(to->shape, to->ndim);
  AOTRT_REQUIRE(n == m, kShapeMismatch, what, ": ", n, " values for ", m, " elements (shape ",
                ShapeToString(from.shape, from.ndim), " into ", ShapeToString(to->shape, to->ndim), ")");
  AOTRT_REQUIRE(IsContiguous(from) && IsContiguous(*to), kInvalidArgument, what, ": tensor is not contiguous");
  if (n == 0) return;
  AOTRT_REQUIRE(from.data && to->data, kInvalidArgument, what, ": null data pointer");
  const void* src = static_cast<const char*>(from.data) + from.byte_offset;
  void* dst = static_cast<char*>(to->data) + to->byte_offset;
  if (DataTypeEqual(from.dtype, to->dtype)) {
    std::memmove(dst, src, static_cast<size_t>(n) * DataTypeBytes(from.dtype));
    return;
  }
  Failure why;
  Dispatch(from.dtype, to->dtype, src, dst, n, &why);
  if (why.index < 0) return;
  std::string head = StrCat(what, ": expected dtype ", DataTypeToString(to->dtype), ", got ",
                            DataTypeToString(from.dtype), " holding ", why.value, " at index ",
                            IndexText(why.index, from.shape, from.ndim));
  AOTRT_REQUIRE(!why.range, kTypeMismatch, head, ", outside ", DataTypeToString(to->dtype), "'s range ",
                RangeText(to->dtype), " (it would wrap around)");
  AOTRT_THROW(kTypeMismatch, head, ", which does not survive the conversion: it would become ", why.becomes);
}

}  // namespace aotrt
