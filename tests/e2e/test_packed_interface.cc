// The Module-based Model Runtime interface through the C ABI, as host bindings drive it.
#include <gtest/gtest.h>

#include <tvm/runtime/c_runtime_api.h>

#include "aotrt/c_api.h"
#include "common/cases.h"

using namespace aotrt_test;

namespace {

// A tiny C-ABI client: owned handles freed on scope exit.
struct Value {
  TVMValue v;
  int code;
};

class Handle {
 public:
  Handle() = default;
  Handle(void* h, int code) : h_(h), code_(code) {}
  Handle(Handle&& o) noexcept : h_(o.h_), code_(o.code_) { o.h_ = nullptr; }
  Handle& operator=(Handle&& o) noexcept {
    std::swap(h_, o.h_);
    std::swap(code_, o.code_);
    return *this;
  }
  ~Handle() {
    if (!h_) return;
    if (code_ == kTVMModuleHandle) TVMModFree(h_);
    else if (code_ == kTVMPackedFuncHandle) TVMFuncFree(h_);
    else if (code_ == kTVMNDArrayHandle) TVMArrayFree(static_cast<DLTensor*>(h_));
    else TVMObjectFree(h_);
  }
  void* get() const { return h_; }

 private:
  void* h_ = nullptr;
  int code_ = 0;
};

Handle Load(const std::string& path) {
  void* h = nullptr;
  EXPECT_EQ(TVMModLoadFromFile(path.c_str(), "so", &h), 0) << TVMGetLastError();
  return Handle(h, kTVMModuleHandle);
}

// TVMFuncCall f(args...), then release f; `out` receives the result (caller owns objects).
int Invoke(void* f, const std::vector<Value>& args, Value* out) {
  std::vector<TVMValue> vals;
  std::vector<int> codes;
  for (const Value& a : args) {
    vals.push_back(a.v);
    codes.push_back(a.code);
  }
  int rc = TVMFuncCall(f, vals.data(), codes.data(), static_cast<int>(vals.size()), &out->v, &out->code);
  TVMFuncFree(f);
  return rc;
}

// Call mod[name](args...); returns rc (-2 when the function does not exist).
int Call(void* mod, const char* name, std::vector<Value> args, Value* out) {
  void* f = nullptr;
  if (TVMModGetFunction(mod, name, 0, &f) != 0) return -1;
  if (!f) {
    TVMAPISetLastError("no such function");
    return -2;
  }
  return Invoke(f, args, out);
}

// Call the global function `name`(args...); same contract as Call.
int CallGlobal(const char* name, std::vector<Value> args, Value* out) {
  void* f = nullptr;
  if (TVMFuncGetGlobal(name, &f) != 0 || !f) return -1;
  return Invoke(f, args, out);
}

Value Str(const char* s) {
  Value v;
  v.v.v_str = s;
  v.code = kTVMStr;
  return v;
}
Value Int(int64_t i) {
  Value v;
  v.v.v_int64 = i;
  v.code = kTVMArgInt;
  return v;
}
Value Dev() {
  Value v;
  v.v.v_device = DLDevice{kDLCPU, 0};
  v.code = kDLDevice;
  return v;
}
Value Object(void* h, int code) {
  Value v;
  v.v.v_handle = h;
  v.code = code;
  return v;
}
Value Tensor(DLTensor* t) {
  Value v;
  v.v.v_handle = t;
  v.code = kTVMDLTensorHandle;
  return v;
}

}  // namespace

