// TVM's object types and their globals, the registry's built-in table, and the Python error record.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstring>

#include <tvm/runtime/c_backend_api.h>
#include <tvm/runtime/c_runtime_api.h>

#include "aotrt/container.h"
#include "aotrt/ndarray.h"
#include "aotrt/packed_func.h"
#include "ffi/registry.h"

using namespace aotrt;

namespace {

// Call global `name` with C values; the result stays owned by `rv`.
void CallGlobal(const char* name, std::vector<TVMValue> vals, std::vector<int> codes, TVMRetValue* rv) {
  PackedFunc f = GetGlobalFunction(name);
  ASSERT_TRUE(static_cast<bool>(f)) << name;
  f.CallPacked(TVMArgs(vals.data(), codes.data(), static_cast<int>(vals.size())), rv);
}
TVMValue Str(const char* s) {
  TVMValue v;
  v.v_str = s;
  return v;
}
TVMValue Int(int64_t i) {
  TVMValue v;
  v.v_int64 = i;
  return v;
}
TVMValue Handle(void* h) {
  TVMValue v;
  v.v_handle = h;
  return v;
}

}  // namespace

TEST(Containers, MapKeysCompareStringsByContentAndKeepOrder) {
  TVMRetValue map;
  auto nd = NDArray::Empty({2}, DLDataType{kDLFloat, 32, 1});
  CallGlobal("runtime.Map", {Str("b"), Handle(nd.handle()), Str("a"), Str("x"), Str("b"), Str("y")},
             {kTVMStr, kTVMNDArrayHandle, kTVMStr, kTVMStr, kTVMStr, kTVMStr}, &map);
  ASSERT_EQ(map.type_code(), kTVMObjectHandle);
  const auto* m = static_cast<MapObj*>(map.object());
  ASSERT_EQ(m->items().size(), 2u);  // the repeated key kept its place and took the last value
  EXPECT_EQ(static_cast<StringObj*>(m->items()[0].first.get())->value, "b");
  EXPECT_EQ(static_cast<StringObj*>(m->Find("b")->get())->value, "y");
  TVMRetValue rv;
  CallGlobal("runtime.MapCount", {Handle(map.object()), Str("a")}, {kTVMObjectHandle, kTVMStr}, &rv);
  EXPECT_EQ(rv.value().v_int64, 1);
  CallGlobal("runtime.MapCount", {Handle(map.object()), Str("c")}, {kTVMObjectHandle, kTVMStr}, &rv);
  EXPECT_EQ(rv.value().v_int64, 0);
  EXPECT_THROW(CallGlobal("runtime.MapGetItem", {Handle(map.object()), Str("c")}, {kTVMObjectHandle, kTVMStr}, &rv),
               Error);
  EXPECT_THROW(CallGlobal("runtime.Map", {Str("odd")}, {kTVMStr}, &rv), Error);
}

TEST(Containers, ArrayElementsKeepTheirObjectsAndCodes) {
  auto nd = NDArray::Empty({1}, DLDataType{kDLInt, 8, 1});
  TVMRetValue arr;
  CallGlobal("runtime.Array", {Handle(nd.handle()), Handle(nullptr)}, {kTVMNDArrayHandle, kTVMNullptr}, &arr);
  TVMRetValue rv;
  CallGlobal("runtime.ArrayGetItem", {Handle(arr.object()), Int(0)}, {kTVMObjectHandle, kTVMArgInt}, &rv);
  ASSERT_EQ(rv.type_code(), kTVMNDArrayHandle);
  EXPECT_EQ(rv.value().v_handle, nd.handle());  // the same DLTensor* every time
  CallGlobal("runtime.ArrayGetItem", {Handle(arr.object()), Int(1)}, {kTVMObjectHandle, kTVMArgInt}, &rv);
  EXPECT_EQ(rv.type_code(), kTVMNullptr);
  EXPECT_THROW(CallGlobal("runtime.ArrayGetItem", {Handle(arr.object()), Int(2)}, {kTVMObjectHandle, kTVMArgInt}, &rv),
               Error);
  EXPECT_THROW(CallGlobal("runtime.Array", {Str("s")}, {kTVMStr}, &rv), Error);  // TVM: expected Object
  EXPECT_THROW(CallGlobal("runtime.ArraySize", {Handle(nd.handle())}, {kTVMNDArrayHandle}, &rv), Error);
}

