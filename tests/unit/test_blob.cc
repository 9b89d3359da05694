// The module blob parser (ABI.md 5) on crafted bytes: valid trees and every corruption.
#include <gtest/gtest.h>

#include "common/expect_error.h"

#include <cstring>
#include <map>

#include "aotrt/container.h"
#include "aotrt/error.h"
#include "module/loader/load.h"
#include "module/library_module.h"
#include "aotrt/ndarray.h"
#include "aotrt/packed_func.h"
#include "tvm/runtime/c_backend_api.h"
#include "tvm/runtime/metadata_types.h"

using namespace aotrt;

namespace {

// The smallest model a factory links to (models are validated at load): inputs `w` (float32
// [2, 3]) and `b` (int8 [3]), one output, no pools; the entry does nothing.
const int64_t kShapeW[] = {2, 3};
const int64_t kShapeB[] = {3};
const TVMTensorInfo kInputs[] = {{"w", kShapeW, 2, {kDLFloat, 32, 1}}, {"b", kShapeB, 1, {kDLInt, 8, 1}}};
const TVMTensorInfo kOutputs[] = {{"output0", kShapeB, 1, {kDLInt, 8, 1}}};
const TVMMetadata kMetadata = {1, kInputs, 2, kOutputs, 1, nullptr, 0, nullptr, 0, "tvmgen_default"};

int GetCMetadata(TVMValue*, int*, int, TVMValue* ret, int* ret_code, void*) {
  ret->v_handle = const_cast<TVMMetadata*>(&kMetadata);
  *ret_code = kTVMOpaqueHandle;
  return 0;
}

int Entry(TVMValue*, int*, int, TVMValue*, int*, void*) { return 0; }

class FakeSymbols : public SymbolSource {
 public:
  void* Lookup(const std::string& name) const override {
    if (name == "get_c_metadata") return reinterpret_cast<void*>(&GetCMetadata);
    if (name == "tvmgen_default___tvm_main__") return reinterpret_cast<void*>(&Entry);
    return nullptr;
  }
  uint64_t SymbolSize(const std::string&) const override { return 0; }
  // The metadata above lives in this test executable: any loaded object's segments bound it.
  AddressBounds Segments() const override { return AddressBounds::AnyLoadedObject(); }
  const std::string& name() const override { return name_; }

 private:
  std::string name_ = "fake.so";
};

// dmlc::Stream encodings (ABI.md 5.1).
struct Writer {
  std::string out;
  void U64(uint64_t v) { out.append(reinterpret_cast<const char*>(&v), 8); }
  void Str(const std::string& s) {
    U64(s.size());
    out += s;
  }
  void Factory(const std::string& name) {
    U64(0);  // params count
    U64(0);  // names
    Str(name);
  }
  void Tree(std::vector<uint64_t> rows, std::vector<uint64_t> children) {
    Str("_import_tree");
    U64(rows.size());
    for (uint64_t r : rows) U64(r);
    U64(children.size());
    for (uint64_t c : children) U64(c);
  }
  std::string Blob() const {
    std::string b;
    uint64_t n = out.size();
    b.append(reinterpret_cast<const char*>(&n), 8);
    return b + out;
  }
};

std::string AotBlob(const std::string& name = "default") {
  Writer w;
  w.U64(4);
  w.Str("AotExecutorFactory");
  w.Factory(name);
  w.Str("metadata_module");
  w.Str("_lib");
  w.Tree({0, 1, 2, 2}, {1, 2});
  return w.Blob();
}

LoadContext FakeContext() {
  LoadContext ctx;
  ctx.display_name = "fake.so";
  return ctx;
}

ObjectPtr<ModuleNode> Parse(const std::string& blob) {
  auto symbols = std::make_shared<FakeSymbols>();
  auto lib = MakeObject<LibraryModuleNode>(symbols);
  return ProcessModuleBlob(blob.data(), blob.size(), lib, FakeContext());
}

void ExpectFormatError(const std::string& blob, const std::string& fragment) {
  EXPECT_AOTRT_ERROR(Parse(blob), ErrorCode::kFormatError, {fragment, "fake.so"});
}

}  // namespace

TEST(Blob, AotTreeIsRebuilt) {
  ObjectPtr<ModuleNode> root = Parse(AotBlob());
  EXPECT_STREQ(root->type_key(), "AotExecutorFactory");
  ASSERT_EQ(root->imports().size(), 1u);
  EXPECT_STREQ(root->imports()[0]->type_key(), "metadata_module");
  ASSERT_EQ(root->imports()[0]->imports().size(), 1u);
  EXPECT_STREQ(root->imports()[0]->imports()[0]->type_key(), "library");
}

TEST(Blob, LegacyBlobWithoutTreeHangsOffTheLibrary) {
  Writer w;
  w.U64(2);
  w.Str("_lib");
  w.Str("metadata_module");
  ObjectPtr<ModuleNode> root = Parse(w.Blob());
  EXPECT_STREQ(root->type_key(), "library");
  ASSERT_EQ(root->imports().size(), 1u);
}

TEST(Blob, EveryTruncationIsAnError) {
  std::string good = AotBlob();
  for (size_t cut = 0; cut < good.size(); ++cut) {
    auto lib = MakeObject<LibraryModuleNode>(std::make_shared<FakeSymbols>());
    EXPECT_AOTRT_ERROR(ProcessModuleBlob(good.data(), cut, lib, FakeContext()), ErrorCode::kFormatError, {})
        << cut;
  }
  // Header claims less than the entries need: the parser stops at the claimed end.
  std::string shorter = good;
  uint64_t n = good.size() - 8 - 10;
  std::memcpy(&shorter[0], &n, 8);
  ExpectFormatError(shorter, "bytes remain");
}

