// Misuse through the C ABI (issue 12 item 4): wrong handle kinds, foreign and stale handles,
// hostile tensor headers, overflowing sizes and internal globals called by hand are refused with
// an error, before anything is read outside what the caller passed.
#include <gtest/gtest.h>

#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

#include <tvm/runtime/c_runtime_api.h>

#include "aotrt/c_api.h"
#include "aotrt/dtype.h"
#include "aotrt/error.h"

namespace {

// rc is -1 and the last error has `code` and every fragment.
::testing::AssertionResult Refused(int rc, aotrt::ErrorCode code, const std::vector<std::string>& fragments) {
  if (rc != -1) return ::testing::AssertionFailure() << "returned " << rc << ", expected -1";
  std::string msg = TVMGetLastError();
  if (AOTRTGetLastErrorCode() != static_cast<int>(code)) {
    return ::testing::AssertionFailure() << "error code " << AOTRTGetLastErrorCode() << ": " << msg;
  }
  for (const std::string& f : fragments) {
    if (msg.find(f) == std::string::npos) return ::testing::AssertionFailure() << "lacks \"" << f << "\": " << msg;
  }
  return ::testing::AssertionSuccess();
}

int Nop(TVMValue*, int*, int, TVMRetValueHandle, void*) { return 0; }

TVMFunctionHandle MakeFunction() {
  TVMFunctionHandle f = nullptr;
  EXPECT_EQ(TVMFuncCreateFromCFunc(Nop, nullptr, nullptr, &f), 0);
  return f;
}

TVMArrayHandle MakeArray() {
  int64_t shape[1] = {4};
  TVMArrayHandle a = nullptr;
  EXPECT_EQ(TVMArrayAlloc(shape, 1, kDLFloat, 32, 1, kDLCPU, 0, &a), 0);
  return a;
}

// Call `f` with the given arguments; returns TVMFuncCall's code (the result is dropped).
int Call(TVMFunctionHandle f, std::vector<TVMValue> values, std::vector<int> codes) {
  TVMValue ret;
  int ret_code;
  int rc = TVMFuncCall(f, values.data(), codes.data(), static_cast<int>(values.size()), &ret, &ret_code);
  if (rc == 0 && ret_code >= kTVMObjectHandle && ret_code != kTVMStr && ret_code != kTVMBytes) {
    TVMObjectFree(ret.v_handle);
  }
  return rc;
}

TEST(ApiMisuse, ObjectHandleToTVMArrayFreeIsRefusedByItsTag) {
  TVMFunctionHandle f = MakeFunction();
  EXPECT_TRUE(Refused(TVMArrayFree(static_cast<DLTensor*>(f)), aotrt::ErrorCode::kTypeMismatch,
                      {"TVMArrayFree", "is a runtime.PackedFunc object handle, expected an NDArray"}));
  EXPECT_EQ(TVMFuncFree(f), 0) << TVMGetLastError();  // untouched by the refused call
}

TEST(ApiMisuse, TensorHandleToTVMObjectFreeIsRefusedAndTheTensorSurvives) {
  TVMArrayHandle a = MakeArray();
  float in[4] = {1, 2, 3, 4}, out[4] = {};
  ASSERT_EQ(TVMArrayCopyFromBytes(a, in, sizeof(in)), 0);
  EXPECT_TRUE(Refused(TVMObjectFree(a), aotrt::ErrorCode::kInvalidArgument,
                      {"TVMObjectFree", "is not a live aotrt object", "TVMArrayFree"}));
  EXPECT_TRUE(Refused(TVMObjectRetain(a), aotrt::ErrorCode::kInvalidArgument, {"TVMObjectRetain"}));
  unsigned idx = 0;
  EXPECT_TRUE(Refused(TVMObjectGetTypeIndex(a, &idx), aotrt::ErrorCode::kInvalidArgument, {"TVMObjectGetTypeIndex"}));
  ASSERT_EQ(TVMArrayCopyToBytes(a, out, sizeof(out)), 0) << TVMGetLastError();
  EXPECT_EQ(std::memcmp(in, out, sizeof(in)), 0);
  EXPECT_EQ(TVMArrayFree(a), 0);
}

TEST(ApiMisuse, WrongObjectKindsAreRefused) {
  TVMArrayHandle a = MakeArray();
  TVMFunctionHandle f = MakeFunction();
  EXPECT_TRUE(Refused(TVMModFree(f), aotrt::ErrorCode::kTypeMismatch,
                      {"TVMModFree", "is a runtime.PackedFunc, expected a runtime.Module"}));
  EXPECT_TRUE(Refused(TVMFuncFree(a), aotrt::ErrorCode::kInvalidArgument, {"TVMFuncFree", "not a live aotrt object"}));
  TVMValue v;
  int code = kTVMObjectHandle;
  v.v_handle = a;  // a tensor handle passed as an object by mistake
  EXPECT_TRUE(Refused(TVMCbArgToReturn(&v, &code), aotrt::ErrorCode::kInvalidArgument, {"TVMCbArgToReturn"}));
  EXPECT_EQ(TVMFuncFree(f), 0);
  EXPECT_EQ(TVMArrayFree(a), 0);
}

TEST(ApiMisuse, CallerOwnedTensorToTVMArrayFreeIsRefused) {
  // Padding in front keeps the header check inside this object in builds without the registry.
  struct {
    alignas(16) unsigned char pad[16] = {};
    DLTensor t{};
  } mine;
  int64_t shape[1] = {4};
  float data[4] = {};
  mine.t.data = data;
  mine.t.device = DLDevice{kDLCPU, 0};
  mine.t.ndim = 1;
  mine.t.dtype = DLDataType{kDLFloat, 32, 1};
  mine.t.shape = shape;
  EXPECT_TRUE(Refused(TVMArrayFree(&mine.t), aotrt::ErrorCode::kInvalidArgument,
                      {"TVMArrayFree", "is not a live NDArray made by aotrt", "a DLTensor the caller owns"}));
  unsigned idx = 0;
  EXPECT_TRUE(Refused(TVMArrayGetTypeIndex(&mine.t, &idx), aotrt::ErrorCode::kInvalidArgument, {"TVMArrayGetTypeIndex"}));
}

#if AOTRT_CHECKED_HANDLES
// Only the live-object registry refuses a freed handle without reading freed memory; elsewhere a
// double free is the caller's contract (c_runtime_api.h).
TEST(ApiMisuse, DoubleFreesAreRefusedInCheckedBuilds) {
  TVMArrayHandle a = MakeArray();
  ASSERT_EQ(TVMArrayFree(a), 0);
  EXPECT_TRUE(Refused(TVMArrayFree(a), aotrt::ErrorCode::kInvalidArgument, {"TVMArrayFree", "already freed"}));
  TVMFunctionHandle f = MakeFunction();
  ASSERT_EQ(TVMFuncFree(f), 0);
  EXPECT_TRUE(Refused(TVMFuncFree(f), aotrt::ErrorCode::kInvalidArgument, {"TVMFuncFree", "already freed"}));
  EXPECT_TRUE(Refused(TVMObjectFree(f), aotrt::ErrorCode::kInvalidArgument, {"TVMObjectFree", "already freed"}));
}

TEST(ApiMisuse, FreedModuleHandleAsAnArgumentIsRefusedInCheckedBuilds) {
  TVMModuleHandle mod = nullptr;
  std::string path = std::string(AOTRT_TEST_MODELS_DIR) + "/add_c.so";
  ASSERT_EQ(TVMModLoadFromFile(path.c_str(), "so", &mod), 0) << TVMGetLastError();
  TVMFunctionHandle type_key = nullptr;
  ASSERT_EQ(TVMFuncGetGlobal("runtime.ModuleGetTypeKey", &type_key), 0);
  TVMValue v;
  v.v_handle = mod;
  EXPECT_EQ(Call(type_key, {v}, {kTVMModuleHandle}), 0) << TVMGetLastError();
  ASSERT_EQ(TVMModFree(mod), 0);
  EXPECT_TRUE(Refused(Call(type_key, {v}, {kTVMModuleHandle}), aotrt::ErrorCode::kInvalidArgument,
                      {"argument 0", "already freed"}));
}
#endif

TEST(ApiMisuse, HugeNdimIsRefusedBeforeShapeIsRead) {
  int64_t shape[2] = {2, 2};
  float data[4] = {};
  DLTensor t{};
  t.data = data;
  t.device = DLDevice{kDLCPU, 0};
  t.ndim = 1 << 30;  // over a two-element shape array
  t.dtype = DLDataType{kDLFloat, 32, 1};
  t.shape = shape;
  TVMArrayHandle a = MakeArray();
  EXPECT_TRUE(Refused(TVMArrayCopyFromTo(&t, a, nullptr), aotrt::ErrorCode::kInvalidArgument,
                      {"ndim 1073741824 is outside [0, 64]"}));
  EXPECT_TRUE(Refused(TVMArrayCopyFromBytes(&t, data, sizeof(data)), aotrt::ErrorCode::kInvalidArgument,
                      {"ndim 1073741824"}));
  EXPECT_EQ(aotrt::ShapeToString(shape, 1 << 30), "[? (ndim 1073741824)]");
  EXPECT_EQ(aotrt::ShapeToString(nullptr, 2), "[? (ndim 2)]");
  EXPECT_EQ(aotrt::ShapeToString(shape, 2), "[2, 2]");
  EXPECT_EQ(TVMArrayFree(a), 0);
}

TEST(ApiMisuse, DeviceTypeOutsideTheEnumIsReadAsAnInteger) {
  int64_t shape[1] = {4};
  float data[4] = {};
  DLTensor t{};
  t.data = data;
  int32_t bogus = 1000;
  std::memcpy(&t.device.device_type, &bogus, sizeof(bogus));  // no enum value: as a C caller could pass
  t.ndim = 1;
  t.dtype = DLDataType{kDLFloat, 32, 1};
  t.shape = shape;
  EXPECT_EQ(aotrt::DeviceTypeOf(t.device), 1000);
  TVMArrayHandle a = MakeArray();
  EXPECT_TRUE(Refused(TVMArrayCopyFromBytes(&t, data, sizeof(data)), aotrt::ErrorCode::kInvalidArgument,
                      {"device type 1000 is not a DLPack device type"}));
  void* p = nullptr;
  EXPECT_TRUE(Refused(TVMDeviceAllocDataSpace(t.device, 16, 64, t.dtype, &p), aotrt::ErrorCode::kInvalidArgument,
                      {"TVMDeviceAllocDataSpace", "got device type 1000 id 0"}));
  TVMArrayHandle b = nullptr;
  EXPECT_TRUE(Refused(TVMArrayAlloc(shape, 1, kDLFloat, 32, 1, 1000, 0, &b), aotrt::ErrorCode::kInvalidArgument,
                      {"TVMArrayAlloc", "got device type 1000 id 0"}));
  // Through a packed function: the argument conversion refuses the header.
  TVMFunctionHandle sort = nullptr;
  ASSERT_EQ(TVMFuncGetGlobal("tvm.contrib.sort.sort", &sort), 0);
  ASSERT_NE(sort, nullptr);
  TVMValue v[4];
  v[0].v_handle = &t;
  v[1].v_handle = a;
  v[2].v_int64 = 0;
  v[3].v_int64 = 1;
  EXPECT_TRUE(Refused(Call(sort, {v[0], v[1], v[2], v[3]}, {kTVMDLTensorHandle, kTVMNDArrayHandle, kTVMArgInt, kTVMArgInt}),
                      aotrt::ErrorCode::kInvalidArgument, {"argument 0: device type 1000"}));
  t.device = DLDevice{kDLCPU, 0};
  t.ndim = 1 << 30;
  EXPECT_TRUE(Refused(Call(sort, {v[0], v[1], v[2], v[3]}, {kTVMDLTensorHandle, kTVMNDArrayHandle, kTVMArgInt, kTVMArgInt}),
                      aotrt::ErrorCode::kInvalidArgument, {"argument 0: ndim 1073741824 is outside [0, 64]"}));
  EXPECT_EQ(TVMFuncFree(sort), 0);
  EXPECT_EQ(TVMArrayFree(a), 0);
}

TEST(ApiMisuse, ContiguityOfHugeShapesDoesNotOverflow) {
  int64_t shape[3] = {int64_t{1} << 40, int64_t{1} << 40, 2};
  int64_t strides[3] = {int64_t{1} << 41, 2, 1};
  DLTensor t{};
  t.device = DLDevice{kDLCPU, 0};
  t.ndim = 3;
  t.dtype = DLDataType{kDLFloat, 32, 1};
  t.shape = shape;
  t.strides = strides;
  EXPECT_FALSE(aotrt::IsContiguous(t));
  strides[0] = int64_t{1} << 62;  // the running product would pass 2^63 before this stride is compared
  EXPECT_FALSE(aotrt::IsContiguous(t));
}

TEST(ApiMisuse, AllocDataSpaceNearSizeMaxIsRefusedNamingTheSize) {
  void* p = reinterpret_cast<void*>(1);
  DLDevice cpu{kDLCPU, 0};
  DLDataType u8{kDLUInt, 8, 1};
  EXPECT_TRUE(Refused(TVMDeviceAllocDataSpace(cpu, SIZE_MAX - 10, 64, u8, &p), aotrt::ErrorCode::kOutOfMemory,
                      {"TVMDeviceAllocDataSpace", std::to_string(SIZE_MAX - 10), "too large"}));
  EXPECT_EQ(p, reinterpret_cast<void*>(1));
  EXPECT_TRUE(Refused(TVMDeviceAllocDataSpace(cpu, 16, 96, u8, &p), aotrt::ErrorCode::kInvalidArgument,
                      {"alignment 96 is not a power of two"}));
  ASSERT_EQ(TVMDeviceAllocDataSpace(cpu, 100, 128, u8, &p), 0);
  EXPECT_EQ(reinterpret_cast<uintptr_t>(p) % 128, 0u);
  EXPECT_EQ(TVMDeviceFreeDataSpace(cpu, p), 0);
}

TEST(ApiMisuse, BlobLoaderGlobalsTakeBytesNeverHandles) {
  TVMFunctionHandle f = nullptr;
  ASSERT_EQ(TVMFuncGetGlobal("runtime.module.loadbinary_AotExecutorFactory", &f), 0);
  ASSERT_NE(f, nullptr);
  EXPECT_TRUE(Refused(Call(f, {}, {}), aotrt::ErrorCode::kInvalidArgument, {"expected the module's payload as bytes"}));
  // A stream handle (TVM's convention for a host's loader) is refused, never dereferenced.
  char garbage[64];
  std::memset(garbage, 0xAB, sizeof(garbage));
  TVMValue v[2];
  v[0].v_handle = garbage;
  v[1].v_int64 = 100;
  EXPECT_TRUE(Refused(Call(f, {v[0], v[1]}, {kTVMOpaqueHandle, kTVMArgInt}), aotrt::ErrorCode::kInvalidArgument,
                      {"expected the module's payload as bytes", "got handle"}));
  // The payload itself (ABI.md 6.3): no params, module name "default".
  std::string payload(16, '\0');
  payload += std::string("\x07\0\0\0\0\0\0\0", 8) + "default";
  TVMByteArray bytes{payload.data(), payload.size()};
  v[0].v_handle = &bytes;
  TVMValue ret;
  int ret_code = 0;
  int code = kTVMBytes;
  ASSERT_EQ(TVMFuncCall(f, v, &code, 1, &ret, &ret_code), 0) << TVMGetLastError();
  ASSERT_EQ(ret_code, kTVMModuleHandle);
  EXPECT_EQ(TVMModFree(ret.v_handle), 0);
  // Truncated and trailing bytes are format errors naming the payload.
  bytes.size = payload.size() - 1;
  EXPECT_TRUE(Refused(Call(f, {v[0]}, {kTVMBytes}), aotrt::ErrorCode::kFormatError, {"loadbinary", "module name"}));
  payload += "x";
  bytes = TVMByteArray{payload.data(), payload.size()};
  EXPECT_TRUE(Refused(Call(f, {v[0]}, {kTVMBytes}), aotrt::ErrorCode::kFormatError, {"1 bytes of unexpected data"}));
  EXPECT_EQ(TVMFuncFree(f), 0);
}

TEST(ApiMisuse, OneDeviceRuleEverywhere) {
  int64_t shape[1] = {4};
  TVMArrayHandle a = nullptr;
  for (int id : {-1, 1}) {
    EXPECT_TRUE(Refused(TVMArrayAlloc(shape, 1, kDLFloat, 32, 1, kDLCPU, id, &a), aotrt::ErrorCode::kInvalidArgument,
                        {"TVMArrayAlloc", "id " + std::to_string(id)}));
    EXPECT_TRUE(Refused(TVMSynchronize(kDLCPU, id, nullptr), aotrt::ErrorCode::kInvalidArgument, {"TVMSynchronize"}));
  }
  EXPECT_EQ(a, nullptr);
  ASSERT_EQ(TVMArrayAlloc(shape, 1, kDLFloat, 32, 1, kDLCUDAHost, 0, &a), 0) << TVMGetLastError();  // host memory
  EXPECT_EQ(TVMArrayFree(a), 0);
  EXPECT_EQ(TVMSynchronize(kDLCPU, 0, nullptr), 0);
}

TEST(ApiMisuse, TVMArrayAllocNamesWhatIsWrong) {
  int64_t shape[1] = {4};
  TVMArrayHandle a = nullptr;
  EXPECT_TRUE(Refused(TVMArrayAlloc(shape, 1, kDLFloat, 32, 1, kDLCPU, 0, nullptr), aotrt::ErrorCode::kInvalidArgument,
                      {"TVMArrayAlloc: null out"}));
  EXPECT_TRUE(Refused(TVMArrayAlloc(nullptr, 2, kDLFloat, 32, 1, kDLCPU, 0, &a), aotrt::ErrorCode::kInvalidArgument,
                      {"TVMArrayAlloc: null shape for ndim 2"}));
  EXPECT_TRUE(Refused(TVMArrayAlloc(shape, 65, kDLFloat, 32, 1, kDLCPU, 0, &a), aotrt::ErrorCode::kInvalidArgument,
                      {"TVMArrayAlloc: ndim 65 is outside [0, 64]"}));
  EXPECT_TRUE(Refused(TVMArrayAlloc(shape, -1, kDLFloat, 32, 1, kDLCPU, 0, &a), aotrt::ErrorCode::kInvalidArgument,
                      {"ndim -1"}));
  int64_t huge[2] = {int64_t{1} << 28, int64_t{1} << 28};  // 2^58 bytes: within TensorBytes, beyond any machine
  EXPECT_TRUE(Refused(TVMArrayAlloc(huge, 2, kDLFloat, 32, 1, kDLCPU, 0, &a), aotrt::ErrorCode::kOutOfMemory,
                      {"tensor of shape [268435456, 268435456] float32", "cannot allocate 288230376151711744 bytes"}));
}

}  // namespace
