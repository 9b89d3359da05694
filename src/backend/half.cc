// float16 conversions for model libraries (include/aotrt/half.h). One bit-level routine serves
// float and double: the value is split into sign, biased exponent and significand, then rounded
// once to binary16. Written out rather than taken from compiler-rt, which Debian ships only as a
// static archive for clang (libclang-rt-*-dev), not as something a gcc-built library can link.
#include "aotrt/half.h"

#include <cstring>

namespace {

// Rounds the float or double with bits `x` to binary16.
template <typename Bits, int kSigBits, int kExpBits>
uint16_t ToHalf(Bits x) {
  constexpr int kBias = (1 << (kExpBits - 1)) - 1;
  constexpr Bits kSigMask = (Bits(1) << kSigBits) - 1;
  constexpr Bits kExpMax = (Bits(1) << kExpBits) - 1;
  const uint16_t sign = static_cast<uint16_t>((x >> (kSigBits + kExpBits - 15)) & 0x8000);
  const Bits exp = (x >> kSigBits) & kExpMax;
  const Bits sig = x & kSigMask;
  if (exp == kExpMax) {
    if (sig == 0) return sign | 0x7c00;  // infinity
    // NaN: quiet it and keep the top payload bits below the quiet bit.
    return sign | 0x7e00 | static_cast<uint16_t>((sig >> (kSigBits - 10)) & 0x1ff);
  }
  // |value| = full * 2^(e - kBias - kSigBits); normal halves use exponent fields 1..30.
  const Bits full = exp ? (sig | (Bits(1) << kSigBits)) : sig;
  const int e = exp ? static_cast<int>(exp) : 1;
  const int half_exp = e - kBias + 15;
  if (half_exp >= 31) return sign | 0x7c00;   // >= 65536 before rounding: overflow
  int drop;  // low bits of `full` that do not fit in the half
  Bits result;
  if (half_exp >= 1) {
    drop = kSigBits - 10;  // normal half: keep 10 fraction bits, the exponent comes from half_exp
    result = (Bits(half_exp) << 10) | ((full >> drop) & 0x3ff);
  } else {
    drop = kBias + kSigBits - 24 - e;  // subnormal half: |value| / 2^-24 = full >> drop (drop >= 14)
    if (drop > kSigBits + 1) return sign;  // below half the smallest subnormal: +-0
    result = full >> drop;
  }
  const Bits rest = full & ((Bits(1) << drop) - 1);
  const Bits halfway = Bits(1) << (drop - 1);
  // Round to nearest even; a carry out of the fraction moves into the exponent, and out of the
  // largest finite (0x7bff) into infinity (0x7c00): the encoding makes both right.
  if (rest > halfway || (rest == halfway && (result & 1))) ++result;
  return sign | static_cast<uint16_t>(result);
}

}  // namespace

extern "C" {

__attribute__((weak)) uint16_t __gnu_f2h_ieee(float value) {
  uint32_t x;
  std::memcpy(&x, &value, sizeof x);
  return ToHalf<uint32_t, 23, 8>(x);
}

__attribute__((weak)) uint16_t __truncdfhf2(double value) {
  uint64_t x;
  std::memcpy(&x, &value, sizeof x);
  return ToHalf<uint64_t, 52, 11>(x);
}

__attribute__((weak)) float __gnu_h2f_ieee(uint16_t bits) {
  const uint32_t sign = static_cast<uint32_t>(bits & 0x8000) << 16;
  const uint32_t exp = (bits >> 10) & 0x1f;
  const uint32_t frac = bits & 0x3ff;
  uint32_t out;
  if (exp == 0x1f) {
    out = sign | 0x7f800000 | (frac << 13);  // inf, or NaN with its payload
  } else if (exp != 0) {
    out = sign | ((exp + 127 - 15) << 23) | (frac << 13);
  } else {
    float mag = static_cast<float>(frac) * 0x1p-24f;  // subnormal or zero: exact
    std::memcpy(&out, &mag, sizeof out);
    out |= sign;
  }
  float f;
  std::memcpy(&f, &out, sizeof f);
  return f;
}

}  // extern "C"
