// The CUDA driver and module against a mock libcuda.so.1 (mock_libcuda.cc, first on LD_LIBRARY_PATH):
// the plumbing for real on a machine without a GPU. The device memory is host memory and kernels compute
// nothing, so these tests prove what is passed to the driver (devices, contexts, pointers, sizes, launch
// configurations, argument bytes) and that errors are clear and leak nothing; never numerical results
// (CUDAFixtures.* on a real GPU do: scripts/gpu-check.sh).
#include <dlfcn.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <cstring>
#include <thread>

#include "aotrt/model.h"
#include "aotrt/profiling.h"
#include "aotrt/packed_func.h"
#include "common/expect_error.h"
#include "device/mock_libcuda.h"
#include "fuzz/fuzz_blob_common.h"
#include "tvm/runtime/c_backend_api.h"
#include "tvm/runtime/c_runtime_api.h"

using namespace aotrt;

namespace {

constexpr DLDevice kCuda0{kDLCUDA, 0}, kCuda1{kDLCUDA, 1};
const DLDataType kF32{kDLFloat, 32, 1};

// The mock's control functions, from the libcuda.so.1 the runtime opened.
struct Mock {
  MockCudaNumLaunchesFn num_launches;
  MockCudaLaunchFn launch;
  MockCudaClearFn clear;
  MockCudaStatsFn stats_fn;
  MockCudaFailFn fail;
  MockCudaDropContextFn drop_context;
  MockCudaStats stats() const {
    MockCudaStats s;
    stats_fn(&s);
    return s;
  }
  std::vector<MockCudaLaunch> launches() const {
    std::vector<MockCudaLaunch> out;
    for (int i = 0; i < num_launches(); ++i) out.push_back(*launch(i));
    return out;
  }
};

const Mock& TheMock() {
  static Mock m = [] {
    GetGlobalFunction("runtime.GetDeviceAttr")(static_cast<int>(kDLCUDA), 0, 0);  // opens libcuda.so.1
    void* lib = ::dlopen("libcuda.so.1", RTLD_NOW | RTLD_NOLOAD);
    if (!lib || !::dlsym(lib, "mock_cuda_stats")) return Mock{};
    return Mock{reinterpret_cast<MockCudaNumLaunchesFn>(::dlsym(lib, "mock_cuda_num_launches")),
                reinterpret_cast<MockCudaLaunchFn>(::dlsym(lib, "mock_cuda_launch")),
                reinterpret_cast<MockCudaClearFn>(::dlsym(lib, "mock_cuda_clear")),
                reinterpret_cast<MockCudaStatsFn>(::dlsym(lib, "mock_cuda_stats")),
                reinterpret_cast<MockCudaFailFn>(::dlsym(lib, "mock_cuda_fail")),
                reinterpret_cast<MockCudaDropContextFn>(::dlsym(lib, "mock_cuda_drop_context"))};
  }();
  return m;
}

#define REQUIRE_MOCK()                                                                                  \
  const Mock& mock = TheMock();                                                                         \
  if (!mock.stats_fn) GTEST_SKIP() << "libcuda.so.1 is not the mock (run through ctest, which sets LD_LIBRARY_PATH)"; \
  mock.clear()

std::string Fixture(const std::string& name) {
  return std::string(AOTRT_TEST_GPU_FIXTURES_DIR) + "/" + name + "/model.so";
}
#define REQUIRE_FIXTURE(var, name)                                       \
  std::string var = Fixture(name);                                      \
  if (::access(var.c_str(), R_OK) != 0) GTEST_SKIP() << var << " not present"

uint64_t U64(const MockCudaLaunch& l, int i) {
  uint64_t v = 0;
  std::memcpy(&v, l.params[i], 8);
  return v;
}
uint64_t Ptr(const NDArray& a) { return reinterpret_cast<uintptr_t>(a.data()); }

// A blob holding one cuda module of `fmt` with kernel "k" (`types`, `tags`) and `code`.
std::string CudaBlob(const std::string& fmt, const std::vector<DLDataType>& types, const std::vector<std::string>& tags,
                     const std::string& code) {
  std::string p;
  auto u64 = [&](uint64_t v) { p.append(reinterpret_cast<const char*>(&v), 8); };
  auto str = [&](const std::string& s) { u64(s.size()), p += s; };
  str(fmt);
  u64(1), str("k"), str("");
  u64(types.size());
  for (DLDataType t : types) p.append(reinterpret_cast<const char*>(&t), 4);
  u64(tags.size());
  for (const std::string& t : tags) str(t);
  str(code);
  std::string blob(8, '\0');
  uint64_t one = 1, four = 4;
  blob.append(reinterpret_cast<const char*>(&one), 8).append(reinterpret_cast<const char*>(&four), 8) += "cuda";
  blob += p;
  uint64_t n = blob.size() - 8;
  std::memcpy(blob.data(), &n, 8);
  return blob;
}

// Kernel "k": a buffer, an int32, a float32, an int64 and a float64, as TVM's NVPTX back end declares them.
const char kPtx[] =
    ".version 4.0\n.target sm_50\n.address_size 64\n"
    ".visible .entry k(\n\t.param .u64 k_param_0,\n\t.param .u32 k_param_1,\n\t.param .f32 k_param_2,\n"
    "\t.param .u64 k_param_3,\n\t.param .f64 k_param_4\n)\n{\n\tret;\n}\n";
const std::vector<DLDataType> kTypes = {{kTVMOpaqueHandle, 64, 1}, {kDLInt, 32, 1}, {kDLFloat, 32, 1}, {kDLInt, 64, 1},
                                        {kDLFloat, 64, 1}};

PackedFunc KernelOf(const ObjectPtr<ModuleNode>& root) {
  for (const auto& m : root->imports()) {
    if (PackedFunc f = m->GetFunction("k", m)) return f;
  }
  return PackedFunc();
}

}  // namespace

