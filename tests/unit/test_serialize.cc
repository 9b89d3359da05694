// NDArray and params formats (ABI.md 6.1, 6.2): round trips and every corruption a file can carry.
#include <gtest/gtest.h>

#include "common/expect_error.h"

#include <cstring>

#include "aotrt/error.h"
#include "aotrt/ndarray.h"

using namespace aotrt;

namespace {

NDArray Iota(std::vector<int64_t> shape, DLDataType t) {
  NDArray a = NDArray::Empty(shape, t);
  auto* p = static_cast<uint8_t*>(a.data());
  for (size_t i = 0; i < a.NumBytes(); ++i) p[i] = static_cast<uint8_t>(i * 7 + 1);
  return a;
}

void ExpectFormatError(const std::string& bytes, const std::string& fragment) {
  EXPECT_AOTRT_ERROR(LoadNDArray(bytes.data(), bytes.size()), ErrorCode::kFormatError, {fragment});
}

}  // namespace

TEST(Serialize, NDArrayLayoutMatchesAbi) {
  NDArray a = Iota({2, 3}, DLDataType{kDLInt, 16, 1});
  std::string s = SaveNDArray(a.tensor());
  ASSERT_EQ(s.size(), 8u + 8 + 8 + 4 + 4 + 16 + 8 + 12);
  const unsigned char magic[8] = {0x3F, 0xA1, 0xB4, 0x96, 0xF0, 0x40, 0x5E, 0xDD};
  EXPECT_EQ(std::memcmp(s.data(), magic, 8), 0);
  int64_t nbytes;
  std::memcpy(&nbytes, s.data() + 48, 8);
  EXPECT_EQ(nbytes, 12);
  NDArray b = LoadNDArray(s.data(), s.size());
  EXPECT_EQ(b.Shape(), a.Shape());
  EXPECT_EQ(std::memcmp(a.data(), b.data(), 12), 0);
}

TEST(Serialize, NDArrayCorruptions) {
  std::string good = SaveNDArray(Iota({4}, DLDataType{kDLFloat, 32, 1}).tensor());
  std::string bad = good;
  bad[0] ^= 1;
  ExpectFormatError(bad, "bad NDArray magic");
  bad = good;
  bad[16] = 2;  // device type CUDA
  ExpectFormatError(bad, "device type 2");
  bad = good;
  bad[17] = 1;  // device type 257: not even a DLDeviceType value (found by fuzz_ndarray)
  ExpectFormatError(bad, "device type 257");
  bad = good;
  bad[24] = 100;  // ndim
  ExpectFormatError(bad, "ndim 100");
  bad = good;
  bad[24] = static_cast<char>(0xff);  // negative ndim
  ExpectFormatError(bad, "ndim");
  bad = good;
  bad[40] = 5;  // data size 21 instead of 16
  ExpectFormatError(bad, "does not match shape");
  bad = good;
  bad[29] = 0;  // bits 0
  ExpectFormatError(bad, "invalid dtype");
  bad = good;
  std::memset(&bad[32], 0xff, 8);  // shape -1
  ExpectFormatError(bad, "negative dimension");
  for (size_t cut : {size_t{0}, size_t{7}, size_t{20}, size_t{35}, good.size() - 1}) {
    ExpectFormatError(good.substr(0, cut), "truncated");
  }
}

TEST(Serialize, HugeShapeDoesNotAllocate) {
  std::string s = SaveNDArray(Iota({4}, DLDataType{kDLFloat, 32, 1}).tensor());
  int64_t huge = int64_t{1} << 40;
  std::memcpy(&s[32], &huge, 8);
  int64_t nbytes = huge * 4;
  std::memcpy(&s[40], &nbytes, 8);
  ExpectFormatError(s, "truncated");
}

TEST(Serialize, ParamsRoundTripAndErrors) {
  std::vector<NamedArray> params{{"w", Iota({3, 2}, DLDataType{kDLFloat, 32, 1})},
                                 {"b", Iota({2}, DLDataType{kDLInt, 8, 1})}};
  std::string s = SaveParams(params);
  auto back = LoadParams(s.data(), s.size());
  ASSERT_EQ(back.size(), 2u);
  EXPECT_EQ(back[0].name, "w");
  EXPECT_EQ(back[1].name, "b");
  EXPECT_EQ(std::memcmp(back[0].array.data(), params[0].array.data(), 24), 0);
  std::string bad = s;
  bad[0] ^= 1;
  EXPECT_AOTRT_ERROR(LoadParams(bad.data(), bad.size()), ErrorCode::kFormatError, {});
  for (size_t cut = 0; cut < s.size(); cut += 7) {
    EXPECT_AOTRT_ERROR(LoadParams(s.data(), cut), ErrorCode::kFormatError, {}) << cut;
  }
  // A name count far beyond the bytes: rejected before allocating.
  bad = s;
  uint64_t many = uint64_t{1} << 60;
  std::memcpy(&bad[16], &many, 8);
  try {
    LoadParams(bad.data(), bad.size());
    FAIL();
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("claims"), std::string::npos) << e.what();
  }
}

// Issue 12 item 8: what a params file means must be unambiguous.
TEST(Serialize, ParamsRefuseTrailingBytesAndEmptyOrDuplicateNames) {
  NDArray w = Iota({2}, DLDataType{kDLFloat, 32, 1});
  std::string s = SaveParams({{"w", w}, {"b", w}}) + "garbage";
  EXPECT_AOTRT_ERROR(LoadParams(s.data(), s.size()), ErrorCode::kFormatError,
                     {"7 bytes of unexpected data after the last parameter ('b')"});
  s = SaveParams({{"w", w}, {"", w}});
  EXPECT_AOTRT_ERROR(LoadParams(s.data(), s.size()), ErrorCode::kFormatError, {"parameter 1 has an empty name"});
  s = SaveParams({{"w", w}, {"b", w}, {"w", w}});
  EXPECT_AOTRT_ERROR(LoadParams(s.data(), s.size()), ErrorCode::kFormatError,
                     {"parameter 'w' appears twice (parameters 0 and 2)"});
  s = SaveParams({{"w", w}, {"b", w}});
  s.resize(s.size() - 1);
  EXPECT_AOTRT_ERROR(LoadParams(s.data(), s.size()), ErrorCode::kFormatError, {"parameter 'b': ", "truncated"});
}
