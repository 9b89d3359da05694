// StrCat (base/error_util.h) formats pieces itself, as an ostream would by default, and sends
// only other types through an ostream.
#include <gtest/gtest.h>

#include <cstdint>
#include <limits>
#include <string>

#include "base/error_util.h"

using aotrt::Hex;
using aotrt::StrCat;

namespace {

enum Plain { kPlainSeven = 7 };

struct Streamed {
  int v;
};
std::ostream& operator<<(std::ostream& os, const Streamed& s) { return os << "<" << s.v << ">"; }

}  // namespace

TEST(StrCat, StringsAndCharacters) {
  std::string s = "str";
  const char* null = nullptr;
  EXPECT_EQ(StrCat("a", s, std::string_view("view"), 'c', static_cast<unsigned char>('u'),
                   static_cast<signed char>('s')),
            "astrviewcus");
  EXPECT_EQ(StrCat("before ", null, " after"), "before (null) after");  // an ostream would drop the rest
  EXPECT_EQ(StrCat(), "");
}

TEST(StrCat, IntegersInEveryWidthAndSign) {
  EXPECT_EQ(StrCat(int8_t{-5}, int16_t{-300}, ' ', uint16_t{65535}), std::string("\xfb") + "-300 65535");
  EXPECT_EQ(StrCat(std::numeric_limits<int64_t>::min()), "-9223372036854775808");
  EXPECT_EQ(StrCat(std::numeric_limits<uint64_t>::max()), "18446744073709551615");
  EXPECT_EQ(StrCat(0, " ", -1L, " ", 42u, " ", size_t{7}), "0 -1 42 7");
  EXPECT_EQ(StrCat(true, false), "10");
}

TEST(StrCat, FloatingPointAsAnOstreamsDefault) {
  EXPECT_EQ(StrCat(1.5), "1.5");
  EXPECT_EQ(StrCat(0.1f), "0.1");
  EXPECT_EQ(StrCat(1234567.0), "1.23457e+06");
  EXPECT_EQ(StrCat(3.0), "3");
  EXPECT_EQ(StrCat(-0.000012345), "-1.2345e-05");
}

TEST(StrCat, PointersAndHex) {
  int x = 0;
  std::ostringstream os;
  os << static_cast<const void*>(&x);
  EXPECT_EQ(StrCat(static_cast<const void*>(&x)), os.str());
  EXPECT_EQ(StrCat(&x), os.str());
  EXPECT_EQ(StrCat(static_cast<const void*>(nullptr)), "0x0");
  EXPECT_EQ(StrCat("0x", Hex{0xdd5e40f3}), "0xdd5e40f3");
  EXPECT_EQ(StrCat(Hex{0xab, 8}), "000000ab");
  EXPECT_EQ(StrCat(Hex{0x123456789, 4}), "123456789");  // the width is a minimum
}

TEST(StrCat, OtherTypesGoThroughTheirOperator) {
  EXPECT_EQ(StrCat(kPlainSeven, " ", Streamed{3}), "7 <3>");
}