TEST(PackedInterface, FullFlowThroughTheCAbi) {
  Case c = GeneratedCase("custom_name");
  Handle lib = Load(c.library);
  Value r;
  ASSERT_EQ(Call(lib.get(), "list_module_names", {}, &r), 0);
  ASSERT_EQ(r.code, kTVMObjectHandle);
  Handle names(r.v.v_handle, kTVMObjectHandle);
  ASSERT_EQ(CallGlobal("runtime.ArrayGetItem", {Object(names.get(), kTVMObjectHandle), Int(0)}, &r), 0);
  ASSERT_EQ(r.code, kTVMObjectHandle);  // elements stay String objects, as in TVM
  Handle name0(r.v.v_handle, kTVMObjectHandle);
  ASSERT_EQ(CallGlobal("runtime.GetFFIString", {Object(name0.get(), kTVMObjectHandle)}, &r), 0);
  ASSERT_EQ(r.code, kTVMStr);
  EXPECT_STREQ(r.v.v_str, "unusual_module_name_fred");
  ASSERT_EQ(Call(lib.get(), "unusual_module_name_fred", {Dev()}, &r), 0) << TVMGetLastError();
  ASSERT_EQ(r.code, kTVMModuleHandle);
  Handle ex(r.v.v_handle, kTVMModuleHandle);

  ASSERT_EQ(Call(ex.get(), "get_num_inputs", {}, &r), 0);
  EXPECT_EQ(r.v.v_int64, 2);
  ASSERT_EQ(Call(ex.get(), "get_input_name", {Int(0)}, &r), 0);
  EXPECT_STREQ(r.v.v_str, "input_0");
  ASSERT_EQ(Call(ex.get(), "get_input_index", {Str("input@1")}, &r), 0);
  EXPECT_EQ(r.v.v_int64, 1);
  ASSERT_EQ(Call(ex.get(), "get_input_info", {}, &r), 0);  // GraphExecutor's Map convention
  ASSERT_EQ(r.code, kTVMObjectHandle);
  Handle info(r.v.v_handle, kTVMObjectHandle);
  ASSERT_EQ(CallGlobal("runtime.MapGetItem", {Object(info.get(), kTVMObjectHandle), Str("shape")}, &r), 0);
  Handle shapes(r.v.v_handle, kTVMObjectHandle);
  ASSERT_EQ(CallGlobal("runtime.MapGetItem", {Object(shapes.get(), kTVMObjectHandle), Str("input_1")}, &r), 0);
  Handle shape1(r.v.v_handle, kTVMObjectHandle);
  ASSERT_EQ(CallGlobal("runtime.GetShapeTupleElem", {Object(shape1.get(), kTVMObjectHandle), Int(1)}, &r), 0);
  EXPECT_EQ(r.v.v_int64, 2);
  ASSERT_EQ(CallGlobal("runtime.MapGetItem", {Object(info.get(), kTVMObjectHandle), Str("dtype")}, &r), 0);
  Handle dtypes(r.v.v_handle, kTVMObjectHandle);
  ASSERT_EQ(CallGlobal("runtime.MapGetItem", {Object(dtypes.get(), kTVMObjectHandle), Str("input_0")}, &r), 0);
  Handle dtype0(r.v.v_handle, kTVMObjectHandle);
  ASSERT_EQ(CallGlobal("runtime.GetFFIString", {Object(dtype0.get(), kTVMObjectHandle)}, &r), 0);
  EXPECT_STREQ(r.v.v_str, "int32");
  ASSERT_EQ(Call(ex.get(), "get_output_index", {Str("output0")}, &r), 0);
  EXPECT_EQ(r.v.v_int64, 0);

  for (size_t i = 0; i < c.inputs.size(); ++i) {
    ASSERT_EQ(Call(ex.get(), "set_input", {Str(c.input_names[i].c_str()), Tensor(c.inputs[i].handle())}, &r), 0)
        << TVMGetLastError();
    EXPECT_EQ(r.code, kTVMNullptr);
  }
  ASSERT_EQ(Call(ex.get(), "get_input", {Str("input:0")}, &r), 0);
  ASSERT_EQ(r.code, kTVMNDArrayHandle);
  Handle in0(r.v.v_handle, kTVMNDArrayHandle);
  EXPECT_EQ(std::memcmp(static_cast<DLTensor*>(in0.get())->data, c.inputs[0].data(), 16), 0);

  ASSERT_EQ(Call(ex.get(), "run", {}, &r), 0) << TVMGetLastError();
  EXPECT_EQ(r.code, kTVMNullptr);
  ASSERT_EQ(Call(ex.get(), "get_output", {Int(0)}, &r), 0);
  ASSERT_EQ(r.code, kTVMNDArrayHandle);
  Handle out(r.v.v_handle, kTVMNDArrayHandle);
  EXPECT_EQ(std::memcmp(static_cast<DLTensor*>(out.get())->data, c.expected[0].data(), c.expected[0].NumBytes()), 0);
  aotrt::NDArray dst = aotrt::NDArray::Empty(c.expected[0].Shape(), c.expected[0].dtype());
  ASSERT_EQ(Call(ex.get(), "get_output", {Int(0), Tensor(dst.handle())}, &r), 0);
  EXPECT_EQ(r.code, kTVMNullptr);
  EXPECT_TRUE(BytesEqual(dst, c.expected[0]));
}

