// The C ABI as a host binding uses it: handles, ownership, errors through the last-error slot.
#include <gtest/gtest.h>

#include <cstdint>
#include <cstring>
#include <string>

#include <tvm/runtime/c_backend_api.h>
#include <tvm/runtime/c_runtime_api.h>

#include "aotrt/c_api.h"
#include "aotrt/error.h"
#include "aotrt/ndarray.h"
#include "aotrt/object.h"

namespace {

int AddInts(TVMValue* args, int* codes, int n, TVMRetValueHandle ret, void* resource) {
  if (n != 2 || codes[0] != kTVMArgInt || codes[1] != kTVMArgInt) {
    TVMAPISetLastError("AddInts wants two ints");
    return -1;
  }
  TVMValue v;
  v.v_int64 = args[0].v_int64 + args[1].v_int64 + *static_cast<int*>(resource);
  int code = kTVMArgInt;
  return TVMCFuncSetReturn(ret, &v, &code, 1);
}

int g_finalized = 0;

}  // namespace

TEST(CApi, CallbackFunctionRoundTrip) {
  static int bias = 100;
  TVMFunctionHandle f = nullptr;
  ASSERT_EQ(TVMFuncCreateFromCFunc(AddInts, &bias, [](void*) { ++g_finalized; }, &f), 0);
  TVMValue args[2], ret;
  int codes[2] = {kTVMArgInt, kTVMArgInt}, ret_code;
  args[0].v_int64 = 1;
  args[1].v_int64 = 2;
  ASSERT_EQ(TVMFuncCall(f, args, codes, 2, &ret, &ret_code), 0) << TVMGetLastError();
  EXPECT_EQ(ret_code, kTVMArgInt);
  EXPECT_EQ(ret.v_int64, 103);
  // A failing callback: its message reaches the caller.
  codes[1] = kTVMStr;
  args[1].v_str = "x";
  EXPECT_EQ(TVMFuncCall(f, args, codes, 2, &ret, &ret_code), -1);
  EXPECT_STREQ(TVMGetLastError(), "AddInts wants two ints");
  // Registered as a global, looked up (new reference), freed twice = once per reference.
  ASSERT_EQ(TVMFuncRegisterGlobal("test.capi.add", f, 0), 0);
  EXPECT_EQ(TVMFuncRegisterGlobal("test.capi.add", f, 0), -1);
  EXPECT_NE(std::string(TVMGetLastError()).find("already registered"), std::string::npos);
  TVMFunctionHandle g = nullptr;
  ASSERT_EQ(TVMFuncGetGlobal("test.capi.add", &g), 0);
  EXPECT_EQ(g, f);
  EXPECT_EQ(TVMFuncFree(g), 0);
  EXPECT_EQ(TVMFuncFree(f), 0);
  EXPECT_EQ(g_finalized, 0);  // the registry still holds it
  EXPECT_EQ(TVMFuncRemoveGlobal("test.capi.add"), 0);
  EXPECT_EQ(g_finalized, 1);
  EXPECT_EQ(TVMFuncRemoveGlobal("test.capi.add"), 0);  // missing name is not an error
}

TEST(CApi, GlobalLookupOfMissingNameGivesNull) {
  TVMFunctionHandle f = reinterpret_cast<void*>(1);
  EXPECT_EQ(TVMFuncGetGlobal("no.such.function", &f), 0);
  EXPECT_EQ(f, nullptr);
  int n = 0;
  const char** names = nullptr;
  ASSERT_EQ(TVMFuncListGlobalNames(&n, &names), 0);
  EXPECT_GT(n, 5);
}

TEST(CApi, NullHandlesAreErrorsNotCrashes) {
  TVMValue ret;
  int code;
  EXPECT_EQ(TVMFuncCall(nullptr, nullptr, nullptr, 0, &ret, &code), -1);
  EXPECT_NE(std::string(TVMGetLastError()).find("null handle"), std::string::npos);
  EXPECT_EQ(AOTRTGetLastErrorCode(), static_cast<int>(aotrt::ErrorCode::kInvalidArgument));
  EXPECT_EQ(TVMModFree(nullptr), -1);
  EXPECT_EQ(TVMFuncFree(nullptr), -1);
  EXPECT_EQ(TVMArrayFree(nullptr), -1);
  TVMFunctionHandle f;
  EXPECT_EQ(TVMModGetFunction(nullptr, "x", 0, &f), -1);
  EXPECT_EQ(TVMModLoadFromFile(nullptr, "so", nullptr), -1);
}

TEST(CApi, WrongHandleKindIsDetected) {
  TVMArrayHandle arr;
  int64_t shape[1] = {2};
  ASSERT_EQ(TVMArrayAlloc(shape, 1, kDLFloat, 32, 1, kDLCPU, 0, &arr), 0);
  TVMFunctionHandle f = nullptr;
  TVMFunctionHandle h = nullptr;
  ASSERT_EQ(TVMFuncCreateFromCFunc(AddInts, nullptr, nullptr, &h), 0);
  EXPECT_EQ(TVMModGetFunction(h, "x", 0, &f), -1);  // a function is not a module
  EXPECT_NE(std::string(TVMGetLastError()).find("is a runtime.PackedFunc, expected a runtime.Module"), std::string::npos);
  TVMFuncFree(h);
  TVMArrayFree(arr);
}

