// PackedFunc's typed calls: f(args...) from C++ values, results through As<T>(), kTypeMismatch
// naming the type found, and the Module-based flow with no hand-built TVMArgs.
#include <gtest/gtest.h>

#include <cstring>
#include <string>

#include "aotrt/module.h"
#include "aotrt/ndarray.h"
#include "aotrt/packed_func.h"
#include "common/cases.h"
#include "common/expect_error.h"

using namespace aotrt;

namespace {

// Echoes "<code>:<value>" of each argument, so a test sees how each C++ type was packed.
PackedFunc Describer() {
  return PackedFunc([](TVMArgs args, TVMRetValue* rv) {
    std::string out;
    for (int i = 0; i < args.size(); ++i) {
      TVMArgValue a = args[i];
      out += std::to_string(a.type_code()) + ":";
      switch (a.type_code()) {
        case kTVMArgInt: out += std::to_string(a.AsInt()); break;
        case kTVMArgFloat: out += std::to_string(a.AsFloat()); break;
        case kTVMStr: out += a.AsString(); break;
        case kDLDevice: out += std::to_string(a.AsDevice().device_type); break;
        case kTVMDataType: out += std::to_string(a.AsDataType().bits); break;
        default: out += a.value().v_handle ? "h" : "0";
      }
      out += " ";
    }
    rv->SetString(out);
  });
}

void ExpectMismatch(const std::function<void()>& f, const std::string& message) {
  try {
    f();
    ADD_FAILURE() << "no error, expected: " << message;
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), ErrorCode::kTypeMismatch);
    EXPECT_EQ(std::string(e.what()), message);
  }
}

}  // namespace

TEST(TypedCall, PacksEachArgumentKind) {
  PackedFunc f = Describer();
  std::string name = "abc";
  EXPECT_EQ(f(int8_t{-3}, 7u, true, 2.5f, "s", name, nullptr).As<std::string>(),
            "0:-3 0:7 0:1 2:2.500000 11:s 11:abc 4:0 ");
  DLTensor t{};
  NDArray a = NDArray::Empty({2}, DLDataType{kDLFloat, 32, 1});
  EXPECT_EQ(f(DLDevice{kDLCPU, 0}, DLDataType{kDLInt, 16, 1}, &t, a, f, NDArray()).As<std::string>(),
            "6:1 5:16 7:h 13:h 10:h 4:0 ");
  EXPECT_EQ(f().As<std::string>(), "");
}

TEST(TypedCall, ResultsConvertOrNameTheTypeFound) {
  PackedFunc identity([](TVMArgs args, TVMRetValue* rv) { rv->SetFromC(args[0].value(), args[0].type_code()); });
  EXPECT_EQ(identity.Call<int64_t>(42), 42);
  EXPECT_EQ(identity.Call<int>(-5), -5);
  EXPECT_EQ(identity.Call<double>(1.5), 1.5);
  EXPECT_EQ(identity.Call<double>(3), 3.0);
  EXPECT_TRUE(identity.Call<bool>(true));
  EXPECT_EQ(identity.Call<std::string>(std::string("hi")), "hi");
  EXPECT_EQ(identity.Call<void*>(nullptr), nullptr);
  NDArray a = NDArray::Empty({3}, DLDataType{kDLFloat, 32, 1});
  NDArray back = identity(a).As<NDArray>();
  ASSERT_TRUE(back.defined());
  EXPECT_EQ(back.data(), a.data());
  EXPECT_EQ(identity(identity).As<PackedFunc>().object().get(), identity.object().get());
  EXPECT_FALSE(identity(nullptr).As<Module>().defined());
  identity.Call<void>(1);

  ExpectMismatch([&] { identity.Call<int64_t>("x"); }, "result: expected int, got str (type code 11)");
  ExpectMismatch([&] { identity.Call<std::string>(1); }, "result: expected str, got int (type code 0)");
  ExpectMismatch([&] { identity(2.5).As<Module>(); }, "result: expected Module, got float (type code 2)");
  ExpectMismatch([&] { identity(a).As<PackedFunc>(); }, "result: expected PackedFunc, got NDArray (type code 13)");
  ExpectMismatch([&] { identity(a).As<bool>(); }, "result: expected bool (int), got NDArray (type code 13)");
  try {
    identity.Call<int8_t>(300);
    ADD_FAILURE() << "300 fits no int8";
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), ErrorCode::kOutOfRange);
    EXPECT_NE(std::string(e.what()).find("300 does not fit"), std::string::npos) << e.what();
  }
}

TEST(TypedCall, NullFunctionFromAModuleSaysWhatWasAskedOfWhom) {
  // GetFunction("default") on a model named otherwise: the null function says so when called, in every form.
  Module lib = Module::LoadFromFile(aotrt_test::ModelPath("custom_name"));
  PackedFunc f = lib.GetFunction("default");
  EXPECT_FALSE(f.defined());
  const char* want = "calling a function a lookup did not find: module 'AotExecutorFactory' has no function 'default': "
                     "the library's model is 'unusual_module_name_fred': create an executor with "
                     "GetFunction(\"unusual_module_name_fred\")(device)";
  EXPECT_AOTRT_ERROR(f(DLDevice{kDLCPU, 0}), ErrorCode::kNotFound, {want});
  EXPECT_AOTRT_ERROR(f.CallPacked(TVMArgs(nullptr, nullptr, 0), nullptr), ErrorCode::kNotFound, {want});
  EXPECT_AOTRT_ERROR(f.Call<int>(), ErrorCode::kNotFound, {want});
  PackedFunc copy = f;  // the note travels with copies
  EXPECT_AOTRT_ERROR(copy(), ErrorCode::kNotFound, {"has no function 'default'"});
}

TEST(TypedCall, UndefinedFunctionIsAnErrorNotACrash) {
  PackedFunc none;
  EXPECT_FALSE(none.defined());
  EXPECT_TRUE(Describer().defined());
  try {
    none(1);
    ADD_FAILURE() << "calling an undefined PackedFunc must throw";
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), ErrorCode::kInvalidArgument);
    EXPECT_NE(std::string(e.what()).find("undefined PackedFunc"), std::string::npos);
  }
}

TEST(TypedCall, ModuleBasedFlowWithoutHandBuiltArgs) {
  Module lib = Module::LoadFromFile(aotrt_test::ModelPath("add_c"));
  Module ex = lib.GetFunction("default")(DLDevice{kDLCPU, 0}).As<Module>();
  ASSERT_TRUE(ex.defined());
  EXPECT_EQ(ex.GetFunction("get_num_inputs").Call<int64_t>(), 2);
  EXPECT_EQ(ex.GetFunction("get_input_name").Call<std::string>(1), "b");
  NDArray a = NDArray::Empty({1}, DLDataType{kDLFloat, 32, 1});
  NDArray b = NDArray::Empty({1}, DLDataType{kDLFloat, 32, 1});
  *static_cast<float*>(a.data()) = 1.5f;
  *static_cast<float*>(b.data()) = 2.0f;
  ex.GetFunction("set_input")("a", a);
  ex.GetFunction("set_input")(1, b);
  ex.GetFunction("run")();
  NDArray out = ex.GetFunction("get_output")(0).As<NDArray>();
  EXPECT_EQ(*static_cast<float*>(out.data()), 3.5f);
  ExpectMismatch([&] { ex.GetFunction("get_num_outputs").Call<std::string>(); },
                 "result: expected str, got int (type code 0)");
  EXPECT_FALSE(ex.GetFunction("no_such_function").defined());
}
