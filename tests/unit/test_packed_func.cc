#include <gtest/gtest.h>

#include "aotrt/container.h"
#include "aotrt/error.h"
#include "aotrt/ndarray.h"
#include "aotrt/module.h"
#include "aotrt/packed_func.h"

using namespace aotrt;

TEST(PackedFunc, ArgumentConversionsNameTheArgument) {
  TVMValue v[3];
  int codes[3] = {kTVMArgInt, kTVMStr, kTVMArgFloat};
  v[0].v_int64 = 7;
  v[1].v_str = "hello";
  v[2].v_float64 = 2.5;
  TVMArgs args(v, codes, 3);
  EXPECT_EQ(args[0].AsInt(), 7);
  EXPECT_EQ(args[1].AsString(), "hello");
  EXPECT_EQ(args[2].AsFloat(), 2.5);
  EXPECT_EQ(args[0].AsFloat(), 7.0);
  try {
    args[1].AsInt();
    FAIL();
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), ErrorCode::kTypeMismatch);
    EXPECT_STREQ(e.what(), "argument 1: expected int, got str (type code 11)");
  }
  EXPECT_THROW(args[0].AsDLTensor(), Error);
  EXPECT_THROW(args[0].AsModule(), Error);
}

TEST(PackedFunc, NullTensorHandleIsAnError) {
  TVMValue v;
  v.v_handle = nullptr;
  int code = kTVMDLTensorHandle;
  TVMArgs args(&v, &code, 1);
  EXPECT_THROW(args[0].AsDLTensor(), Error);
}

TEST(PackedFunc, RetValueOwnsObjects) {
  NDArray a = NDArray::Empty({1}, DLDataType{kDLFloat, 32, 1});
  {
    TVMRetValue rv;
    rv.SetObject(a.object(), kTVMNDArrayHandle);
    EXPECT_EQ(a.object()->use_count(), 2);
    EXPECT_EQ(rv.value().v_handle, a.handle());
  }
  EXPECT_EQ(a.object()->use_count(), 1);
  TVMRetValue rv;
  rv.SetObject(a.object(), kTVMNDArrayHandle);
  TVMValue out;
  int code;
  rv.MoveToC(&out, &code);
  EXPECT_EQ(code, kTVMNDArrayHandle);
  EXPECT_EQ(a.object()->use_count(), 2);  // the C caller owns one reference now
  NDArrayObj::FromHandle(static_cast<DLTensor*>(out.v_handle))->DecRef();
}

TEST(PackedFunc, DataTypeReturnsAsString) {
  TVMRetValue rv;
  rv.SetDataType(DLDataType{kDLFloat, 32, 1});
  TVMValue out;
  int code;
  rv.MoveToC(&out, &code);
  EXPECT_EQ(code, kTVMStr);
  EXPECT_STREQ(out.v_str, "float32");
}

TEST(Registry, RegisterLookupOverrideRemove) {
  PackedFunc f([](TVMArgs args, TVMRetValue* rv) { rv->SetInt(args.size()); });
  RegisterGlobalFunction("test.registry.f", f);
  EXPECT_TRUE(static_cast<bool>(GetGlobalFunction("test.registry.f")));
  try {
    RegisterGlobalFunction("test.registry.f", f);
    FAIL();
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("already registered"), std::string::npos);
  }
  RegisterGlobalFunction("test.registry.f", f, true);
  EXPECT_FALSE(static_cast<bool>(GetGlobalFunction("test.registry.absent")));
}

TEST(Registry, BuiltinsArePresent) {
  for (const char* name : {"runtime.module.loadfile_so", "runtime.module.loadbinary_AotExecutorFactory",
                           "runtime.module.loadbinary_metadata_module", "tvm.aot_executor_factory.create",
                           "runtime.SystemLib", "runtime.SaveParams", "runtime.LoadParams", "runtime.ArraySize",
                           "runtime.ArrayGetItem"}) {
    EXPECT_TRUE(static_cast<bool>(GetGlobalFunction(name))) << name;
  }
}