TEST(CudaMock, DevicesAndAttributesComeFromTheDriver) {
  REQUIRE_MOCK();
  PackedFunc attr = GetGlobalFunction("runtime.GetDeviceAttr");
  auto num = [&](int id, int kind) { return attr(static_cast<int>(kDLCUDA), id, kind).value().v_int64; };
  auto text = [&](int id, int kind) { return attr(static_cast<int>(kDLCUDA), id, kind).str(); };
  EXPECT_EQ(num(0, 0), 1);
  EXPECT_EQ(num(1, 0), 1);
  EXPECT_EQ(num(2, 0), 0);
  EXPECT_EQ(num(0, 1), 1024);  // max threads per block
  EXPECT_EQ(num(0, 2), 32);    // warp size
  EXPECT_EQ(num(0, 3), 49152);
  EXPECT_EQ(text(0, 4), "8.0");
  EXPECT_EQ(text(1, 5), "Mock CUDA Device 1");  // through cuDeviceGet's handle, not the ordinal
  EXPECT_EQ(num(0, 6), 1410000);
  EXPECT_EQ(num(0, 7), 108);
  EXPECT_EQ(text(0, 8), "[1024, 1024, 64]");
  EXPECT_EQ(num(0, 9), 65536);
  EXPECT_EQ(num(0, 13), 41943040);
  EXPECT_EQ(num(0, 14), int64_t{80} << 30);
  TVMArrayHandle a = nullptr;
  int64_t shape[] = {4};
  EXPECT_EQ(TVMArrayAlloc(shape, 1, kDLFloat, 32, 1, kDLCUDA, 2, &a), -1);
  EXPECT_NE(std::string(TVMGetLastError()).find("cuda device 2 does not exist (got device type 2 id 2); this machine has 2"),
            std::string::npos)
      << TVMGetLastError();
}

