// The public .npy/.npz helpers (aotrt/npy.h): round trips, and every failure an aotrt::Error.
#include <gtest/gtest.h>

#include <cstring>
#include <fstream>
#include <string>
#include <vector>

#include "aotrt/npy.h"
#include "common/expect_error.h"

using namespace aotrt;

namespace {
std::string Temp(const std::string& name) { return ::testing::TempDir() + "/aotrt_npy_" + name; }

NDArray Iota(std::vector<int64_t> shape, DLDataType t) {
  NDArray a = NDArray::Empty(shape, t);
  auto* p = static_cast<unsigned char*>(a.data());
  for (size_t i = 0; i < a.NumBytes(); ++i) p[i] = static_cast<unsigned char>(i * 7 + 1);
  return a;
}

bool Same(const NDArray& a, const NDArray& b) {
  const DLTensor &x = a.tensor(), &y = b.tensor();
  return x.ndim == y.ndim && std::equal(x.shape, x.shape + x.ndim, y.shape) && x.dtype.code == y.dtype.code &&
         x.dtype.bits == y.dtype.bits && a.NumBytes() == b.NumBytes() &&
         std::memcmp(a.data(), b.data(), a.NumBytes()) == 0;
}
}  // namespace

TEST(NpyFiles, NpyRoundTripsEveryDtype) {
  for (DLDataType t : {DLDataType{kDLFloat, 32, 1}, DLDataType{kDLFloat, 16, 1}, DLDataType{kDLInt, 8, 1},
                       DLDataType{kDLUInt, 64, 1}, DLDataType{kDLUInt, 1, 1}}) {
    NDArray a = Iota({2, 3}, t);
    if (t.bits == 1) std::memset(a.data(), 1, a.NumBytes());  // bool holds 0/1
    WriteNpy(Temp("a.npy"), a.tensor());
    EXPECT_TRUE(Same(ReadNpy(Temp("a.npy")), a)) << int(t.code) << "/" << int(t.bits);
    EXPECT_TRUE(Same(ParseNpy(SerializeNpy(a.tensor()), "bytes"), a));
  }
}

TEST(NpyFiles, NpzRoundTripKeepsNamesAndOrder) {
  NDArray x = Iota({4}, DLDataType{kDLFloat, 32, 1}), y = Iota({1, 2}, DLDataType{kDLInt, 32, 1});
  WriteNpz(Temp("b.npz"), {{"input:0", x.handle()}, {"b", y.handle()}});
  std::vector<NamedArray> got = ReadNpz(Temp("b.npz"));
  ASSERT_EQ(got.size(), 2u);
  EXPECT_EQ(got[0].name, "input:0");
  EXPECT_EQ(got[1].name, "b");
  EXPECT_TRUE(Same(got[0].array, x));
  EXPECT_TRUE(Same(got[1].array, y));
}

TEST(NpyFiles, FailuresAreErrorsNamingTheProblem) {
  EXPECT_AOTRT_ERROR(ReadNpy(Temp("missing.npy")), ErrorCode::kIOError, {"missing.npy"});
  EXPECT_AOTRT_ERROR(ReadNpz(Temp("missing.npz")), ErrorCode::kIOError, {"missing.npz"});
  EXPECT_AOTRT_ERROR(ParseNpy("not numpy", "the bytes"), ErrorCode::kFormatError, {"the bytes", "bad magic"});
  std::ofstream(Temp("junk.npz")) << "not a zip";
  EXPECT_AOTRT_ERROR(ReadNpz(Temp("junk.npz")), ErrorCode::kFormatError, {"junk.npz"});
  NDArray a = Iota({2, 2}, DLDataType{kDLFloat, 32, 1});
  DLTensor strided = a.tensor();
  int64_t strides[2] = {1, 2};  // transposed view: not contiguous
  strided.strides = strides;
  EXPECT_AOTRT_ERROR(SerializeNpy(strided), ErrorCode::kInvalidArgument, {"contiguous"});
  EXPECT_AOTRT_ERROR(WriteNpy("/nonexistent/dir/x.npy", a.tensor()), ErrorCode::kIOError, {"/nonexistent/dir/x.npy"});
}
