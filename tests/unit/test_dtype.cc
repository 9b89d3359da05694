#include <gtest/gtest.h>

#include "aotrt/error.h"
#include "aotrt/ndarray.h"

using namespace aotrt;

TEST(DataType, RoundTripsTvmNames) {
  for (const char* s : {"float32", "float64", "int8", "int32", "int64", "uint8", "uint16", "bool", "float32x4",
                        "bfloat16", "float16"}) {
    EXPECT_EQ(DataTypeToString(DataTypeFromString(s)), s);
  }
  DLDataType b = DataTypeFromString("bool");
  EXPECT_EQ(b.code, kDLUInt);
  EXPECT_EQ(b.bits, 1);
  EXPECT_EQ(DataTypeBytes(b), 1u);
  EXPECT_EQ(DataTypeBytes(DataTypeFromString("float32x4")), 16u);
}

TEST(DataType, BitsDefaultAsInTvm) {
  EXPECT_EQ(DataTypeToString(DataTypeFromString("float")), "float32");
  EXPECT_EQ(DataTypeToString(DataTypeFromString("int")), "int32");
  EXPECT_EQ(DataTypeToString(DataTypeFromString("uint")), "uint32");
  EXPECT_EQ(DataTypeToString(DataTypeFromString("bfloat")), "bfloat16");
  EXPECT_EQ(DataTypeToString(DataTypeFromString("floatx4")), "float32x4");
}

TEST(DataType, RejectsGarbageWithTheName) {
  for (const char* s : {"", "floaty32", "int0", "int999", "float32x", "bfloat32", "complex64", "float33", "int33",
                        "float8"}) {
    try {
      DataTypeFromString(s);
      FAIL() << "accepted " << s;
    } catch (const Error& e) {
      EXPECT_EQ(e.code(), ErrorCode::kInvalidArgument);
      EXPECT_NE(std::string(e.what()).find(std::string("'") + s + "'"), std::string::npos) << e.what();
    }
  }
}

TEST(Shape, ElementsAndOverflow) {
  int64_t s[] = {2, 3, 4};
  EXPECT_EQ(ShapeElements(s, 3), 24);
  EXPECT_EQ(ShapeToString(s, 3), "[2, 3, 4]");
  int64_t neg[] = {2, -1};
  EXPECT_THROW(ShapeElements(neg, 2), Error);
  int64_t huge[] = {int64_t{1} << 40, int64_t{1} << 40};
  EXPECT_THROW(ShapeElements(huge, 2), Error);
}

TEST(Shape, Contiguity) {
  int64_t shape[] = {2, 3};
  int64_t compact[] = {3, 1};
  int64_t transposed[] = {1, 2};
  DLTensor t{};
  t.ndim = 2;
  t.shape = shape;
  EXPECT_TRUE(IsContiguous(t));
  t.strides = compact;
  EXPECT_TRUE(IsContiguous(t));
  t.strides = transposed;
  EXPECT_FALSE(IsContiguous(t));
}