TEST(CudaMock, AllocAndCopiesRoundTripThroughTheCApi) {
  REQUIRE_MOCK();
  long live = mock.stats().live_allocations;
  int64_t shape[] = {4, 5};
  TVMArrayHandle a = nullptr, b = nullptr;
  ASSERT_EQ(TVMArrayAlloc(shape, 2, kDLFloat, 32, 1, kDLCUDA, 0, &a), 0) << TVMGetLastError();
  ASSERT_EQ(TVMArrayAlloc(shape, 2, kDLFloat, 32, 1, kDLCUDA, 0, &b), 0) << TVMGetLastError();
  EXPECT_EQ(mock.stats().live_allocations, live + 2);
  EXPECT_EQ(reinterpret_cast<uintptr_t>(a->data) % 256, 0u);
  float in[20], out[20] = {0};
  for (int i = 0; i < 20; ++i) in[i] = 0.5f * static_cast<float>(i);
  ASSERT_EQ(TVMArrayCopyFromBytes(a, in, sizeof(in)), 0) << TVMGetLastError();  // host to device
  ASSERT_EQ(TVMArrayCopyFromTo(a, b, nullptr), 0) << TVMGetLastError();          // device to device
  ASSERT_EQ(TVMArrayCopyToBytes(b, out, sizeof(out)), 0) << TVMGetLastError();   // device to host
  EXPECT_EQ(std::memcmp(in, out, sizeof(in)), 0);
  // Byte offsets on both sides: the last 8 floats of `a` into the first 8 of `b`, then to the host.
  DLTensor from = *a, to = *b;
  int64_t eight[] = {8};
  from.ndim = to.ndim = 1;
  from.shape = to.shape = eight;
  from.byte_offset = 12 * 4;
  ASSERT_EQ(TVMDeviceCopyDataFromTo(&from, &to, nullptr), 0) << TVMGetLastError();
  ASSERT_EQ(TVMArrayCopyToBytes(b, out, sizeof(out)), 0);
  EXPECT_EQ(std::memcmp(out, in + 12, 8 * 4), 0);
  EXPECT_EQ(TVMArrayFree(a), 0);
  EXPECT_EQ(TVMArrayFree(b), 0);
  EXPECT_EQ(mock.stats().live_allocations, live);
  // Data spaces: alignment up to CUDA's 256, the global scope only; workspaces of generated code.
  void* p = nullptr;
  EXPECT_EQ(TVMDeviceAllocDataSpace(kCuda1, 100, 256, kF32, &p), 0) << TVMGetLastError();
  EXPECT_EQ(TVMDeviceFreeDataSpace(kCuda1, p), 0);
  EXPECT_EQ(TVMDeviceAllocDataSpace(kCuda0, 100, 512, kF32, &p), -1);
  EXPECT_NE(std::string(TVMGetLastError()).find("256-byte aligned"), std::string::npos) << TVMGetLastError();
  EXPECT_EQ(TVMDeviceAllocDataSpaceWithScope(kCuda0, 1, shape, kF32, "global.texture", &p), -1);
  void* ws = TVMBackendAllocWorkspace(kDLCUDA, 0, 1000, 2, 32);
  ASSERT_NE(ws, nullptr) << TVMGetLastError();
  EXPECT_EQ(mock.stats().live_allocations, live + 1);
  EXPECT_EQ(TVMBackendFreeWorkspace(kDLCUDA, 0, ws), 0);
  EXPECT_EQ(mock.stats().live_allocations, live);
}

