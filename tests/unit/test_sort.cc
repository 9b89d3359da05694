// tvm.contrib.sort.{argsort,sort,topk}: TVM's semantics, and the argument checks TVM lacks.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <limits>
#include <vector>

#include "aotrt/error.h"
#include "aotrt/ndarray.h"
#include "aotrt/packed_func.h"

using namespace aotrt;

namespace {

template <typename T>
NDArray Make(std::vector<int64_t> shape, DLDataType t, std::vector<T> values) {
  NDArray a = NDArray::Empty(shape, t);
  std::memcpy(a.data(), values.data(), values.size() * sizeof(T));
  return a;
}

template <typename T>
std::vector<T> Values(const NDArray& a) {
  const T* p = static_cast<const T*>(a.data());
  return std::vector<T>(p, p + a.NumBytes() / sizeof(T));
}

// Call a global with tensors (DLTensor*), ints and strings.
struct Arg {
  Arg(const NDArray& a) : code(kTVMDLTensorHandle) { v.v_handle = a.handle(); }  // NOLINT
  Arg(int64_t i) : code(kTVMArgInt) { v.v_int64 = i; }                           // NOLINT
  Arg(const char* s) : code(kTVMStr) { v.v_str = s; }                           // NOLINT
  TVMValue v;
  int code;
};

void Call(const char* name, std::vector<Arg> args) {
  std::vector<TVMValue> values;
  std::vector<int> codes;
  for (const Arg& a : args) {
    values.push_back(a.v);
    codes.push_back(a.code);
  }
  PackedFunc f = GetGlobalFunction(name);
  ASSERT_TRUE(static_cast<bool>(f)) << name;
  TVMRetValue rv;
  f.CallPacked(TVMArgs(values.data(), codes.data(), static_cast<int>(values.size())), &rv);
}

const DLDataType kF32{kDLFloat, 32, 1}, kI32{kDLInt, 32, 1}, kI64{kDLInt, 64, 1};

}  // namespace

TEST(Sort, ArgsortIsStableInBothDirections) {
  NDArray x = Make<float>({6}, kF32, {3, 1, 3, 2, 1, 3});
  NDArray idx = NDArray::Empty({6}, kI32);
  Call("tvm.contrib.sort.argsort", {x, idx, int64_t{-1}, int64_t{1}});
  EXPECT_EQ(Values<int32_t>(idx), (std::vector<int32_t>{1, 4, 3, 0, 2, 5}));
  Call("tvm.contrib.sort.argsort", {x, idx, int64_t{0}, int64_t{0}});
  EXPECT_EQ(Values<int32_t>(idx), (std::vector<int32_t>{0, 2, 5, 3, 1, 4}));  // ties keep index order
}

TEST(Sort, ArgsortAlongAnInnerAxisWithInt64Indices) {
  // [[5, 1], [2, 8], [9, 0]] along axis 0
  NDArray x = Make<int32_t>({3, 2}, kI32, {5, 1, 2, 8, 9, 0});
  NDArray idx = NDArray::Empty({3, 2}, kI64);
  Call("tvm.contrib.sort.argsort", {x, idx, int64_t{0}, int64_t{1}});
  EXPECT_EQ(Values<int64_t>(idx), (std::vector<int64_t>{1, 2, 0, 0, 2, 1}));
}

TEST(Sort, SortCopiesValuesExactly) {
  NDArray x = Make<double>({4}, DLDataType{kDLFloat, 64, 1}, {0.1, -2.5, 1e300, -0.0});
  NDArray out = NDArray::Empty({4}, DLDataType{kDLFloat, 64, 1});
  Call("tvm.contrib.sort.sort", {x, out, int64_t{0}, int64_t{0}});
  EXPECT_EQ(Values<double>(out), (std::vector<double>{1e300, 0.1, -0.0, -2.5}));
}

TEST(Sort, Int64ComparesExactlyBeyondDoublePrecision) {
  int64_t big = (int64_t{1} << 53) + 1;
  NDArray x = Make<int64_t>({2}, kI64, {big, big - 1});  // equal as doubles
  NDArray idx = NDArray::Empty({2}, kI32);
  Call("tvm.contrib.sort.argsort", {x, idx, int64_t{0}, int64_t{1}});
  EXPECT_EQ(Values<int32_t>(idx), (std::vector<int32_t>{1, 0}));
}

TEST(Sort, NanGoesLast) {
  float nan = std::numeric_limits<float>::quiet_NaN();
  NDArray x = Make<float>({4}, kF32, {nan, 2, nan, 1});
  NDArray idx = NDArray::Empty({4}, kI32);
  Call("tvm.contrib.sort.argsort", {x, idx, int64_t{0}, int64_t{1}});
  EXPECT_EQ(Values<int32_t>(idx), (std::vector<int32_t>{3, 1, 0, 2}));
  Call("tvm.contrib.sort.argsort", {x, idx, int64_t{0}, int64_t{0}});
  EXPECT_EQ(Values<int32_t>(idx), (std::vector<int32_t>{1, 3, 0, 2}));
}

