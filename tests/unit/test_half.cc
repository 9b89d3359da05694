// The float16 conversions models import from the runtime (include/aotrt/half.h), against the
// hardware as an independent reference (x86 F16C; AArch64 FCVT, through __fp16): every half, and
// every float32 bit pattern.
// (float64 -> half has no hardware reference; python_stubs/tests/test_half.py checks it against
// numpy, with every rounding boundary.)
#include <gtest/gtest.h>
#if defined(__x86_64__)
#include <immintrin.h>
#endif

#include <cmath>
#include <cstdint>
#include <cstring>

#include "aotrt/half.h"

namespace {

#if defined(__x86_64__)
bool HaveF16C() { return __builtin_cpu_supports("f16c"); }

__attribute__((target("f16c"))) uint16_t F16CFromFloat(float f) {
  return static_cast<uint16_t>(_cvtss_sh(f, _MM_FROUND_TO_NEAREST_INT));
}
__attribute__((target("f16c"))) float F16CToFloat(uint16_t h) { return _cvtsh_ss(h); }
#elif defined(__aarch64__)
// FCVT rounds to nearest even (FPCR's default) and quiets a NaN keeping its payload, as F16C does.
bool HaveF16C() { return true; }
uint16_t F16CFromFloat(float f) {
  __fp16 h = f;
  uint16_t u;
  std::memcpy(&u, &h, sizeof u);
  return u;
}
float F16CToFloat(uint16_t u) {
  __fp16 h;
  std::memcpy(&h, &u, sizeof h);
  return h;
}
#else
bool HaveF16C() { return false; }
uint16_t F16CFromFloat(float) { return 0; }
float F16CToFloat(uint16_t) { return 0; }
#endif

uint32_t Bits(float f) {
  uint32_t u;
  std::memcpy(&u, &f, sizeof u);
  return u;
}
float FromBits(uint32_t u) {
  float f;
  std::memcpy(&f, &u, sizeof f);
  return f;
}
bool IsSignalingNaNHalf(uint32_t h) { return (h & 0x7c00) == 0x7c00 && (h & 0x3ff) != 0 && !(h & 0x200); }

TEST(Half, EveryHalfWidensExactlyAndRoundTrips) {
  if (!HaveF16C()) GTEST_SKIP() << "CPU without half-precision conversions";
  for (uint32_t h = 0; h <= 0xffff; ++h) {
    float got = __gnu_h2f_ieee(static_cast<uint16_t>(h));
    uint32_t want = Bits(F16CToFloat(static_cast<uint16_t>(h)));
    // F16C quiets a signaling NaN; the runtime keeps the bits (compiler-rt's extend does too).
    if (IsSignalingNaNHalf(h)) want &= ~0x00400000u;
    ASSERT_EQ(Bits(got), want) << std::hex << "half 0x" << h;
    uint16_t back = __gnu_f2h_ieee(got);
    uint32_t expect_back = IsSignalingNaNHalf(h) ? (h | 0x200) : h;  // narrowing quiets a NaN
    ASSERT_EQ(back, expect_back) << std::hex << "half 0x" << h;
    ASSERT_EQ(__truncdfhf2(static_cast<double>(got)), expect_back) << std::hex << "half 0x" << h;
  }
}

TEST(Half, EveryFloatNarrowsLikeF16C) {
  if (!HaveF16C()) GTEST_SKIP() << "CPU without half-precision conversions";
  // All 2^32 bit patterns: every rounding boundary, NaN payload, subnormal and overflow case.
  uint64_t mismatches = 0;
  uint32_t first_bad = 0;
  for (uint64_t u = 0; u <= 0xffffffffull; ++u) {
    float f = FromBits(static_cast<uint32_t>(u));
    if (__gnu_f2h_ieee(f) != F16CFromFloat(f) && mismatches++ == 0) first_bad = static_cast<uint32_t>(u);
  }
  EXPECT_EQ(mismatches, 0u) << std::hex << "first differing float bits 0x" << first_bad;
}

TEST(Half, NamedCases) {
  EXPECT_EQ(__gnu_f2h_ieee(0.0f), 0x0000);
  EXPECT_EQ(__gnu_f2h_ieee(-0.0f), 0x8000);
  EXPECT_EQ(__gnu_f2h_ieee(1.0f), 0x3c00);
  EXPECT_EQ(__gnu_f2h_ieee(65504.0f), 0x7bff);        // largest finite
  EXPECT_EQ(__gnu_f2h_ieee(65519.996f), 0x7bff);      // just below the overflow boundary
  EXPECT_EQ(__gnu_f2h_ieee(65520.0f), 0x7c00);        // tie to even rounds up to infinity
  EXPECT_EQ(__gnu_f2h_ieee(-1e10f), 0xfc00);
  EXPECT_EQ(__gnu_f2h_ieee(0x1p-24f), 0x0001);        // smallest subnormal
  EXPECT_EQ(__gnu_f2h_ieee(0x1p-25f), 0x0000);        // tie to even: 0
  EXPECT_EQ(__gnu_f2h_ieee(0x1.000002p-25f), 0x0001);  // just above the tie
  EXPECT_EQ(__gnu_f2h_ieee(0x1.8p-24f), 0x0002);      // 1.5 units: tie to even (2)
  EXPECT_EQ(__gnu_f2h_ieee(1.0f + 0x1p-11f), 0x3c00);  // tie between 1 and 1+2^-10: even (1)
  EXPECT_EQ(__gnu_f2h_ieee(std::nanf("")), 0x7e00);
  EXPECT_EQ(__gnu_f2h_ieee(FromBits(0xff800001u)), 0xfe00);  // signaling -NaN: quieted, sign kept
  // double: rounded once. 1 + 2^-11 + 2^-40 is above the tie; through float it would become a tie.
  EXPECT_EQ(__truncdfhf2(1.0 + 0x1p-11 + 0x1p-40), 0x3c01);
  EXPECT_EQ(__gnu_f2h_ieee(static_cast<float>(1.0 + 0x1p-11 + 0x1p-40)), 0x3c00);
  EXPECT_EQ(__truncdfhf2(1e300), 0x7c00);
  EXPECT_EQ(__truncdfhf2(1e-300), 0x0000);
  EXPECT_EQ(__truncdfhf2(-0x1p-24), 0x8001);
  EXPECT_EQ(__gnu_h2f_ieee(0x0001), 0x1p-24f);
  EXPECT_EQ(__gnu_h2f_ieee(0x7bff), 65504.0f);
  EXPECT_TRUE(std::isinf(__gnu_h2f_ieee(0xfc00)) && std::signbit(__gnu_h2f_ieee(0xfc00)));
}

}  // namespace