TEST(CudaMock, EveryKernelIsResolvedAtCreateAndNoneInRun) {
  REQUIRE_MOCK();
  REQUIRE_FIXTURE(path, "u_conv");
  MockCudaStats before = mock.stats();
  {
    Model m = Model::Load(path);
    EXPECT_EQ(mock.stats().module_loads, before.module_loads);  // nothing on a device until an executor is made
    Executor ex = m.CreateExecutor(kCuda0);
    MockCudaStats created = mock.stats();
    EXPECT_EQ(created.module_loads, before.module_loads + 1);
    EXPECT_EQ(created.function_lookups, before.function_lookups + 2);  // both kernels of the function map
    ex.Run();
    ex.Run();
    ex.Synchronize();
    EXPECT_EQ(mock.stats().function_lookups, created.function_lookups);  // no lookup in run()
    EXPECT_EQ(mock.stats().launches, created.launches + 4);
    Executor again = m.CreateExecutor(kCuda0);  // loaded there already
    EXPECT_EQ(mock.stats().module_loads, created.module_loads);
    Executor other = m.CreateExecutor(kCuda1);  // a device of its own: its own module
    EXPECT_EQ(mock.stats().module_loads, created.module_loads + 1);
    mock.clear();
    other.Run();
    for (const MockCudaLaunch& l : mock.launches()) EXPECT_EQ(l.device, 1) << l.kernel;  // __tvm_set_device
  }
  MockCudaStats after = mock.stats();
  EXPECT_EQ(after.live_modules, before.live_modules);  // unloaded with the model
  EXPECT_EQ(after.live_allocations, before.live_allocations);
}

// The grid and block TVM v0.14's CUDA runtime computes from each kernel's launch tags and the extents the
// host code passes, read off the PTX: u_add's kernel indexes blockIdx.x * 1024 + threadIdx.x over 64x64
// floats; u_conv's conv2d+relu runs one thread per block over (x 56, y 56, z 32 channels) and its max_pool2d
// 1024 threads per block over 32x28x28 = 25088 outputs (25 blocks).
TEST(CudaMock, KernelsLaunchWithTvmsGridBlockAndArguments) {
  REQUIRE_MOCK();
  REQUIRE_FIXTURE(add_path, "u_add");
  REQUIRE_FIXTURE(conv_path, "u_conv");
  Model add = Model::Load(add_path);
  Executor ex = add.CreateExecutor(kCuda0);
  NDArray x = NDArray::Empty({64, 64}, kF32);
  ex.SetInput(0, x.tensor());
  mock.clear();
  ex.Run();
  std::vector<MockCudaLaunch> l = mock.launches();
  ASSERT_EQ(l.size(), 1u);
  EXPECT_STREQ(l[0].kernel, "tvmgen_default_fused_add_kernel");
  EXPECT_EQ(std::vector<unsigned>(l[0].grid, l[0].grid + 3), (std::vector<unsigned>{4, 1, 1}));
  EXPECT_EQ(std::vector<unsigned>(l[0].block, l[0].block + 3), (std::vector<unsigned>{1024, 1, 1}));
  EXPECT_EQ(l[0].shared_bytes, 0u);
  EXPECT_EQ(l[0].stream, nullptr);
  ASSERT_EQ(l[0].num_params, 2);
  EXPECT_EQ(U64(l[0], 0), Ptr(ex.GetOutput(0)));  // param_0 is stored to, param_1 read
  EXPECT_EQ(U64(l[0], 1), Ptr(ex.GetInput(0)));

  Model conv = Model::Load(conv_path);
  Executor ec = conv.CreateExecutor(kCuda0);
  mock.clear();
  ec.Run();
  l = mock.launches();
  ASSERT_EQ(l.size(), 2u);
  EXPECT_STREQ(l[0].kernel, "tvmgen_default_fused_nn_conv2d_nn_relu_kernel");
  EXPECT_EQ(std::vector<unsigned>(l[0].grid, l[0].grid + 3), (std::vector<unsigned>{56, 56, 32}));
  EXPECT_EQ(std::vector<unsigned>(l[0].block, l[0].block + 3), (std::vector<unsigned>{1, 1, 1}));
  EXPECT_STREQ(l[1].kernel, "tvmgen_default_fused_nn_max_pool2d_kernel");
  EXPECT_EQ(std::vector<unsigned>(l[1].grid, l[1].grid + 3), (std::vector<unsigned>{25, 1, 1}));
  EXPECT_EQ(std::vector<unsigned>(l[1].block, l[1].block + 3), (std::vector<unsigned>{1024, 1, 1}));
  ASSERT_EQ(l[0].num_params, 3);
  ASSERT_EQ(l[1].num_params, 2);
  // The conv reads the input (param_1) and weights (param_2) and writes param_0; the pool reads that
  // (its param_0) and writes the output (param_1), as their PTX loads and stores say.
  EXPECT_EQ(U64(l[0], 1), Ptr(ec.GetInput(0)));
  EXPECT_NE(U64(l[0], 2), U64(l[0], 1));
  EXPECT_EQ(U64(l[1], 0), U64(l[0], 0));
  EXPECT_EQ(U64(l[1], 1), Ptr(ec.GetOutput(0)));
  EXPECT_NE(U64(l[0], 0), U64(l[1], 1));
}