TEST(Sort, TopkBothValuesIndices) {
  NDArray x = Make<float>({2, 4}, kF32, {1, 9, 9, 4, 7, 0, 7, 8});
  NDArray values = NDArray::Empty({2, 2}, kF32);
  NDArray indices = NDArray::Empty({2, 2}, kI64);
  Call("tvm.contrib.sort.topk", {x, values, indices, int64_t{2}, int64_t{-1}, "both", int64_t{0}});
  EXPECT_EQ(Values<float>(values), (std::vector<float>{9, 9, 8, 7}));
  EXPECT_EQ(Values<int64_t>(indices), (std::vector<int64_t>{1, 2, 3, 0}));
  NDArray only = NDArray::Empty({2, 2}, kI32);
  Call("tvm.contrib.sort.topk", {x, only, int64_t{2}, int64_t{1}, "indices", int64_t{1}});
  EXPECT_EQ(Values<int32_t>(only), (std::vector<int32_t>{0, 3, 1, 0}));
  NDArray all = NDArray::Empty({2, 4}, kF32);  // k < 1: the whole axis
  Call("tvm.contrib.sort.topk", {x, all, int64_t{0}, int64_t{1}, "values", int64_t{1}});
  EXPECT_EQ(Values<float>(all), (std::vector<float>{1, 4, 9, 9, 0, 7, 7, 8}));
}

TEST(Sort, BadArgumentsAreErrorsNotOverruns) {
  NDArray x = Make<float>({2, 3}, kF32, {1, 2, 3, 4, 5, 6});
  NDArray small = NDArray::Empty({2, 2}, kI32);
  try {
    Call("tvm.contrib.sort.argsort", {x, small, int64_t{-1}, int64_t{1}});
    FAIL();
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), ErrorCode::kShapeMismatch);
    EXPECT_NE(std::string(e.what()).find("expected [2, 3]"), std::string::npos) << e.what();
  }
  NDArray idx = NDArray::Empty({2, 3}, kI32);
  EXPECT_THROW(Call("tvm.contrib.sort.argsort", {x, idx, int64_t{2}, int64_t{1}}), Error);  // axis
  NDArray wrong_type = NDArray::Empty({2, 3}, DLDataType{kDLUInt, 16, 1});
  EXPECT_THROW(Call("tvm.contrib.sort.argsort", {x, wrong_type, int64_t{0}, int64_t{1}}), Error);
  NDArray i32 = NDArray::Empty({2, 3}, kI32);
  EXPECT_THROW(Call("tvm.contrib.sort.sort", {x, i32, int64_t{0}, int64_t{1}}), Error);  // dtype differs
  EXPECT_THROW(Call("tvm.contrib.sort.topk", {x, idx, int64_t{1}, int64_t{0}, "bogus", int64_t{1}}), Error);
  EXPECT_THROW(Call("tvm.contrib.sort.topk", {x, idx, int64_t{1}, int64_t{0}, "both", int64_t{1}}), Error);
  EXPECT_THROW(Call("tvm.contrib.sort.argsort", {x, idx}), Error);
}

// argsort_nms: per line, only the first sort_num elements are sorted (stable, by value); positions
// past them keep their own index. Values as TVM's tvm.contrib.sort.argsort_nms gives them.
TEST(ArgsortNms, SortsTheValidPrefixOfEachLine) {
  const DLDataType f32{kDLFloat, 32, 1}, i32{kDLInt, 32, 1};
  NDArray data = Make<float>({2, 5}, f32, {0.5f, 0.9f, 0.1f, 0.9f, 0.7f, 3.f, 1.f, 2.f, 5.f, 4.f});
  NDArray num = Make<int32_t>({2}, i32, {4, 2});
  NDArray out = NDArray::Empty({2, 5}, i32);
  Call("tvm.contrib.sort.argsort_nms", {data, num, out, int64_t{1}, int64_t{0}});
  EXPECT_EQ(Values<int32_t>(out), (std::vector<int32_t>{1, 3, 0, 2, 4, 0, 1, 2, 3, 4}));
  Call("tvm.contrib.sort.argsort_nms", {data, num, out, int64_t{-1}, int64_t{1}});
  EXPECT_EQ(Values<int32_t>(out), (std::vector<int32_t>{2, 0, 1, 3, 4, 1, 0, 2, 3, 4}));
  NDArray wrong = NDArray::Empty({2, 5}, f32);
  EXPECT_THROW(Call("tvm.contrib.sort.argsort_nms", {data, num, wrong, int64_t{1}, int64_t{0}}), Error);
}
