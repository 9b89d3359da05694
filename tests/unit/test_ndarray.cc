#include <gtest/gtest.h>

#include <cstdint>
#include <cstring>

#include "aotrt/container.h"
#include "aotrt/error.h"
#include "aotrt/ndarray.h"

using namespace aotrt;

namespace {
const DLDataType kF32{kDLFloat, 32, 1};
const DLDataType kI8{kDLInt, 8, 1};
}  // namespace

TEST(NDArray, EmptyIsAlignedAndZeroed) {
  NDArray a = NDArray::Empty({3, 5}, kF32);
  EXPECT_EQ(reinterpret_cast<uintptr_t>(a.data()) % kAllocAlignment, 0u);
  EXPECT_EQ(a.NumBytes(), 60u);
  EXPECT_EQ(a.Shape(), (std::vector<int64_t>{3, 5}));
  for (size_t i = 0; i < 15; ++i) EXPECT_EQ(static_cast<float*>(a.data())[i], 0.0f);
  EXPECT_EQ(NDArray::Empty({0}, kF32).NumBytes(), 0u);
  EXPECT_EQ(NDArray::Empty({}, kF32).NumBytes(), 4u);  // a scalar
}

TEST(NDArray, OddElementSizesGetAPowerOfTwoAlignment) {
  // float32x80 is 320 bytes an element: aligned to 512 (found by fuzz_ndarray).
  NDArray a = NDArray::Empty({2}, DLDataType{kDLFloat, 32, 80});
  EXPECT_EQ(reinterpret_cast<uintptr_t>(a.data()) % 512, 0u);
  EXPECT_EQ(a.NumBytes(), 640u);
}

TEST(NDArray, EmptyRejectsBadInput) {
  EXPECT_THROW(NDArray::Empty({-1}, kF32), Error);
  EXPECT_THROW(NDArray::Empty({2}, DLDataType{kDLFloat, 0, 1}), Error);
  try {
    NDArray::Empty({2}, kF32, DLDevice{kDLROCM, 0});
    FAIL();
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), ErrorCode::kInvalidArgument);
    EXPECT_NE(std::string(e.what()).find("got device type 10 id 0"), std::string::npos);
  }
}

TEST(NDArray, CopiesCheckByteSize) {
  NDArray a = NDArray::Empty({4}, kF32);
  NDArray b = NDArray::Empty({2, 2}, kF32);
  float v[4] = {1, 2, 3, 4};
  a.CopyFromBytes(v, sizeof(v));
  b.CopyFrom(a.tensor());  // same bytes, other shape: allowed, as in TVM
  EXPECT_EQ(std::memcmp(b.data(), v, sizeof(v)), 0);
  NDArray c = NDArray::Empty({3}, kF32);
  try {
    c.CopyFrom(a.tensor());
    FAIL();
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), ErrorCode::kShapeMismatch);
    EXPECT_NE(std::string(e.what()).find("The size must exactly match"), std::string::npos);
  }
  EXPECT_THROW(a.CopyFromBytes(v, 3), Error);
  float out[4];
  EXPECT_THROW(a.CopyToBytes(out, 8), Error);
  a.CopyToBytes(out, sizeof(out));
  EXPECT_EQ(out[3], 4.0f);
}

TEST(NDArray, ViewSharesStorageAndKeepsItAlive) {
  NDArray view;
  void* data;
  {
    NDArray a = NDArray::Empty({2, 4}, kF32);
    data = a.data();
    view = a.CreateView({8}, kF32);
  }
  EXPECT_EQ(view.data(), data);
  static_cast<float*>(view.data())[7] = 1.5f;  // still valid: the view holds the base
  EXPECT_THROW(view.CreateView({9}, kF32), Error);
  EXPECT_EQ(view.CreateView({32}, kI8).NumBytes(), 32u);
}

TEST(NDArray, DLPackRoundTripRunsDeleterOnce) {
  NDArray a = NDArray::Empty({3}, kF32);
  DLManagedTensor* m = a.ToDLPack();
  EXPECT_EQ(m->dl_tensor.data, a.data());
  EXPECT_EQ(a.object()->use_count(), 2);
  NDArray b = NDArray::FromDLPack(m);  // consumes m
  EXPECT_EQ(b.data(), a.data());
  b = NDArray();  // runs m's deleter, dropping the reference ToDLPack took
  EXPECT_EQ(a.object()->use_count(), 1);
}

TEST(NDArray, FromDLPackOfForeignMemory) {
  static int deleted = 0;
  struct Owner {
    float data[4] = {1, 2, 3, 4};
    int64_t shape[1] = {4};
    DLManagedTensor m{};
  };
  auto* o = new Owner();
  o->m.dl_tensor = DLTensor{o->data, {kDLCPU, 0}, 1, kF32, o->shape, nullptr, 0};
  o->m.manager_ctx = o;
  o->m.deleter = [](DLManagedTensor* self) {
    ++deleted;
    delete static_cast<Owner*>(self->manager_ctx);
  };
  {
    NDArray a = NDArray::FromDLPack(&o->m);
    EXPECT_EQ(static_cast<float*>(a.data())[2], 3.0f);
  }
  EXPECT_EQ(deleted, 1);
  // A GPU tensor is refused and not consumed.
  DLManagedTensor gpu{};
  int64_t shape[1] = {1};
  gpu.dl_tensor = DLTensor{nullptr, {kDLCUDA, 0}, 1, kF32, shape, nullptr, 0};
  EXPECT_THROW(NDArray::FromDLPack(&gpu), Error);
}

TEST(NDArray, HandleRoundTrip) {
  NDArray a = NDArray::Empty({1}, kF32);
  EXPECT_EQ(NDArrayObj::FromHandle(a.handle()), a.object().get());
}