// TVM's PackFuncVoidAddr: kernelParams[i] points to the argument's value, int32 and float32 narrowed; the
// launch extents from the tags; dynamic shared memory, with the kernel's limit raised over 48 KiB.
TEST(CudaMock, ArgumentsArePackedAsKernelParams) {
  REQUIRE_MOCK();
  std::string blob = CudaBlob("ptx", kTypes, {"blockIdx.x", "threadIdx.x", "threadIdx.y", "tir.use_dyn_shared_memory"}, kPtx);
  ObjectPtr<ModuleNode> root = fuzz::ProcessBlob(blob.data(), blob.size());
  PackedFunc k = KernelOf(root);
  ASSERT_TRUE(static_cast<bool>(k));
  void* buf = nullptr;
  ASSERT_EQ(TVMDeviceAllocDataSpace(kCuda0, 64, 64, kF32, &buf), 0);
  MockCudaStats before = mock.stats();
  k(buf, 7, 2.5, -(int64_t{3} << 40), 1.25, 3, 64, 2, 1024);
  k(buf, -1, -0.5, int64_t{5}, -2.0, 1, 32, 1, 65536);
  std::vector<MockCudaLaunch> l = mock.launches();
  ASSERT_EQ(l.size(), 2u);
  EXPECT_EQ(std::vector<unsigned>(l[0].grid, l[0].grid + 3), (std::vector<unsigned>{3, 1, 1}));
  EXPECT_EQ(std::vector<unsigned>(l[0].block, l[0].block + 3), (std::vector<unsigned>{64, 2, 1}));
  EXPECT_EQ(l[0].shared_bytes, 1024u);
  ASSERT_EQ(l[0].num_params, 5);
  EXPECT_EQ(std::vector<int>(l[0].param_bytes, l[0].param_bytes + 5), (std::vector<int>{8, 4, 4, 8, 8}));
  EXPECT_EQ(U64(l[0], 0), reinterpret_cast<uintptr_t>(buf));
  int32_t i32;
  float f32;
  int64_t i64;
  double f64;
  std::memcpy(&i32, l[0].params[1], 4), std::memcpy(&f32, l[0].params[2], 4);
  std::memcpy(&i64, l[0].params[3], 8), std::memcpy(&f64, l[0].params[4], 8);
  EXPECT_EQ(i32, 7);
  EXPECT_EQ(f32, 2.5f);
  EXPECT_EQ(i64, -(int64_t{3} << 40));
  EXPECT_EQ(f64, 1.25);
  std::memcpy(&i32, l[1].params[1], 4), std::memcpy(&f32, l[1].params[2], 4);
  EXPECT_EQ(i32, -1);
  EXPECT_EQ(f32, -0.5f);
  EXPECT_EQ(l[1].shared_bytes, 65536u);
  MockCudaStats after = mock.stats();
  EXPECT_EQ(after.func_attribute_sets, before.func_attribute_sets + 1);  // only for the launch over 48 KiB
  EXPECT_EQ(after.last_func_attribute, 8);                               // CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES
  EXPECT_EQ(after.last_func_attribute_value, 65536);
  EXPECT_AOTRT_ERROR(k(buf, 7, 2.5), ErrorCode::kInvalidArgument, {"CUDA kernel 'k' takes 5 arguments and 4 launch extents, got 3"});
  EXPECT_EQ(TVMDeviceFreeDataSpace(kCuda0, buf), 0);
}

