// What TVM releases other than v0.14 send to the runtime (README "Supported TVM releases"), each
// through the C ABI with hand-made arguments: the boolean type code 15 of v0.18+
// (kTVMArgBool), the 10 and 11 arguments v0.9-v0.13 pass to runtime.RPCTimeEvaluator, and (in
// test_containers.cc) the PyGILState functions v0.15+ registers.
#include <gtest/gtest.h>

#include <atomic>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include "aotrt/c_api.h"
#include "aotrt/error.h"
#include "aotrt/ndarray.h"
#include "aotrt/packed_func.h"
#include "aotrt/profiling.h"
#include "common/expect_error.h"
#include "profiling/internal.h"
#include "tvm/runtime/c_runtime_api.h"

using namespace aotrt;

namespace {

const DLDataType kF32{kDLFloat, 32, 1}, kI32{kDLInt, 32, 1};

TVMValue Int(int64_t v) {
  TVMValue x;
  x.v_int64 = v;
  return x;
}
TVMValue Str(const char* s) {
  TVMValue x;
  x.v_str = s;
  return x;
}
TVMValue Handle(void* p) {
  TVMValue x;
  x.v_handle = p;
  return x;
}

// Calls global `name` through the C ABI; returns TVMFuncCall's result, the return value in *ret.
int CallGlobal(const char* name, std::vector<TVMValue> values, std::vector<int> codes, TVMValue* ret, int* ret_code) {
  TVMFunctionHandle f = nullptr;
  if (TVMFuncGetGlobal(name, &f) != 0 || f == nullptr) {
    ADD_FAILURE() << "no global " << name;
    return -2;
  }
  int rc = TVMFuncCall(f, values.data(), codes.data(), static_cast<int>(values.size()), ret, ret_code);
  std::string error = rc != 0 ? TVMGetLastError() : "";
  TVMFuncFree(f);  // the handle TVMFuncGetGlobal gave is the caller's
  if (rc != 0) TVMAPISetLastError(error.c_str());
  return rc;
}

std::vector<int32_t> ArgsortThroughCAbi(const NDArray& x, TVMValue is_ascend, int is_ascend_code) {
  NDArray idx = NDArray::Empty({x.Shape()[0]}, kI32);
  TVMValue ret;
  int ret_code = kTVMNullptr;
  int rc = CallGlobal("tvm.contrib.sort.argsort", {Handle(x.handle()), Handle(idx.handle()), Int(-1), is_ascend},
                      {kTVMDLTensorHandle, kTVMDLTensorHandle, kTVMArgInt, is_ascend_code}, &ret, &ret_code);
  EXPECT_EQ(rc, 0) << TVMGetLastError();
  const int32_t* p = static_cast<const int32_t*>(idx.data());
  return std::vector<int32_t>(p, p + x.Shape()[0]);
}

}  // namespace

// ---------------------------------------------------------------------------------------------
// kTVMArgBool (15), TVM v0.18+

TEST(TvmV018Bool, TypeCodeIsFifteenAsInTvm) {
  EXPECT_EQ(static_cast<int>(kTVMArgBool), 15);
  EXPECT_EQ(static_cast<int>(kTVMExtBegin), 16);  // moved by v0.18 to make room
  EXPECT_STREQ(TypeCodeName(kTVMArgBool), "bool");
}

TEST(TvmV018Bool, IsAcceptedWhereverAnIntegerIs) {
  TVMArgValue t(Int(1), kTVMArgBool, 0), f(Int(0), kTVMArgBool, 1);
  EXPECT_TRUE(t.IsInt());
  EXPECT_EQ(t.AsInt(), 1);
  EXPECT_EQ(f.AsInt(), 0);
  EXPECT_EQ(t.AsFloat(), 1.0);
  // Not a string, a handle or a tensor: the error names the position and the code.
  EXPECT_AOTRT_ERROR(t.AsString(), ErrorCode::kTypeMismatch, {"argument 0", "bool", "type code 15"});
  EXPECT_AOTRT_ERROR(f.AsDLTensor(), ErrorCode::kTypeMismatch, {"argument 1", "bool"});
}