TEST(Containers, ShapeTupleAndAdt) {
  TVMRetValue shape, rv;
  CallGlobal("runtime.ShapeTuple", {Int(3), Int(-1)}, {kTVMArgInt, kTVMArgInt}, &shape);
  ASSERT_EQ(shape.object()->type_index(), kTypeShapeTuple);
  CallGlobal("runtime.GetShapeTupleElem", {Handle(shape.object()), Int(1)}, {kTVMObjectHandle, kTVMArgInt}, &rv);
  EXPECT_EQ(rv.value().v_int64, -1);
  TVMRetValue adt;
  CallGlobal("runtime.ADT", {Int(7), Handle(shape.object())}, {kTVMArgInt, kTVMObjectHandle}, &adt);
  CallGlobal("runtime.GetADTTag", {Handle(adt.object())}, {kTVMObjectHandle}, &rv);
  EXPECT_EQ(rv.value().v_int64, 7);
  CallGlobal("runtime.GetADTFields", {Handle(adt.object()), Int(0)}, {kTVMObjectHandle, kTVMArgInt}, &rv);
  EXPECT_EQ(rv.object(), shape.object());
}

TEST(Containers, AllocWithScopeAndView) {
  TVMRetValue shape, arr, view;
  CallGlobal("runtime.ShapeTuple", {Int(2), Int(8)}, {kTVMArgInt, kTVMArgInt}, &shape);
  TVMValue dev;
  dev.v_device = DLDevice{kDLCPU, 0};
  CallGlobal("runtime.TVMArrayAllocWithScope", {Handle(shape.object()), Str("float32"), dev, Str("global")},
             {kTVMObjectHandle, kTVMStr, kDLDevice, kTVMStr}, &arr);
  ASSERT_EQ(arr.type_code(), kTVMNDArrayHandle);
  auto* t = static_cast<DLTensor*>(arr.value().v_handle);
  EXPECT_EQ(t->ndim, 2);
  EXPECT_EQ(reinterpret_cast<uintptr_t>(t->data) % 64, 0u);
  TVMRetValue rv, small;
  EXPECT_THROW(CallGlobal("runtime.TVMArrayAllocWithScope", {Handle(shape.object()), Str("float32"), dev, Str("texture")},
                          {kTVMObjectHandle, kTVMStr, kDLDevice, kTVMStr}, &rv), Error);
  EXPECT_THROW(CallGlobal("runtime.TVMArrayAllocWithScope", {Handle(shape.object()), Str("float12"), dev, Str("")},
                          {kTVMObjectHandle, kTVMStr, kDLDevice, kTVMStr}, &rv), Error);
  CallGlobal("runtime.ShapeTuple", {Int(16)}, {kTVMArgInt}, &small);
  CallGlobal("runtime.TVMArrayCreateView", {arr.value(), Handle(small.object())}, {kTVMNDArrayHandle, kTVMObjectHandle},
             &view);
  EXPECT_EQ(static_cast<DLTensor*>(view.value().v_handle)->data, t->data);
  CallGlobal("runtime.ShapeTuple", {Int(17)}, {kTVMArgInt}, &small);
  EXPECT_THROW(CallGlobal("runtime.TVMArrayCreateView", {arr.value(), Handle(small.object())},
                          {kTVMNDArrayHandle, kTVMObjectHandle}, &rv), Error);  // bigger than the source
}

TEST(Registry, BuiltinsCanBeOverriddenRemovedAndAreListedOnce) {
  auto names = Registry::Global().ListNames();
  EXPECT_EQ(std::count(names.begin(), names.end(), "runtime.MapSize"), 1);
  PackedFunc mine([](TVMArgs, TVMRetValue* rv) { rv->SetInt(42); });
  EXPECT_THROW(Registry::Global().Register("runtime.NumThreads", mine, false), Error);
  Registry::Global().Register("runtime.NumThreads", mine, true);
  TVMRetValue rv;
  CallGlobal("runtime.NumThreads", {}, {}, &rv);
  EXPECT_EQ(rv.value().v_int64, 42);
  EXPECT_TRUE(Registry::Global().Remove("runtime.NumThreads"));
  EXPECT_FALSE(static_cast<bool>(GetGlobalFunction("runtime.NumThreads")));
  EXPECT_FALSE(Registry::Global().Remove("runtime.NumThreads"));
  names = Registry::Global().ListNames();
  EXPECT_EQ(std::count(names.begin(), names.end(), "runtime.NumThreads"), 0);
}

namespace {
int g_increfs = 0, g_decrefs = 0;
void FakeIncRef(void*) { ++g_increfs; }
void FakeDecRef(void*) { ++g_decrefs; }
int g_py_exc = 0;  // stands for a PyObject

// A C callback failing the way TVM's Python package does.
int RaisingCallback(TVMValue*, int*, int, TVMRetValueHandle, void*) {
  TVMAPISetLastPythonError(&g_py_exc);
  return -1;
}
}  // namespace