// cubin and fatbin code goes to cuModuleLoadData as it is, NUL bytes included; an unknown format is
// refused at load.
TEST(CudaMock, CubinAndFatbinLoadAsGiven) {
  REQUIRE_MOCK();
  for (const std::string& fmt : {"cubin", "fatbin"}) {
    std::string code = fmt == "cubin" ? std::string("\x7f" "ELF\x02\x01\x01\0\0\0", 10) : std::string("\x50\xed\x55\xba\x01\0\x10\0", 8);
    std::string blob = CudaBlob(fmt, kTypes, {"blockIdx.x"}, code);
    ObjectPtr<ModuleNode> root = fuzz::ProcessBlob(blob.data(), blob.size());
    KernelOf(root)(nullptr, 1, 1.0, 1, 1.0, 9);
    std::string saved = root->imports()[0]->SaveToBinary();  // written back: format, function map, code
    EXPECT_EQ(saved.substr(8, fmt.size()), fmt);
    EXPECT_EQ(saved.substr(saved.size() - code.size()), code);
  }
  std::vector<MockCudaLaunch> l = mock.launches();
  ASSERT_EQ(l.size(), 2u);
  EXPECT_STREQ(l[1].kernel, "k");
  EXPECT_EQ(l[1].grid[0], 9u);
  std::string blob = CudaBlob("cu", kTypes, {}, "__global__ void k() {}");
  EXPECT_AOTRT_ERROR(fuzz::ProcessBlob(blob.data(), blob.size()), ErrorCode::kNotImplemented,
                     {"CUDA module of format 'cu': aotrt loads 'ptx', 'cubin' or 'fatbin' code"});
}

TEST(CudaMock, StreamsCarryTheLaunchesAndAreFreed) {
  REQUIRE_MOCK();
  REQUIRE_FIXTURE(path, "u_add");
  Model m = Model::Load(path);
  Executor ex = m.CreateExecutor(kCuda0);
  TVMStreamHandle s = nullptr;
  long streams = mock.stats().live_streams;
  ASSERT_EQ(TVMStreamCreate(kDLCUDA, 0, &s), 0) << TVMGetLastError();
  ASSERT_NE(s, nullptr);
  ASSERT_EQ(TVMSetStream(kDLCUDA, 0, s), 0);
  ex.Run();
  EXPECT_EQ(TVMSynchronize(kDLCUDA, 0, s), 0);
  EXPECT_EQ(TVMSetStream(kDLCUDA, 0, nullptr), 0);
  ex.Run();
  std::vector<MockCudaLaunch> l = mock.launches();
  ASSERT_EQ(l.size(), 2u);
  EXPECT_EQ(l[0].stream, s);
  EXPECT_EQ(l[1].stream, nullptr);
  EXPECT_EQ(TVMStreamFree(kDLCUDA, 0, s), 0);
  EXPECT_EQ(mock.stats().live_streams, streams);
}

// Another thread has no current context until the driver makes one current there, and other code may
// change a thread's (the mock refuses every call without one).
TEST(CudaMock, ExecutorsRunFromOtherThreads) {
  REQUIRE_MOCK();
  REQUIRE_FIXTURE(path, "u_conv");
  Model m = Model::Load(path);
  Executor ex = m.CreateExecutor(kCuda1);
  std::string error;
  std::thread t([&] {
    try {
      ex.Run();
      ex.Synchronize();
    } catch (const Error& e) {
      error = e.what();
    }
  });
  t.join();
  EXPECT_EQ(error, "");
  mock.drop_context();
  ex.Run();
  ex.Synchronize();
  std::vector<MockCudaLaunch> l = mock.launches();
  ASSERT_EQ(l.size(), 4u);
  EXPECT_EQ(l[0].device, 1);
  EXPECT_EQ(l[3].device, 1);
}