TEST(TvmV018Bool, ReachesAGlobalThroughTheCAbi) {
  // What v0.18's lower_tvm_builtin emits for argsort's is_ascend, and its Python package for a bool.
  NDArray x = NDArray::Empty({5}, kF32);
  const float values[] = {3, 1, 4, 1, 5};
  std::memcpy(x.data(), values, sizeof(values));
  EXPECT_EQ(ArgsortThroughCAbi(x, Int(1), kTVMArgBool), (std::vector<int32_t>{1, 3, 0, 2, 4}));
  EXPECT_EQ(ArgsortThroughCAbi(x, Int(0), kTVMArgBool), (std::vector<int32_t>{4, 2, 0, 1, 3}));
  EXPECT_EQ(ArgsortThroughCAbi(x, Int(0), kTVMArgInt), (std::vector<int32_t>{4, 2, 0, 1, 3}));  // v0.14
  // A bool where a string belongs is still refused, with the code named, never misread.
  TVMValue ret;
  int ret_code = kTVMNullptr;
  EXPECT_EQ(CallGlobal("runtime.SystemLib", {Int(1)}, {kTVMArgBool}, &ret, &ret_code), -1);
  EXPECT_NE(std::string(TVMGetLastError()).find("type code 15"), std::string::npos) << TVMGetLastError();
}

namespace {
int ReturnBool(TVMValue* args, int* codes, int num_args, TVMRetValueHandle ret, void*) {
  TVMValue v = Int(num_args > 0 && codes[0] == kTVMArgBool && args[0].v_int64 == 1);
  int code = kTVMArgBool;
  return TVMCFuncSetReturn(ret, &v, &code, 1);
}
}  // namespace

TEST(TvmV018Bool, CallbacksMayReturnABoolAndReceiveOne) {
  TVMFunctionHandle cb = nullptr;
  ASSERT_EQ(TVMFuncCreateFromCFunc(ReturnBool, nullptr, nullptr, &cb), 0);
  TVMValue arg = Int(1), ret;
  int code = kTVMArgBool, ret_code = kTVMNullptr;
  ASSERT_EQ(TVMFuncCall(cb, &arg, &code, 1, &ret, &ret_code), 0) << TVMGetLastError();
  EXPECT_EQ(ret_code, kTVMArgBool);
  EXPECT_EQ(ret.v_int64, 1);
  // Read in C++ as an int or a bool.
  PackedFunc f(ObjectPtr<PackedFuncObj>(static_cast<PackedFuncObj*>(cb)));
  TVMRetValue rv;
  f.CallPacked(TVMArgs(&arg, &code, 1), &rv);
  EXPECT_EQ(rv.type_code(), kTVMArgBool);
  // aotrt's C++ packer sends a bool as kTVMArgInt, as v0.14 does: the callback sees no code 15,
  // and its kTVMArgBool answer (false) reads as a bool.
  EXPECT_FALSE(f.Call<bool>(true));
  TVMFuncFree(cb);
}

// ---------------------------------------------------------------------------------------------
// runtime.RPCTimeEvaluator with 10 (v0.9), 11 (v0.10-v0.13) and 12 (v0.14+) arguments

namespace {

struct Counter {
  std::shared_ptr<std::atomic<int>> calls = std::make_shared<std::atomic<int>>(0);
  PackedFunc Func() const {
    auto c = calls;
    return PackedFunc([c](TVMArgs, TVMRetValue*) { ++*c; });
  }
  int Take() { return calls->exchange(0); }
};

// The arguments TVM's Python time_evaluator sends: module null (a global), the function name,
// device 1/0, then `ints` (the release's integer options in its order), then f_preproc.
struct TimerCall {
  std::vector<TVMValue> values;
  std::vector<int> codes;
  TimerCall(const char* name, std::vector<int64_t> ints, const char* f_preproc) {
    values = {Handle(nullptr), Str(name), Int(kDLCPU), Int(0)};
    codes = {kTVMNullptr, kTVMStr, kTVMArgInt, kTVMArgInt};
    for (int64_t v : ints) values.push_back(Int(v)), codes.push_back(kTVMArgInt);
    values.push_back(Str(f_preproc)), codes.push_back(kTVMStr);
  }
  TVMArgs Args() const { return TVMArgs(values.data(), codes.data(), static_cast<int>(values.size())); }
};

// number, repeat, min_repeat_ms, [limit_zero_time_iterations,] cooldown_interval_ms,
// repeats_to_cooldown, [cache_flush_bytes]
const std::vector<int64_t> kV09 = {3, 2, 0, 0, 1};
const std::vector<int64_t> kV010 = {3, 2, 0, 7, 0, 1};
const std::vector<int64_t> kV014 = {3, 2, 0, 7, 0, 1, 64};

}  // namespace

