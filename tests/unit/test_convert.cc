// The one conversion rule of every input path (issue 26; aotrt::ConvertTensor, README "Inputs in
// another dtype"): a value is accepted only when it survives the conversion.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <vector>

#include "aotrt/c_api.h"
#include "aotrt/half.h"
#include "aotrt/ndarray.h"
#include "common/expect_error.h"

using namespace aotrt;

namespace {

const DLDataType kBool{kDLUInt, 1, 1}, kI8{kDLInt, 8, 1}, kI32{kDLInt, 32, 1}, kI64{kDLInt, 64, 1},
    kU8{kDLUInt, 8, 1}, kU64{kDLUInt, 64, 1}, kF16{kDLFloat, 16, 1}, kF32{kDLFloat, 32, 1}, kF64{kDLFloat, 64, 1};

template <typename T>
NDArray Make(DLDataType t, std::vector<T> v) {
  NDArray a = NDArray::Empty({static_cast<int64_t>(v.size())}, t);
  if (!v.empty()) std::memcpy(a.data(), v.data(), v.size() * sizeof(T));
  return a;
}

template <typename T>
std::vector<T> Values(const NDArray& a) {
  std::vector<T> v(a.NumBytes() / sizeof(T));
  std::memcpy(v.data(), a.data(), a.NumBytes());
  return v;
}

// Converts into a fresh array of `to` holding a marker, so that a refusal shows nothing was written.
template <typename T>
NDArray Into(DLDataType to, const NDArray& from) {
  NDArray out = NDArray::Empty(from.Shape(), to);
  std::memset(out.data(), 0x5a, out.NumBytes());
  ConvertTensor(from.tensor(), out.handle(), "input 0 ('x')");
  return out;
}

void ExpectRefused(DLDataType to, const NDArray& from, const std::vector<std::string>& parts) {
  NDArray out = NDArray::Empty(from.Shape(), to);
  std::memset(out.data(), 0x5a, out.NumBytes());
  std::vector<std::string> all = parts;
  all.insert(all.begin(), "input 0 ('x'): expected dtype " + DataTypeToString(to));
  EXPECT_AOTRT_ERROR(ConvertTensor(from.tensor(), out.handle(), "input 0 ('x')"), ErrorCode::kTypeMismatch, all);
  const auto* b = static_cast<const uint8_t*>(out.data());
  for (size_t i = 0; i < out.NumBytes(); ++i) ASSERT_EQ(b[i], 0x5a) << "written before refusing, byte " << i;
}

}  // namespace

TEST(Convert, FloatNarrowingRoundsButNeverOverflows) {
  NDArray ok = Make<double>(kF64, {0.1, -2.5, 3.4028234663852886e38, 1e-50, INFINITY, -INFINITY});
  std::vector<float> f = Values<float>(Into<float>(kF32, ok));
  EXPECT_EQ(f[0], 0.1f);  // rounded to nearest
  EXPECT_EQ(f[1], -2.5f);
  EXPECT_EQ(f[2], std::numeric_limits<float>::max());
  EXPECT_EQ(f[3], 0.0f);  // rounding at the low end too
  EXPECT_TRUE(std::isinf(f[4]) && f[4] > 0);  // infinity stays infinity
  EXPECT_TRUE(std::isinf(f[5]) && f[5] < 0);
  EXPECT_TRUE(std::isnan(Values<float>(Into<float>(kF32, Make<double>(kF64, {NAN})))[0]));
  ExpectRefused(kF32, Make<double>(kF64, {1.0, 2.0, 1e300}),
                {"got float64 holding 1e+300 at index [2], which does not survive the conversion: it would become inf"});
  ExpectRefused(kF32, Make<double>(kF64, {-3.5e38}), {"holding -3.5e+38", "it would become -inf"});
  // float16: 65504 is its largest; 65520 rounds to inf.
  EXPECT_EQ(Values<uint16_t>(Into<uint16_t>(kF16, Make<float>(kF32, {65504.0f})))[0], 0x7bff);
  ExpectRefused(kF16, Make<float>(kF32, {65520.0f}), {"got float32 holding 65520", "it would become inf"});
  ExpectRefused(kF16, Make<double>(kF64, {1e10}), {"it would become inf"});
  // Widening is exact.
  EXPECT_EQ(Values<double>(Into<double>(kF64, Make<uint16_t>(kF16, {0x3555})))[0], double(__gnu_h2f_ieee(0x3555)));
}

TEST(Convert, IntegersIntoFloatsOnlyExactly) {
  EXPECT_EQ(Values<float>(Into<float>(kF32, Make<int64_t>(kI64, {16777216, -16777216, 1 << 30})))[2], 1073741824.0f);
  ExpectRefused(kF32, Make<int64_t>(kI64, {1, 16777217}),
                {"got int64 holding 16777217 at index [1], which does not survive the conversion: it would become "
                 "16777216"});
  EXPECT_EQ(Values<double>(Into<double>(kF64, Make<int64_t>(kI64, {int64_t{1} << 53})))[0], 9007199254740992.0);
  ExpectRefused(kF64, Make<int64_t>(kI64, {(int64_t{1} << 53) + 1}), {"holding 9007199254740993"});
  ExpectRefused(kF64, Make<uint64_t>(kU64, {UINT64_MAX}), {"holding 18446744073709551615"});
  EXPECT_EQ(Values<uint16_t>(Into<uint16_t>(kF16, Make<int32_t>(kI32, {2048})))[0], 0x6800);
  ExpectRefused(kF16, Make<int32_t>(kI32, {2049}), {"holding 2049", "it would become 2048"});
  ExpectRefused(kF16, Make<int32_t>(kI32, {70000}), {"holding 70000", "it would become inf"});
}

