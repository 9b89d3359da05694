// Metadata validation (ABI.md 7) on crafted TVMMetadata structs, and the bounds check that keeps
// every read inside the library's segments.
#include <gtest/gtest.h>

#include <cstring>
#include <new>
#include <string>
#include <vector>

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

// The fixtures above live on the stack and in .rodata: these bounds let them all be read, so the
// tests below check the fields; the Image tests further down check the bounds themselves.
const AddressBounds kAnywhere({{1, UINTPTR_MAX, false}});

ModelMetadata Read(const TVMMetadata& md) { return ReadMetadata(&md, kAnywhere, "m.so"); }

void ExpectError(const TVMMetadata& md, const std::string& fragment) {
  EXPECT_AOTRT_ERROR(Read(md), ErrorCode::kFormatError, {fragment, "m.so"});
}

}  // namespace

TEST(Metadata, ReadsValidMetadata) {
  Fixture f;
  ModelMetadata md = Read(f.md);
  EXPECT_EQ(md.EntryName(), "tvmgen_default___tvm_main__");
  ASSERT_EQ(md.inputs.size(), 2u);
  EXPECT_EQ(md.inputs[0].bytes, 16u);
  ASSERT_NE(md.input_index.Find("input_0"), nullptr);  // sanitized keys
  EXPECT_EQ(*md.input_index.Find("input_0"), 0u);
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
  EXPECT_THROW(ReadMetadata(nullptr, kAnywhere, "m.so"), Error);
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
  ModelMetadata m = Read(md);
  ASSERT_EQ(m.pool_args.size(), 2u);
  EXPECT_TRUE(m.pool_args[0].is_constant_pool);  // global_const_workspace_0 sorts first
  EXPECT_FALSE(m.pool_args[1].is_constant_pool);
  // Only a workspace pool: no constant pool argument at all.
  f.pools[0].name = "global_workspace_0_var";
  md.num_constant_pools = 0;
  m = Read(md);
  ASSERT_EQ(m.pool_args.size(), 1u);
  EXPECT_FALSE(m.pool_args[0].is_constant_pool);
  // A user pool sorting before the constant pool takes position 0.
  f.pools[0].name = "a_pool_0_var";
  md.num_constant_pools = 1;
  m = Read(md);
  EXPECT_FALSE(m.pool_args[0].is_constant_pool);
  EXPECT_TRUE(m.pool_args[1].is_constant_pool);
  // Names of another form: constants first.
  f.pools[0].name = "workspace";
  m = Read(md);
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

namespace {

// A library image in miniature: a buffer holding the metadata, its arrays and strings, and the
// bounds of exactly that buffer, as the library's segments would be.
class Image {
 public:
  template <typename T>
  T* Put(std::initializer_list<T> items) {
    used_ = (used_ + alignof(T) - 1) / alignof(T) * alignof(T);
    T* out = reinterpret_cast<T*>(buf_ + used_);
    for (const T& item : items) new (buf_ + used_) T(item), used_ += sizeof(T);
    return out;
  }
  const char* Str(const std::string& s, bool terminated = true) {
    char* out = buf_ + used_;
    std::memcpy(out, s.c_str(), s.size() + (terminated ? 1 : 0));
    used_ += s.size() + (terminated ? 1 : 0);
    return out;
  }
  AddressBounds Bounds() const {
    return AddressBounds({{reinterpret_cast<uintptr_t>(buf_), reinterpret_cast<uintptr_t>(buf_ + used_), false}});
  }

 private:
  alignas(16) char buf_[4096];
  size_t used_ = 0;
};

// A valid model inside an Image: two inputs, one output, the metadata struct last.
struct ImageModel {
  Image img;
  TVMTensorInfo* inputs;
  TVMMetadata* md;
  explicit ImageModel(int64_t claimed_inputs = 2) {
    const int64_t* shape = img.Put<int64_t>({1, 4});
    const char* a = img.Str("a");
    const char* b = img.Str("b");
    const char* y = img.Str("y");
    const char* mod = img.Str("tvmgen_default");
    TVMTensorInfo* outputs = img.Put<TVMTensorInfo>({{y, shape, 2, {kDLFloat, 32, 1}}});
    md = img.Put<TVMMetadata>({{1, nullptr, claimed_inputs, outputs, 1, nullptr, 0, nullptr, 0, mod}});
    inputs = img.Put<TVMTensorInfo>({{a, shape, 2, {kDLFloat, 32, 1}}, {b, shape, 2, {kDLFloat, 32, 1}}});
    md->inputs = inputs;  // the inputs array ends the image: a count past it leaves the segment
  }
  void ExpectRefused(const std::vector<std::string>& fragments) {
    std::vector<std::string> all = fragments;
    all.push_back("m.so: invalid metadata");
    EXPECT_AOTRT_ERROR(ReadMetadata(md, img.Bounds(), "m.so"), ErrorCode::kFormatError, all);
  }
};

}  // namespace

TEST(MetadataBounds, ValidImageIsRead) {
  ImageModel m;
  ModelMetadata md = ReadMetadata(m.md, m.img.Bounds(), "m.so");
  EXPECT_EQ(md.inputs.size(), 2u);
  EXPECT_EQ(md.outputs[0].name, "y");
  // The same image against bounds that do not hold it: the struct itself is refused.
  EXPECT_AOTRT_ERROR(ReadMetadata(m.md, AddressBounds(), "m.so"), ErrorCode::kFormatError,
                     {"m.so", "the TVMMetadata struct", "pointer 0x", "outside the library's mapped segments"});
}

TEST(MetadataBounds, CountLargerThanTheArrayIsRefused) {
  ImageModel m(3);
  m.ExpectRefused({"inputs (3 entries) pointer 0x", "outside the library's mapped segments"});
}

TEST(MetadataBounds, PointersOutsideTheImageAreRefused) {
  const char outside_name[] = "elsewhere";
  const int64_t outside_shape[] = {1, 4};
  ImageModel m;
  m.inputs[1].name = outside_name;
  m.ExpectRefused({"inputs[1].name pointer 0x", "is outside the library's mapped segments"});
  ImageModel s;
  s.inputs[0].shape = outside_shape;
  s.ExpectRefused({"inputs[0] ('a').shape (2 entries) pointer", "(16 bytes) is outside"});
  ImageModel n;
  n.md->mod_name = outside_name;
  n.ExpectRefused({"mod_name pointer"});
  ImageModel o;
  o.md->outputs = reinterpret_cast<TVMTensorInfo*>(uintptr_t{0x10});
  o.ExpectRefused({"outputs (1 entries) pointer 0x10 "});
  ImageModel a;
  a.md->outputs = reinterpret_cast<const TVMTensorInfo*>(reinterpret_cast<const char*>(a.inputs) + 4);
  a.ExpectRefused({"outputs pointer 0x", "is not aligned to 8 bytes"});
}

TEST(MetadataBounds, UnterminatedNameAtTheEndOfTheSegmentIsRefused) {
  ImageModel m;
  m.inputs[0].name = m.img.Str("no_nul_here", false);
  m.ExpectRefused({"inputs[0].name string at 0x", "runs to the end of its segment unterminated"});
}

TEST(MetadataBounds, ConstantDataLenPastTheSegmentIsRefused) {
  ImageModel m;
  std::string blob = SaveNDArray(NDArray::Empty({2}, DLDataType{kDLInt, 8, 1}).tensor());
  const char* data = m.img.Str(blob, false);
  TVMConstantInfo* c = m.img.Put<TVMConstantInfo>({{m.img.Str("w"), 0, static_cast<int64_t>(blob.size()), data}});
  m.md->constant_pools = c;
  m.md->num_constant_pools = 1;
  ModelMetadata md = ReadMetadata(m.md, m.img.Bounds(), "m.so");
  EXPECT_EQ(PlanConstantPool(md, "m.so").bytes, 2u);
  c->data_len = int64_t{1} << 30;
  m.ExpectRefused({"constant_pools[0] ('w').data_bytes pointer", "(1073741824 bytes) is outside"});
}

// Each field's message names it exactly as before the names were built lazily (issue 25), at an
// index past 0 and with the entry's name once it is read.
TEST(Metadata, ErrorsNameTheFieldIndexAndName) {
  static const uint8_t kData[16] = {};
  auto constants = [] {
    std::vector<TVMConstantInfo> c;
    for (int i = 0; i < 5; ++i) c.push_back({i == 3 ? "weights_3" : "w", 4 * i, 4, kData});
    return c;
  };
  auto refused = [](std::vector<TVMConstantInfo> c, const std::string& message) {
    Fixture f;
    f.md.constant_pools = c.data();
    f.md.num_constant_pools = static_cast<int64_t>(c.size());
    EXPECT_AOTRT_ERROR(Read(f.md), ErrorCode::kFormatError, {"m.so: invalid metadata: " + message});
  };
  std::vector<TVMConstantInfo> c = constants();
  c[3].name_hint = nullptr;
  refused(c, "constant_pools[3].name_hint is a null pointer");
  c = constants();
  c[3].name_hint = "";
  refused(c, "constant_pools[3].name_hint is empty");
  c = constants();
  c[3].byte_offset = -1;
  refused(c, "constant_pools[3] ('weights_3'): byte_offset -1 not in [0, 2^31)");
  c = constants();
  c[3].data_len = 0;
  refused(c, "constant_pools[3] ('weights_3'): no data (data_len 0)");
  c = constants();
  c[3].data_bytes = nullptr;
  refused(c, "constant_pools[3] ('weights_3'): no data (data_len 4)");
  Fixture g;
  g.inputs[1].num_shape = 33;
  EXPECT_AOTRT_ERROR(Read(g.md), ErrorCode::kFormatError, {"m.so: invalid metadata: inputs[1] ('b'): ndim 33 not in [0, 32]"});
  Fixture h;
  h.inputs[1].num_shape = 1;
  h.inputs[1].shape = reinterpret_cast<const int64_t*>(reinterpret_cast<const char*>(kShape) + 1);
  EXPECT_AOTRT_ERROR(Read(h.md), ErrorCode::kFormatError,
                     {"m.so: invalid metadata: inputs[1] ('b').shape pointer 0x", "is not aligned to 8 bytes"});
  Fixture k;
  k.md.num_outputs = -2;
  EXPECT_AOTRT_ERROR(Read(k.md), ErrorCode::kFormatError,
                     {"m.so: invalid metadata: outputs count -2 not in [0, 65536]"});
}

TEST(MetadataBounds, ConstantFieldsOutsideTheImageNameTheConstant) {
  ImageModel m;
  std::string blob = SaveNDArray(NDArray::Empty({2}, DLDataType{kDLInt, 8, 1}).tensor());
  const char* data = m.img.Str(blob, false);
  const char* name = m.img.Str("w");
  const char* far_name = m.img.Str("far");
  int64_t n = static_cast<int64_t>(blob.size());
  TVMConstantInfo* c = m.img.Put<TVMConstantInfo>({{name, 0, n, data}, {name, 8, n, data}, {name, 16, n, data},
                                                   {far_name, 24, n, data}});
  m.md->constant_pools = c;
  m.md->num_constant_pools = 4;
  ReadMetadata(m.md, m.img.Bounds(), "m.so");
  c[3].data_len = int64_t{1} << 20;
  m.ExpectRefused({"m.so: invalid metadata: constant_pools[3] ('far').data_bytes pointer 0x",
                   " (1048576 bytes) is outside the library's mapped segments"});
  c[3].data_len = n;
  const char outside[] = "elsewhere";
  c[3].name_hint = outside;
  m.ExpectRefused({"m.so: invalid metadata: constant_pools[3].name_hint pointer 0x", "is outside the library's mapped segments"});
  m.md->num_constant_pools = 5;
  m.ExpectRefused({"m.so: invalid metadata: constant_pools (5 entries) pointer 0x", "is outside the library's mapped segments"});
}

// Item 3 of issue 12: metadata that disagrees with itself.
TEST(Metadata, RejectsEmptyAndDuplicateNamesAndEmptyPools) {
  Fixture f;
  f.inputs[1].name = "";
  ExpectError(f.md, "inputs[1].name is empty");
  Fixture g;
  g.inputs[1].name = "input_0";  // sanitized, the same as input:0
  ExpectError(g.md, "inputs[1] ('input_0') has the same name (sanitized) as inputs[0] ('input:0')");
  Fixture h;
  TVMTensorInfo two_outputs[2] = {h.outputs[0], h.outputs[0]};
  h.md.outputs = two_outputs;
  h.md.num_outputs = 2;
  ExpectError(h.md, "outputs[1] ('output0') has the same name as outputs[0]");
  Fixture k;
  k.md.mod_name = "";
  ExpectError(k.md, "mod_name is empty");
  Fixture z;
  z.md.num_outputs = 0;  // issue 26: loaded before, crashed at run
  ExpectError(z.md, "num_outputs is 0: a model has at least one output");
  Fixture e;
  e.inputs[0].name = "";
  ExpectError(e.md, "inputs[0].name is empty");
  Fixture d;
  d.inputs[1].name = "input:0";  // exactly the same name
  ExpectError(d.md, "inputs[1] ('input:0') has the same name (sanitized) as inputs[0] ('input:0')");
  Fixture p;
  const int64_t zero[] = {0};
  p.pools[0].shape = zero;
  p.md.workspace_pools = p.pools;
  p.md.num_workspace_pools = 1;
  ExpectError(p.md, "workspace pool 'global_workspace_1_var' has 0 bytes");
}