TEST(TimeEvaluatorReleases, EachLayoutIsDecodedWithTvmsDefaultsForWhatItLacks) {
  using profiling_internal::ParseRpcTimeEvaluatorArgs;
  TimerCall v09("f", kV09, "pre"), v010("f", kV010, "pre"), v014("f", kV014, "pre");
  for (const TimerCall* c : {&v09, &v010, &v014}) {
    profiling_internal::RpcTimeEvaluatorArgs a = ParseRpcTimeEvaluatorArgs(c->Args());
    SCOPED_TRACE(c->values.size());
    EXPECT_FALSE(a.module.defined());
    EXPECT_EQ(a.name, "f");
    EXPECT_EQ(a.options.number, 3);
    EXPECT_EQ(a.options.repeat, 2);
    EXPECT_EQ(a.options.cooldown_interval_ms, 0);
    EXPECT_EQ(a.options.repeats_to_cooldown, 1);
    EXPECT_EQ(a.f_preproc, "pre");
  }
  EXPECT_EQ(ParseRpcTimeEvaluatorArgs(v09.Args()).options.limit_zero_time_iterations, 100);
  EXPECT_EQ(ParseRpcTimeEvaluatorArgs(v09.Args()).options.cache_flush_bytes, 0);
  EXPECT_EQ(ParseRpcTimeEvaluatorArgs(v010.Args()).options.limit_zero_time_iterations, 7);
  EXPECT_EQ(ParseRpcTimeEvaluatorArgs(v010.Args()).options.cache_flush_bytes, 0);
  EXPECT_EQ(ParseRpcTimeEvaluatorArgs(v014.Args()).options.limit_zero_time_iterations, 7);
  EXPECT_EQ(ParseRpcTimeEvaluatorArgs(v014.Args()).options.cache_flush_bytes, 64);
}

TEST(TimeEvaluatorReleases, OtherCountsAndMisplacedArgumentsAreErrors) {
  using profiling_internal::ParseRpcTimeEvaluatorArgs;
  TimerCall nine("f", {3, 2, 0, 0}, "");
  TimerCall thirteen("f", {3, 2, 0, 7, 0, 1, 64, 5}, "");
  EXPECT_AOTRT_ERROR(ParseRpcTimeEvaluatorArgs(nine.Args()), ErrorCode::kInvalidArgument,
                     {"runtime.RPCTimeEvaluator", "12 arguments", "11", "10", "got 9"});
  EXPECT_AOTRT_ERROR(ParseRpcTimeEvaluatorArgs(thirteen.Args()), ErrorCode::kInvalidArgument, {"got 13"});
  // The last of v0.9's 10 arguments is f_preproc: an integer there is not read as an option.
  TimerCall wrong("f", kV09, "");
  wrong.codes[9] = kTVMArgInt;
  EXPECT_AOTRT_ERROR(ParseRpcTimeEvaluatorArgs(wrong.Args()), ErrorCode::kTypeMismatch, {"argument 9", "str"});
}

TEST(TimeEvaluatorReleases, OldLayoutsTimeThroughTheCAbi) {
  Counter f, pre;
  RegisterGlobalFunction("aotrt_test.releases.f", f.Func(), true);
  RegisterGlobalFunction("aotrt_test.releases.pre", pre.Func(), true);
  for (const std::vector<int64_t>* ints : {&kV09, &kV010, &kV014}) {
    TimerCall c("aotrt_test.releases.f", *ints, "aotrt_test.releases.pre");
    SCOPED_TRACE(c.values.size());
    TVMValue ret;
    int ret_code = kTVMNullptr;
    ASSERT_EQ(CallGlobal("runtime.RPCTimeEvaluator", c.values, c.codes, &ret, &ret_code), 0) << TVMGetLastError();
    ASSERT_EQ(ret_code, kTVMPackedFuncHandle);
    TVMValue bytes;
    int bytes_code = kTVMNullptr;
    ASSERT_EQ(TVMFuncCall(ret.v_handle, nullptr, nullptr, 0, &bytes, &bytes_code), 0) << TVMGetLastError();
    ASSERT_EQ(bytes_code, kTVMBytes);
    EXPECT_EQ(static_cast<const TVMByteArray*>(bytes.v_handle)->size, 2 * sizeof(double));  // repeat 2
    EXPECT_EQ(f.Take(), 1 + 3 * 2);  // warm-up, then number 3 x repeat 2
    EXPECT_EQ(pre.Take(), 2);        // f_preproc found at the layout's last position
    TVMFuncFree(ret.v_handle);
  }
  // A v0.10-v0.13 call with a negative limit_zero_time_iterations is refused naming it.
  std::vector<int64_t> bad = kV010;
  bad[3] = -1;
  TimerCall c("aotrt_test.releases.f", bad, "");
  TVMValue ret;
  int ret_code = kTVMNullptr;
  EXPECT_EQ(CallGlobal("runtime.RPCTimeEvaluator", c.values, c.codes, &ret, &ret_code), -1);
  EXPECT_NE(std::string(TVMGetLastError()).find("limit_zero_time_iterations"), std::string::npos);
}