TEST(Blob, OversizedHeader) {
  std::string b = AotBlob();
  uint64_t n = uint64_t{1} << 50;
  std::memcpy(&b[0], &n, 8);
  ExpectFormatError(b, "header claims");
}

TEST(Blob, UnknownTypeKeyListsLoaders) {
  Writer w;
  w.U64(1);
  w.Str("rocm");
  try {
    Parse(w.Blob());
    FAIL();
  } catch (const Error& e) {
    std::string m = e.what();
    EXPECT_NE(m.find("{rocm}"), std::string::npos) << m;
    EXPECT_NE(m.find("AotExecutorFactory"), std::string::npos) << m;
    EXPECT_NE(m.find("metadata_module"), std::string::npos) << m;
  }
}

TEST(Blob, ImportTreeErrors) {
  auto blob_with_tree = [](std::vector<uint64_t> rows, std::vector<uint64_t> children) {
    Writer w;
    w.U64(4);
    w.Str("AotExecutorFactory");
    w.Factory("default");
    w.Str("metadata_module");
    w.Str("_lib");
    w.Tree(rows, children);
    return w.Blob();
  };
  ExpectFormatError(blob_with_tree({0, 1, 2, 2}, {1, 7}), "out of range");
  ExpectFormatError(blob_with_tree({0, 1, 2}, {1, 2}), "row pointers");
  ExpectFormatError(blob_with_tree({0, 1, 2, 3}, {1, 2, 0}), "Cyclic dependency");
  ExpectFormatError(blob_with_tree({0, 1, 1, 1}, {0}), "Cyclic dependency");  // self import
  ExpectFormatError(blob_with_tree({0, 2, 1, 2}, {1, 2}), "decrease");
  // A first row reaching past the children, made wrong only by the next row (found by fuzz_blob).
  ExpectFormatError(blob_with_tree({0, 100, 2, 2}, {1, 2}), "decrease");
}

TEST(Blob, DuplicateLibAndTrailingBytes) {
  Writer w;
  w.U64(2);
  w.Str("_lib");
  w.Str("_lib");
  ExpectFormatError(w.Blob(), "Multiple dso module");
  std::string b = AotBlob();
  std::string padded = b + "xyz";
  uint64_t n = padded.size() - 8;
  std::memcpy(&padded[0], &n, 8);
  ExpectFormatError(padded, "unexpected data");
}

TEST(Blob, FactoryPayloadErrors) {
  Writer w;
  w.U64(4);
  w.Str("AotExecutorFactory");
  w.U64(1);  // one param ...
  w.U64(0);  // ... but no names
  w.Str("default");
  w.Str("metadata_module");
  w.Str("_lib");
  w.Tree({0, 1, 2, 2}, {1, 2});
  ExpectFormatError(w.Blob(), "params count 1 does not match 0 names");
  Writer e;
  e.U64(1);
  e.Str("AotExecutorFactory");
  e.Factory("");
  ExpectFormatError(e.Blob(), "module name is empty");
}

TEST(Blob, FactorySaveToBinaryRoundTrips) {
  // A factory with two params, created as TVM's Python would (tvm.aot_executor_factory.create).
  auto lib = MakeObject<LibraryModuleNode>(std::make_shared<FakeSymbols>());
  NDArray w = NDArray::Empty({2, 3}, DLDataType{kDLFloat, 32, 1});
  NDArray b = NDArray::Empty({3}, DLDataType{kDLInt, 8, 1});
  for (int i = 0; i < 6; ++i) static_cast<float*>(w.data())[i] = 0.5f * i;
  static_cast<int8_t*>(b.data())[2] = -7;
  TVMValue args[6];
  int codes[6] = {kTVMModuleHandle, kTVMStr, kTVMStr, kTVMNDArrayHandle, kTVMStr, kTVMNDArrayHandle};
  args[0].v_handle = static_cast<ModuleNode*>(lib.get());
  args[1].v_str = "my_model";
  args[2].v_str = "w";
  args[3].v_handle = w.handle();
  args[4].v_str = "b";
  args[5].v_handle = b.handle();
  TVMRetValue rv;
  GetGlobalFunction("tvm.aot_executor_factory.create").CallPacked(TVMArgs(args, codes, 6), &rv);
  ObjectPtr<ModuleNode> factory(static_cast<ModuleNode*>(rv.object()));
  std::string payload = factory->SaveToBinary();

  Writer wr;
  wr.U64(4);
  wr.Str("AotExecutorFactory");
  wr.out += payload;
  wr.Str("metadata_module");
  wr.Str("_lib");
  wr.Tree({0, 1, 2, 2}, {1, 2});
  ObjectPtr<ModuleNode> root = Parse(wr.Blob());
  EXPECT_EQ(root->SaveToBinary(), payload);  // byte-identical after a round trip
  PackedFunc get_params = Module(root).GetFunction("get_params");
  TVMRetValue params;
  get_params.CallPacked(TVMArgs(nullptr, nullptr, 0), &params);
  ASSERT_EQ(params.object()->type_index(), kTypeMap);
  const auto* map = static_cast<MapObj*>(params.object());
  ASSERT_EQ(map->items().size(), 2u);
  EXPECT_EQ(static_cast<StringObj*>(map->items()[0].first.get())->value, "w");
  auto* w2 = static_cast<NDArrayObj*>(map->Find("w")->get());
  EXPECT_EQ(std::memcmp(w2->dl_tensor.data, w.data(), 24), 0);
  EXPECT_TRUE(static_cast<bool>(Module(root).GetFunction("my_model")));
}