TEST(PackedInterface, ErrorsWhereTvmErrsAndWhereItShould) {
  Handle lib = Load(ModelPath("add_c"));
  Value r;
  EXPECT_EQ(Call(lib.get(), "default", {}, &r), -1);
  EXPECT_NE(std::string(TVMGetLastError()).find("at least one device"), std::string::npos);
  EXPECT_EQ(Call(lib.get(), "default", {Dev(), Dev()}, &r), -1);
  EXPECT_NE(std::string(TVMGetLastError()).find("Expect exactly 1 device passed"), std::string::npos);
  EXPECT_EQ(AOTRTGetLastErrorCode(), 1);
  EXPECT_EQ(Call(lib.get(), "default", {Int(1)}, &r), -1);
  EXPECT_NE(std::string(TVMGetLastError()).find("expected DLDevice"), std::string::npos);

  ASSERT_EQ(Call(lib.get(), "default", {Dev()}, &r), 0);
  Handle ex(r.v.v_handle, kTVMModuleHandle);
  aotrt::NDArray x = aotrt::NDArray::Empty({1}, DLDataType{kDLFloat, 32, 1});
  EXPECT_EQ(Call(ex.get(), "set_input", {Str("no_such_input_xyz"), Tensor(x.handle())}, &r), -1);
  EXPECT_NE(std::string(TVMGetLastError()).find("Invalid input name"), std::string::npos);
  EXPECT_EQ(Call(ex.get(), "get_input_index", {Int(3)}, &r), -1);
  EXPECT_NE(std::string(TVMGetLastError()).find("Input key is not a string"), std::string::npos);
  EXPECT_EQ(Call(ex.get(), "get_input_name", {Int(5)}, &r), -1);
  EXPECT_NE(std::string(TVMGetLastError()).find("Index out of range"), std::string::npos);
  EXPECT_EQ(Call(ex.get(), "get_input", {Int(2)}, &r), -1);  // TVM would return output 0 here
  EXPECT_EQ(AOTRTGetLastErrorCode(), 3);
  EXPECT_EQ(Call(ex.get(), "get_output", {}, &r), -1);
  EXPECT_EQ(Call(ex.get(), "run", {Int(1)}, &r), -1);
  EXPECT_EQ(Call(ex.get(), "set_input", {Str("a"), Int(1)}, &r), -1);
  EXPECT_NE(std::string(TVMGetLastError()).find("expected a tensor"), std::string::npos);
  void* f = reinterpret_cast<void*>(1);
  ASSERT_EQ(TVMModGetFunction(ex.get(), "no_such_function", 1, &f), 0);
  EXPECT_EQ(f, nullptr);
}

TEST(PackedInterface, RemoveParamsAndFactoryCreate) {
  Case c = GeneratedCase("big_params");
  Handle lib = Load(c.library);
  Value r;
  ASSERT_EQ(Call(lib.get(), "remove_params", {}, &r), 0);
  Handle bare(r.v.v_handle, kTVMModuleHandle);
  ASSERT_EQ(Call(bare.get(), "default", {Dev()}, &r), 0);
  Handle ex(r.v.v_handle, kTVMModuleHandle);
  ASSERT_EQ(Call(ex.get(), "get_params_size", {}, &r), 0);
  EXPECT_EQ(r.v.v_int64, 0);
  // Rebuild a factory over the same metadata module with tvm.aot_executor_factory.create.
  void* create = nullptr;
  ASSERT_EQ(TVMFuncGetGlobal("tvm.aot_executor_factory.create", &create), 0);
  ASSERT_EQ(CallGlobal("runtime.ModuleGetImport", {Object(lib.get(), kTVMModuleHandle), Int(0)}, &r), 0);
  Handle md(r.v.v_handle, kTVMModuleHandle);
  aotrt::NDArray w = aotrt::NDArray::Empty({1024, 4096}, DLDataType{kDLFloat, 32, 1});
  TVMValue args[4];
  int codes[4] = {kTVMModuleHandle, kTVMStr, kTVMStr, kTVMDLTensorHandle};
  args[0].v_handle = md.get();
  args[1].v_str = "mine";
  args[2].v_str = "weight";
  args[3].v_handle = w.handle();
  TVMValue ret;
  int code;
  ASSERT_EQ(TVMFuncCall(create, args, codes, 4, &ret, &code), 0) << TVMGetLastError();
  Handle factory(ret.v_handle, kTVMModuleHandle);
  ASSERT_EQ(Call(factory.get(), "mine", {Dev()}, &r), 0) << TVMGetLastError();
  Handle ex2(r.v.v_handle, kTVMModuleHandle);
  ASSERT_EQ(Call(ex2.get(), "get_params_size", {}, &r), 0);
  EXPECT_EQ(r.v.v_int64, 1024 * 4096 * 4);
  EXPECT_EQ(TVMFuncCall(create, args, codes, 3, &ret, &code), -1);  // odd pair count
  TVMFuncFree(create);
}