TEST(CApi, ArraysCopiesAndDLPack) {
  int64_t shape[2] = {2, 3};
  TVMArrayHandle a;
  ASSERT_EQ(TVMArrayAlloc(shape, 2, kDLFloat, 32, 1, kDLCPU, 0, &a), 0);
  EXPECT_EQ(reinterpret_cast<uintptr_t>(a->data) % 64, 0u);
  float in[6] = {1, 2, 3, 4, 5, 6}, out[6] = {};
  ASSERT_EQ(TVMArrayCopyFromBytes(a, in, sizeof(in)), 0);
  EXPECT_EQ(TVMArrayCopyFromBytes(a, in, 5), -1);
  EXPECT_NE(std::string(TVMGetLastError()).find("size mismatch"), std::string::npos);
  DLManagedTensor* m = nullptr;
  ASSERT_EQ(TVMArrayToDLPack(a, &m), 0);
  TVMArrayHandle b;
  ASSERT_EQ(TVMArrayFromDLPack(m, &b), 0);
  ASSERT_EQ(TVMArrayCopyToBytes(b, out, sizeof(out)), 0);
  EXPECT_EQ(std::memcmp(in, out, sizeof(in)), 0);
  EXPECT_EQ(TVMArrayFree(a), 0);  // b keeps the storage alive through the DLPack tensor
  ASSERT_EQ(TVMArrayCopyToBytes(b, out, sizeof(out)), 0);
  EXPECT_EQ(out[5], 6.0f);
  EXPECT_EQ(TVMArrayFree(b), 0);
  EXPECT_EQ(TVMArrayAlloc(shape, 2, kDLFloat, 32, 1, kDLROCM, 0, &a), -1);
}

// Issue 26: a negative device id is no device; refused, as aotrt::NDArray::Empty refuses it.
TEST(CApi, ArrayAllocRefusesANegativeDeviceId) {
  const int64_t shape[] = {2};
  TVMArrayHandle a = reinterpret_cast<TVMArrayHandle>(1);
  EXPECT_EQ(TVMArrayAlloc(shape, 1, kDLFloat, 32, 1, kDLCPU, -1, &a), -1);
  EXPECT_EQ(AOTRTGetLastErrorCode(), static_cast<int>(aotrt::ErrorCode::kInvalidArgument));
  EXPECT_STREQ(TVMGetLastError(),
               "TVMArrayAlloc: cpu device -1 does not exist (got device type 1 id -1); this machine has 1 (ids 0 to 0)");
  EXPECT_EQ(TVMArrayAlloc(shape, 1, kDLFloat, 32, 1, kDLCPU, INT32_MIN, &a), -1);
  EXPECT_THROW(aotrt::NDArray::Empty({2}, DLDataType{kDLFloat, 32, 1}, DLDevice{kDLCPU, -3}), aotrt::Error);
  ASSERT_EQ(TVMArrayAlloc(shape, 1, kDLFloat, 32, 1, kDLCPU, 0, &a), 0);
  EXPECT_EQ(TVMArrayFree(a), 0);
}

TEST(CApi, StreamsAreCpuNoOps) {
  TVMStreamHandle s = reinterpret_cast<void*>(1);
  EXPECT_EQ(TVMStreamCreate(kDLCPU, 0, &s), 0);
  EXPECT_EQ(s, nullptr);
  EXPECT_EQ(TVMSynchronize(kDLCPU, 0, nullptr), 0);
  EXPECT_EQ(TVMSetStream(kDLCPU, 0, nullptr), 0);
  EXPECT_EQ(TVMStreamFree(kDLCPU, 0, nullptr), 0);
  EXPECT_EQ(TVMSynchronize(kDLROCM, 0, nullptr), -1);
}

TEST(CApi, RunOnce) {
  void* handle = nullptr;
  int calls = 0;
  auto f = [](void* c) { return ++*static_cast<int*>(c), 0; };
  EXPECT_EQ(TVMBackendRunOnce(&handle, f, &calls, 0), 0);
  EXPECT_EQ(TVMBackendRunOnce(&handle, f, &calls, 0), 0);
  EXPECT_EQ(calls, 1);
}

TEST(CApi, ObjectTypeIntrospection) {
  unsigned idx = 0;
  ASSERT_EQ(TVMObjectTypeKey2Index("runtime.Module", &idx), 0);
  char* key = nullptr;
  ASSERT_EQ(TVMObjectTypeIndex2Key(idx, &key), 0);
  EXPECT_STREQ(key, "runtime.Module");
  free(key);
  EXPECT_EQ(TVMObjectTypeKey2Index("no.such.type", &idx), -1);
  int derived = 0;
  EXPECT_EQ(TVMObjectDerivedFrom(1, 0, &derived), 0);
  EXPECT_EQ(derived, 1);

  // Types registered at run time (TVM's TypeIndex::kDynamic) are found by key, index and ancestry.
  uint32_t base = aotrt::RegisterObjectType("test.CApiBase", aotrt::kTypeObject);
  uint32_t child = aotrt::RegisterObjectType("test.CApiChild", base);
  EXPECT_GE(base, aotrt::kTypeStaticEnd);
  EXPECT_EQ(aotrt::RegisterObjectType("test.CApiChild", base), child);
  ASSERT_EQ(TVMObjectTypeKey2Index("test.CApiChild", &idx), 0);
  EXPECT_EQ(idx, child);
  ASSERT_EQ(TVMObjectTypeIndex2Key(base, &key), 0);
  EXPECT_STREQ(key, "test.CApiBase");
  free(key);
  EXPECT_EQ(TVMObjectDerivedFrom(child, base, &derived), 0);
  EXPECT_EQ(derived, 1);
  EXPECT_EQ(TVMObjectDerivedFrom(base, child, &derived), 0);
  EXPECT_EQ(derived, 0);
  EXPECT_EQ(TVMObjectDerivedFrom(child, aotrt::kTypeString, &derived), 0);
  EXPECT_EQ(derived, 0);
}
