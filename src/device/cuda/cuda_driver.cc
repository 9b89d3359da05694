// The CUDA driver (DeviceAPI) over libcuda.so.1: device memory (a data pointer is its CUdeviceptr), copies,
// streams (null: CUDA's legacy default stream), synchronization and attributes.
#include "device/cuda/cuda_driver.h"

#include <dlfcn.h>

#include "base/error_util.h"
#include "device/device_api.h"

namespace aotrt {

void ThrowCuError(CUresult err, const char* call, const std::string& what) {
  const char* name = nullptr;  // only called once every function is resolved
  CudaState::Get().cuGetErrorName(err, &name);
  ThrowDriverError("CUDA", call, StrCat(name ? name : "an error", " (", err, ")"), err == 2, what);  // 2: out of memory
}

std::string CudaState::Open() {
  void* lib = ::dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL);  // never closed: kernels may run at exit
  if (!lib) return StrCat("install the NVIDIA driver (libcuda.so.1 cannot be opened: ", ::dlerror(), ")");
  std::string missing;
#define AOTRT_CU_RESOLVE(name, params) \
  if (!(name = reinterpret_cast<decltype(name)>(::dlsym(lib, #name)))) missing += " " #name;
  AOTRT_CU_FUNCTIONS(AOTRT_CU_RESOLVE)
#undef AOTRT_CU_RESOLVE
  if (!missing.empty()) return StrCat("libcuda.so.1 lacks", missing, ": install a newer NVIDIA driver");
  const char* name = nullptr;
  CUresult err = cuInit(0);
  if (err == 0) err = cuDeviceGetCount(&num_devices);
  if (err != 0) return cuGetErrorName(err, &name), StrCat("the NVIDIA driver fails to start (", name ? name : "error", " ", err, ")");
  num_devices = num_devices > kMaxCudaDevices ? kMaxCudaDevices : num_devices;
  return num_devices > 0 ? "" : "the NVIDIA driver finds no GPU (see CUDA_VISIBLE_DEVICES)";
}

void CudaState::Bind(int id, const char* what) {  // every time: other code (cudart) may change it between calls
  RequireDeviceId(what, "CUDA", id, num_devices, why_none);
  int dev = 0;  // a CUdevice
  std::call_once(retained_[id], [&] {  // a throw leaves it to the next call
    AOTRT_CU_CALL(cuDeviceGet, (&dev, id), what);
    AOTRT_CU_CALL(cuDevicePrimaryCtxRetain, (&contexts_[id], dev), what);
  });
  AOTRT_CU_CALL(cuCtxSetCurrent, (contexts_[id]), what);
}

namespace {
class CudaDriverImpl final : public DeviceAPI {
 public:
  const char* name() const override { return "cuda"; }
  int NumDevices() override { return CudaState::Get().num_devices; }
  std::string WhyNoDevice() override { return CudaState::Get().why_none; }
  void* Alloc(int id, size_t bytes, size_t alignment, const std::string& scope) override {
    AOTRT_REQUIRE(scope.empty() || scope == "global", kNotImplemented, "memory scope '", scope, "' on CUDA: only 'global'");
    AOTRT_REQUIRE(alignment <= 256 && (alignment & (alignment - 1)) == 0, kInvalidArgument, "CUDA allocation: alignment ",
                  alignment, " is not a power of two up to 256 (CUDA memory is 256-byte aligned)");
    CUdeviceptr p = 0;
    CudaState::Get().Bind(id, "CUDA allocation");
    AOTRT_CU_CALL(cuMemAlloc_v2, (&p, bytes ? bytes : 1), StrCat("allocating ", bytes, " bytes on CUDA device ", id));
    return reinterpret_cast<void*>(p);
  }
  void Free(int id, void* data) noexcept override {
    try {  // at exit the driver may be gone: nothing to do then
      if (data) CudaState::Get().Bind(id, "CUDA free"), CudaState::Get().cuMemFree_v2(reinterpret_cast<CUdeviceptr>(data));
    } catch (const Error&) {}
  }
  void Copy(const DLTensor& from, const DLTensor& to, size_t bytes, void* stream) override {
    CopyEnds e = DeviceCopyEnds(from, to, kDLCUDA, "CUDA");
    if (bytes == 0) return;
    CudaState::Get().Bind(e.id, "CUDA copy");
    auto q = static_cast<CUstream>(stream);  // null: the legacy default stream
    CUdeviceptr src = reinterpret_cast<CUdeviceptr>(from.data) + from.byte_offset, dst = reinterpret_cast<CUdeviceptr>(to.data) + to.byte_offset;
    auto what = [&] { return StrCat("copying ", bytes, " bytes ", e.from_dev ? "from" : "to", " CUDA device ", e.id); };
    if (e.from_dev && e.to_dev) AOTRT_CU_CALL(cuMemcpyDtoDAsync_v2, (dst, src, bytes, q), what());
    if (e.from_dev && !e.to_dev) AOTRT_CU_CALL(cuMemcpyDtoHAsync_v2, (reinterpret_cast<void*>(dst), src, bytes, q), what());
    if (!e.from_dev) AOTRT_CU_CALL(cuMemcpyHtoDAsync_v2, (dst, reinterpret_cast<const void*>(src), bytes, q), what());
    if (!e.from_dev || !e.to_dev) AOTRT_CU_CALL(cuStreamSynchronize, (q), what());  // host memory read or written now
  }
  void* CreateStream(int id) override {
    CUstream q = nullptr;
    CudaState::Get().Bind(id, "TVMStreamCreate");
    AOTRT_CU_CALL(cuStreamCreate, (&q, 0), StrCat("creating a stream on CUDA device ", id));
    return q;
  }
  void FreeStream(int id, void* stream) override {
    CudaState::Get().Bind(id, "TVMStreamFree");
    if (stream) AOTRT_CU_CALL(cuStreamDestroy_v2, (static_cast<CUstream>(stream)), "TVMStreamFree");
  }
  void SetStream(int, void* stream) override { CudaState::current_stream = static_cast<CUstream>(stream); }
  void SetDevice(int id) override { CudaState::Get().Bind(id, "__tvm_set_device"), CudaState::current_device = id; }
  void Sync(int id, void* stream) override {
    CudaState::Get().Bind(id, "CUDA synchronize");
    auto what = [&] { return StrCat("waiting for CUDA device ", id, " (a kernel or copy enqueued before failed)"); };
    if (stream) AOTRT_CU_CALL(cuStreamSynchronize, (static_cast<CUstream>(stream)), what());
    if (!stream) AOTRT_CU_CALL(cuCtxSynchronize, (), what());
  }
  // Events before and after the work on this thread's stream, as TVM's CUDA timer.
  double TimeOnDevice(int id, const std::function<void()>& enqueue) override {
    struct Events {  // destroyed however the timing ends
      CUevent start = nullptr, end = nullptr;
      ~Events() {
        for (CUevent e : {start, end}) if (e) CudaState::Get().cuEventDestroy_v2(e);
      }
    } ev;
    CudaState::Get().Bind(id, "CUDA timing");
    AOTRT_CU_CALL(cuEventCreate, (&ev.start, 0), "CUDA timing");
    AOTRT_CU_CALL(cuEventCreate, (&ev.end, 0), "CUDA timing");
    AOTRT_CU_CALL(cuEventRecord, (ev.start, CudaState::current_stream), "CUDA timing");
    enqueue();
    AOTRT_CU_CALL(cuEventRecord, (ev.end, CudaState::current_stream), "CUDA timing");
    AOTRT_CU_CALL(cuEventSynchronize, (ev.end), StrCat("waiting for CUDA device ", id, " (a kernel enqueued failed)"));
    float ms = 0;
    AOTRT_CU_CALL(cuEventElapsedTime, (&ms, ev.start, ev.end), "CUDA timing");
    return ms;
  }
  void GetAttr(int id, DeviceAttr kind, TVMRetValue* rv) override {
    int dev = 0;  // a CUdevice
    char name[256] = {0};
    size_t bytes = 0, k = static_cast<size_t>(kind);
    AOTRT_CU_CALL(cuDeviceGet, (&dev, id), "runtime.GetDeviceAttr");
    auto attr = [&](int a) { int v = 0; AOTRT_CU_CALL(cuDeviceGetAttribute, (&v, a, dev), "runtime.GetDeviceAttr"); return v; };
    // CUdevice_attribute by DeviceAttr: max threads 1, warp 10, shared memory 8, clock 13, SMs 16, registers 12, L2 38.
    constexpr int kIntAttr[] = {0, 1, 10, 8, 0, 0, 13, 16, 0, 12, 0, 0, 0, 38};
    if (k < 14 && kIntAttr[k]) return rv->SetInt(attr(kIntAttr[k]));
    if (kind == DeviceAttr::kComputeVersion) return rv->SetString(StrCat(attr(75), ".", attr(76)));  // major.minor
    if (kind == DeviceAttr::kMaxThreadDimensions) return rv->SetString(StrCat("[", attr(2), ", ", attr(3), ", ", attr(4), "]"));
    if (kind == DeviceAttr::kDeviceName) AOTRT_CU_CALL(cuDeviceGetName, (name, sizeof(name) - 1, dev), "runtime.GetDeviceAttr");
    if (kind == DeviceAttr::kDeviceName) return rv->SetString(name);
    if (kind == DeviceAttr::kTotalGlobalMemory) AOTRT_CU_CALL(cuDeviceTotalMem_v2, (&bytes, dev), "runtime.GetDeviceAttr");
    if (kind == DeviceAttr::kTotalGlobalMemory) rv->SetInt(static_cast<int64_t>(bytes));  // others: none, as TVM's
  }
};

}  // namespace

DeviceAPI* CUDADriver() { static auto* driver = new CudaDriverImpl(); return driver; }  // never destroyed

}  // namespace aotrt