TEST(PackedInterface, ZeroCopyThroughTheCAbi) {
  Case c = GeneratedCase("add_llvm");
  Handle lib = Load(c.library);
  Value r;
  ASSERT_EQ(Call(lib.get(), "default", {Dev()}, &r), 0);
  Handle ex(r.v.v_handle, kTVMModuleHandle);
  aotrt::NDArray out = aotrt::NDArray::Empty({1}, DLDataType{kDLFloat, 32, 1});
  Value nd;
  nd.v.v_handle = out.handle();
  nd.code = kTVMNDArrayHandle;  // an NDArray: the executor keeps a reference
  ASSERT_EQ(Call(ex.get(), "set_output_zero_copy", {Int(0), nd}, &r), 0) << TVMGetLastError();
  for (size_t i = 0; i < c.inputs.size(); ++i) {
    ASSERT_EQ(Call(ex.get(), "set_input_zero_copy", {Int(static_cast<int64_t>(i)), Tensor(c.inputs[i].handle())}, &r),
              0)
        << TVMGetLastError();
  }
  ASSERT_EQ(Call(ex.get(), "run", {}, &r), 0) << TVMGetLastError();
  EXPECT_TRUE(BytesEqual(out, c.expected[0]));
  EXPECT_EQ(out.object()->use_count(), 2);
}

// float16 and bool through the C ABI, as a host binding drives an LLVM-14 float16 export (half_llvm
// calls aotrt's __gnu_f2h_ieee/__gnu_h2f_ieee) and its c-flavour twin.
class HalfThroughTheCAbi : public ::testing::TestWithParam<std::string> {};

TEST_P(HalfThroughTheCAbi, RunsBitExact) {
  Case c = GeneratedCase(GetParam());
  Handle lib = Load(c.library);
  Value r;
  ASSERT_EQ(Call(lib.get(), "default", {Dev()}, &r), 0) << TVMGetLastError();
  Handle ex(r.v.v_handle, kTVMModuleHandle);
  // The executor's own output tensors carry the dtypes (get_output(i) returns an owned view).
  const char* dtypes[] = {"float16", "bool", "int16", "float32", "float16"};
  for (int64_t i = 0; i < 5; ++i) {
    ASSERT_EQ(Call(ex.get(), "get_output", {Int(i)}, &r), 0) << TVMGetLastError();
    auto* out = static_cast<DLTensor*>(r.v.v_handle);
    EXPECT_EQ(aotrt::DataTypeToString(out->dtype), dtypes[i]) << "output " << i;
    TVMArrayFree(out);
  }
  for (size_t i = 0; i < c.inputs.size(); ++i) {
    ASSERT_EQ(Call(ex.get(), "set_input", {Str(c.input_names[i].c_str()), Tensor(c.inputs[i].handle())}, &r), 0)
        << TVMGetLastError();
  }
  ASSERT_EQ(Call(ex.get(), "run", {}, &r), 0) << TVMGetLastError();
  ASSERT_EQ(c.expected.size(), 5u);
  for (size_t i = 0; i < c.expected.size(); ++i) {
    aotrt::NDArray dst = aotrt::NDArray::Empty(c.expected[i].Shape(), c.expected[i].dtype());
    ASSERT_EQ(Call(ex.get(), "get_output", {Int(static_cast<int64_t>(i)), Tensor(dst.handle())}, &r), 0)
        << TVMGetLastError();
    EXPECT_TRUE(BytesEqual(dst, c.expected[i])) << "output " << i;
  }
}

INSTANTIATE_TEST_SUITE_P(BothFlavours, HalfThroughTheCAbi, ::testing::Values("half_c", "half_llvm"));