TEST(CudaMock, InjectedFailuresAreClearErrorsAndLeakNothing) {
  REQUIRE_MOCK();
  REQUIRE_FIXTURE(path, "u_conv");
  MockCudaStats before = mock.stats();
  {
    Model m = Model::Load(path);
    mock.fail("cuMemAlloc_v2", 2, 1);  // the second storage
    EXPECT_AOTRT_ERROR(m.CreateExecutor(kCuda0), ErrorCode::kOutOfMemory,
                       {"on CUDA device 0", "cuMemAlloc_v2 failed with CUDA_ERROR_OUT_OF_MEMORY (2): the device is out of memory"});
    EXPECT_EQ(mock.stats().live_allocations, before.live_allocations);
    Executor ex = m.CreateExecutor(kCuda0);
    mock.fail("cuLaunchKernel", 719, 1);  // the max_pool2d kernel
    EXPECT_AOTRT_ERROR(ex.Run(), ErrorCode::kModelError,
                       {"launching CUDA kernel 'tvmgen_default_fused_nn_max_pool2d_kernel' on device 0 (grid 25x1x1, block 1024x1x1",
                        "cuLaunchKernel failed with CUDA_ERROR_LAUNCH_FAILED (719)"});
    ex.Run();  // the executor is still usable
    mock.fail("cuCtxSynchronize", 719, 0);
    EXPECT_AOTRT_ERROR(ex.Synchronize(), ErrorCode::kModelError, {"waiting for CUDA device 0", "CUDA_ERROR_LAUNCH_FAILED"});
  }
  {
    Model m = Model::Load(path);
    mock.fail("cuModuleLoadData", 218, 0);
    EXPECT_AOTRT_ERROR(m.CreateExecutor(kCuda0), ErrorCode::kModelError,
                       {"loading the CUDA module's ptx code", "cuModuleLoadData failed with CUDA_ERROR_INVALID_PTX (218)"});
    m.CreateExecutor(kCuda0).Run();  // loaded at the next try
  }
  // A function map naming a kernel the code lacks.
  std::string blob = CudaBlob("ptx", kTypes, {}, std::string(kPtx).replace(std::string(kPtx).find("entry k("), 8, "entry j("));
  ObjectPtr<ModuleNode> root = fuzz::ProcessBlob(blob.data(), blob.size());
  EXPECT_AOTRT_ERROR(KernelOf(root)(nullptr, 1, 1.0, 1, 1.0), ErrorCode::kModelError,
                     {"CUDA kernel 'k'", "cuModuleGetFunction failed with CUDA_ERROR_NOT_FOUND (500)"});
  root.reset();
  MockCudaStats after = mock.stats();
  EXPECT_EQ(after.live_allocations, before.live_allocations);
  EXPECT_EQ(after.live_modules, before.live_modules);
  EXPECT_EQ(after.live_streams, before.live_streams);
}

// The per-node profile times each node by events on the device: the mock's clock gives each kernel 0.5 ms,
// so each of u_conv's two nodes (one kernel each) takes exactly that; no event outlives the profile.
TEST(CudaMock, TheProfileTimesEachNodeByEvents) {
  REQUIRE_MOCK();
  REQUIRE_FIXTURE(path, "u_conv");
  Model m = Model::Load(path);
  Executor ex = m.CreateExecutor(kCuda0);
  OperatorProfileOptions o;
  o.runs = 2;
  o.warmup = 1;
  OperatorProfile p = ProfileOperators(ex, o);
  ASSERT_EQ(p.operators.size(), 2u);
  for (const OperatorCost& op : p.operators) EXPECT_EQ(op.mean_ms, 0.5) << op.name;
  EXPECT_EQ(mock.stats().live_events, 0);
  mock.fail("cuEventCreate", 2, 1);
  EXPECT_AOTRT_ERROR(ProfileOperators(ex, o), ErrorCode::kOutOfMemory, {"CUDA timing", "cuEventCreate failed"});
  EXPECT_EQ(mock.stats().live_events, 0);
}