TEST(PythonError, StaysTheLastErrorThroughNativeFramesAndIsReleasedOnce) {
  ASSERT_EQ(TVMBackendRegisterEnvCAPI("Py_IncRef", reinterpret_cast<void*>(&FakeIncRef)), 0);
  ASSERT_EQ(TVMBackendRegisterEnvCAPI("Py_DecRef", reinterpret_cast<void*>(&FakeDecRef)), 0);
  EXPECT_NE(TVMBackendRegisterEnvCAPI("Py_Bogus", nullptr), 0);
  TVMFunctionHandle cb = nullptr;
  ASSERT_EQ(TVMFuncCreateFromCFunc(RaisingCallback, nullptr, nullptr, &cb), 0);
  // A native frame in between, as the time evaluator's: C++ calling the callback's PackedFunc.
  PackedFunc inner(ObjectPtr<PackedFuncObj>(static_cast<PackedFuncObj*>(cb)));
  PackedFunc outer([inner](TVMArgs args, TVMRetValue* rv) { inner.CallPacked(args, rv); });
  RegisterGlobalFunction("test.python_error.outer", outer, true);
  TVMFunctionHandle outer_h = nullptr;
  ASSERT_EQ(TVMFuncGetGlobal("test.python_error.outer", &outer_h), 0);
  int before_inc = g_increfs, before_dec = g_decrefs;
  TVMValue ret;
  int code;
  EXPECT_EQ(TVMFuncCall(cb, nullptr, nullptr, 0, &ret, &code), -1);
  EXPECT_EQ(TVMGetLastPythonError(), &g_py_exc);
  EXPECT_EQ(TVMGetLastError(), nullptr);  // as TVM: the text of a Python error is Python's
  TVMDropLastPythonError();
  EXPECT_EQ(g_decrefs - before_dec, 1);
  EXPECT_STREQ(TVMGetLastError(), "");
  EXPECT_EQ(TVMGetLastPythonError(), nullptr);
  TVMDropLastPythonError();  // nothing held: no second release
  EXPECT_EQ(g_decrefs - before_dec, 1);
  EXPECT_EQ(g_increfs - before_inc, 1);
  EXPECT_EQ(TVMFuncCall(outer_h, nullptr, nullptr, 0, &ret, &code), -1);
  EXPECT_EQ(TVMGetLastPythonError(), &g_py_exc);
  EXPECT_EQ(g_increfs - before_inc, 2);
  TVMAPISetLastError("a later error replaces and releases it");
  EXPECT_EQ(g_decrefs - before_dec, 2);
  TVMAPISetLastPythonError(&g_py_exc);
  TVMAPISetLastError("a later error replaces and releases it");
  EXPECT_EQ(g_decrefs - before_dec, 3);
  EXPECT_EQ(TVMGetLastPythonError(), nullptr);
  TVMFuncFree(outer_h);
  TVMFuncFree(cb);
}

namespace {
int g_gil_ensures = 0, g_gil_releases = 0, g_gil_released_state = -1;
int FakeGILEnsure() { return 40 + ++g_gil_ensures; }  // a distinct state per call
void FakeGILRelease(int state) { ++g_gil_releases, g_gil_released_state = state; }
}  // namespace

// TVM v0.15+'s Python package also registers PyGILState_Ensure/PyGILState_Release: accepted, and
// the GIL is then taken through them around Py_DecRef (the state Ensure gave goes back to Release).
TEST(PythonError, RegisteredGILStateFunctionsWrapTheRelease) {
  ASSERT_EQ(TVMBackendRegisterEnvCAPI("Py_IncRef", reinterpret_cast<void*>(&FakeIncRef)), 0);
  ASSERT_EQ(TVMBackendRegisterEnvCAPI("Py_DecRef", reinterpret_cast<void*>(&FakeDecRef)), 0);
  ASSERT_EQ(TVMBackendRegisterEnvCAPI("PyGILState_Ensure", reinterpret_cast<void*>(&FakeGILEnsure)), 0);
  ASSERT_EQ(TVMBackendRegisterEnvCAPI("PyGILState_Release", reinterpret_cast<void*>(&FakeGILRelease)), 0);
  EXPECT_NE(TVMBackendRegisterEnvCAPI("PyGILState_Check", nullptr), 0);  // not a name TVM registers
  int before_dec = g_decrefs, before_ensure = g_gil_ensures, before_release = g_gil_releases;
  TVMAPISetLastPythonError(&g_py_exc);
  EXPECT_EQ(g_gil_ensures, before_ensure);  // holding the exception takes no GIL (Py_IncRef as TVM)
  TVMDropLastPythonError();
  EXPECT_EQ(g_decrefs - before_dec, 1);
  EXPECT_EQ(g_gil_ensures - before_ensure, 1);
  EXPECT_EQ(g_gil_releases - before_release, 1);
  EXPECT_EQ(g_gil_released_state, 40 + g_gil_ensures);
  // Unregistered again (null): back to the interpreter's functions, absent from this test binary.
  ASSERT_EQ(TVMBackendRegisterEnvCAPI("PyGILState_Ensure", nullptr), 0);
  ASSERT_EQ(TVMBackendRegisterEnvCAPI("PyGILState_Release", nullptr), 0);
  TVMAPISetLastPythonError(&g_py_exc);
  TVMDropLastPythonError();
  EXPECT_EQ(g_decrefs - before_dec, 2);
  EXPECT_EQ(g_gil_ensures - before_ensure, 1);
}