TEST(Convert, IntegersIntoIntegersOnlyInRange) {
  std::vector<uint8_t> u = Values<uint8_t>(Into<uint8_t>(kU8, Make<int64_t>(kI64, {0, 255, 7})));
  EXPECT_EQ(u, (std::vector<uint8_t>{0, 255, 7}));
  ExpectRefused(kU8, Make<int64_t>(kI64, {0, 256}),
                {"got int64 holding 256 at index [1], outside uint8's range [0, 255] (it would wrap around)"});
  ExpectRefused(kU8, Make<int64_t>(kI64, {-1}), {"holding -1", "[0, 255]"});
  ExpectRefused(kI8, Make<uint64_t>(kU64, {128}), {"outside int8's range [-128, 127]"});
  ExpectRefused(kI64, Make<uint64_t>(kU64, {uint64_t{1} << 63}), {"holding 9223372036854775808"});
  EXPECT_EQ(Values<int8_t>(Into<int8_t>(kI8, Make<int32_t>(kI32, {-128})))[0], -128);
}

TEST(Convert, BoolIntoAnythingAndOnlyBoolIntoBool) {
  NDArray b = Make<uint8_t>(kBool, {1, 0, 1});
  EXPECT_EQ(Values<float>(Into<float>(kF32, b)), (std::vector<float>{1, 0, 1}));
  EXPECT_EQ(Values<int64_t>(Into<int64_t>(kI64, b)), (std::vector<int64_t>{1, 0, 1}));
  EXPECT_EQ(Values<uint16_t>(Into<uint16_t>(kF16, b))[0], 0x3c00);
  ExpectRefused(kBool, Make<int32_t>(kI32, {0, 1}), {"got int32: only bool converts to bool"});
  ExpectRefused(kBool, Make<float>(kF32, {0}), {"got float32: a float is not converted to bool"});
}

TEST(Convert, FloatsNeverIntoIntegersAndOtherDtypesNever) {
  ExpectRefused(kI32, Make<float>(kF32, {3.0f}), {"got float32: a float is not converted to an integer"});
  ExpectRefused(kU8, Make<double>(kF64, {}), {"a float is not converted"});  // whatever the values
  NDArray bf16 = Make<uint16_t>(DLDataType{kDLBfloat, 16, 1}, {0});
  ExpectRefused(kF32, bf16, {"only bool, int, uint and float dtypes of one lane convert"});
  NDArray x4 = NDArray::Empty({1}, DLDataType{kDLFloat, 32, 4});
  EXPECT_AOTRT_ERROR(ConvertTensor(x4.tensor(), NDArray::Empty({1}, kF64).handle(), "t"), ErrorCode::kTypeMismatch,
                     {"float32x4", "one lane"});
  EXPECT_AOTRT_ERROR(CheckConversion(kF64, kI32, "input 'x'"), ErrorCode::kTypeMismatch,
                     {"input 'x': expected dtype int32, got float64: a float is not converted to an integer"});
  EXPECT_NO_THROW(CheckConversion(kI64, kF32, "input 'x'"));  // values decide
}

TEST(Convert, ElementCountsMustAgreeAndTheIndexIsMultiDimensional) {
  EXPECT_AOTRT_ERROR(ConvertTensor(Make<int32_t>(kI32, {1, 2}).tensor(), NDArray::Empty({3}, kF32).handle(), "t"),
                     ErrorCode::kShapeMismatch, {"t: 2 values for 3 elements"});
  NDArray m = NDArray::Empty({2, 3}, kI64);
  static_cast<int64_t*>(m.data())[4] = 300;
  EXPECT_AOTRT_ERROR(ConvertTensor(m.tensor(), NDArray::Empty({2, 3}, kU8).handle(), "t"), ErrorCode::kTypeMismatch,
                     {"holding 300 at index [1, 1]"});
}

TEST(Convert, TheCApiAppliesTheSameRule) {
  NDArray src = Make<double>(kF64, {1e300});
  NDArray dst = NDArray::Empty({1}, kF32);
  EXPECT_EQ(AOTRTArrayCopyConverted(src.handle(), dst.handle(), "input 2 ('z')"), -1);
  EXPECT_EQ(AOTRTGetLastErrorCode(), static_cast<int>(ErrorCode::kTypeMismatch));
  EXPECT_NE(std::string(TVMGetLastError()).find("input 2 ('z'): expected dtype float32, got float64 holding 1e+300"),
            std::string::npos)
      << TVMGetLastError();
  static_cast<double*>(src.data())[0] = 0.5;
  EXPECT_EQ(AOTRTArrayCopyConverted(src.handle(), dst.handle(), nullptr), 0) << TVMGetLastError();
  EXPECT_EQ(static_cast<float*>(dst.data())[0], 0.5f);
  EXPECT_EQ(AOTRTCheckConversion(kDLFloat, 64, 1, kDLInt, 32, 1, "input 'x'"), -1);
  EXPECT_NE(std::string(TVMGetLastError()).find("input 'x': expected dtype int32, got float64"), std::string::npos);
  EXPECT_EQ(AOTRTCheckConversion(kDLInt, 64, 1, kDLUInt, 8, 1, "input 'x'"), 0);
  EXPECT_EQ(AOTRTCheckConversion(kDLInt, 0, 1, kDLUInt, 8, 1, nullptr), -1);
}
