// Metadata validation (ABI.md 7) on crafted TVMMetadata structs.
#include <gtest/gtest.h>

#include "common/expect_error.h"

#include "aot/metadata.h"
#include "aotrt/error.h"

using namespace aotrt;

namespace {

const int64_t kShape[] = {1, 4};
const int64_t kPool[] = {1024};

struct Fixture {
  TVMTensorInfo inputs[2] = {{"input:0", kShape, 2, {kDLFloat, 32, 1}}, {"b", kShape, 2, {kDLInt, 8, 1}}};
  TVMTensorInfo outputs[1] = {{"output0", kShape, 2, {kDLFloat, 32, 1}}};
  TVMTensorInfo pools[1] = {{"global_workspace_1_var", kPool, 1, {kDLUInt, 8, 1}}};
  TVMMetadata md{1, inputs, 2, outputs, 1, nullptr, 0, nullptr, 0, "tvmgen_default"};
};

void ExpectError(const TVMMetadata& md, const std::string& fragment) {
  EXPECT_AOTRT_ERROR(ReadMetadata(&md, "m.so"), ErrorCode::kFormatError, {fragment, "m.so"});
}

}  // namespace

TEST(Metadata, ReadsValidMetadata) {
  Fixture f;
  ModelMetadata md = ReadMetadata(&f.md, "m.so");
  EXPECT_EQ(md.EntryName(), "tvmgen_default___tvm_main__");
  ASSERT_EQ(md.inputs.size(), 2u);
  EXPECT_EQ(md.inputs[0].bytes, 16u);
  EXPECT_EQ(md.input_index.at("input_0"), 0u);  // sanitized keys
  EXPECT_EQ(md.NumArgs(), 3u);
}

TEST(Metadata, RejectsBadFields) {
  Fixture f;
  TVMMetadata md = f.md;
  md.version = 2;
  ExpectError(md, "version 2");
  md = f.md;
  md.num_inputs = -1;
  ExpectError(md, "count -1");
  md = f.md;
  md.inputs = nullptr;
  ExpectError(md, "null pointer");
  md = f.md;
  md.mod_name = nullptr;
  ExpectError(md, "mod_name");
  f.inputs[1].name = nullptr;
  ExpectError(f.md, "inputs[1].name");
  Fixture g;
  g.inputs[0].num_shape = 99;
  ExpectError(g.md, "ndim 99");
  Fixture h;
  h.outputs[0].dtype = DLDataType{9, 32, 1};
  ExpectError(h.md, "invalid dtype");
  Fixture k;
  const int64_t neg[] = {-5};
  k.inputs[0].shape = neg;
  k.inputs[0].num_shape = 1;
  ExpectError(k.md, "negative dimension");
  EXPECT_THROW(ReadMetadata(nullptr, "m.so"), Error);
}

TEST(Metadata, PoolArgumentsFollowPoolNames) {
  static const uint8_t kConstBytes[] = {0};
  TVMConstantInfo constants[1] = {{"w", 0, 1, kConstBytes}};
  Fixture f;
  TVMMetadata md = f.md;
  md.workspace_pools = f.pools;
  md.num_workspace_pools = 1;
  md.constant_pools = constants;
  md.num_constant_pools = 1;
  ModelMetadata m = ReadMetadata(&md, "m.so");
  ASSERT_EQ(m.pool_args.size(), 2u);
  EXPECT_TRUE(m.pool_args[0].is_constant_pool);  // global_const_workspace_0 sorts first
  EXPECT_FALSE(m.pool_args[1].is_constant_pool);
  // Only a workspace pool: no constant pool argument at all.
  f.pools[0].name = "global_workspace_0_var";
  md.num_constant_pools = 0;
  m = ReadMetadata(&md, "m.so");
  ASSERT_EQ(m.pool_args.size(), 1u);
  EXPECT_FALSE(m.pool_args[0].is_constant_pool);
  // A user pool sorting before the constant pool takes position 0.
  f.pools[0].name = "a_pool_0_var";
  md.num_constant_pools = 1;
  m = ReadMetadata(&md, "m.so");
  EXPECT_FALSE(m.pool_args[0].is_constant_pool);
  EXPECT_TRUE(m.pool_args[1].is_constant_pool);
  // Names of another form: constants first.
  f.pools[0].name = "workspace";
  m = ReadMetadata(&md, "m.so");
  EXPECT_TRUE(m.pool_args[0].is_constant_pool);
  // A workspace pool must be 1-D uint8.
  f.pools[0].dtype = DLDataType{kDLFloat, 32, 1};
  ExpectError(md, "1-D uint8");
}

TEST(Metadata, SanitizeNameMatchesTvm) {
  EXPECT_EQ(SanitizeName("input:0"), "input_0");
  EXPECT_EQ(SanitizeName("input@0"), "input_0");
  EXPECT_EQ(SanitizeName("a.b-c d"), "a_b_c_d");
  EXPECT_EQ(SanitizeName("data"), "data");
}
