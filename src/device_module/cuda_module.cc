// The `cuda` module of a blob (type key "cuda"): kernels' code (fmt "ptx", "cubin" or "fatbin") and function map.
// The code is loaded and every kernel resolved on a device when an executor is created there (or at the first
// launch there); kernels launch as TVM's CUDA runtime launches them (PackFuncVoidAddr, the launch tags).
#include <atomic>
#include <mutex>

#include "aotrt/dtype.h"
#include "base/byte_reader.h"
#include "base/error_util.h"
#include "device/cuda/cuda_driver.h"
#include "device_module/device_module.h"
#include "module/load_context.h"

namespace aotrt {
namespace {

struct CuKernel {
  const KernelInfo& info;
  LaunchConfig launch;
  std::atomic<CUfunction> fn[kMaxCudaDevices] = {};  // per device, once the code is loaded there
  explicit CuKernel(const KernelInfo& i) : info(i), launch(i) {}
};
class CudaModuleNode final : public DeviceModuleNode {
 public:
  CudaModuleNode(std::string fmt, std::map<std::string, KernelInfo> infos, std::string data)
      : DeviceModuleNode("CUDA", kDLCUDA, std::move(fmt), std::move(infos)), data_(std::move(data)) {
    for (const auto& [key, info] : infos_) kernels_.try_emplace(key, info);
  }
  ~CudaModuleNode() override {  // at exit the driver may be gone: nothing to do then
    for (int id = 0; id < kMaxCudaDevices; ++id)
      try { if (modules_[id]) CudaState::Get().Bind(id, "CUDA unload"), CudaState::Get().cuModuleUnload(modules_[id]); } catch (...) {}
  }
  const char* type_key() const override { return "cuda"; }
  PackedFunc GetFunction(const std::string& name, const ObjectPtr<ModuleNode>& self) override {
    auto it = kernels_.find(name);
    if (it == kernels_.end()) return PackedFunc();
    return PackedFunc([this, k = &it->second, self](TVMArgs args, TVMRetValue*) { Launch(*k, args); });
  }
  void SaveCode(std::string* out) const override { WriteString(data_, out); }
  void Prepare(int id) override {  // loads the code on device `id` and resolves every kernel there, once
    CudaState::Get().Bind(id, "loading a CUDA module");
    std::lock_guard<std::mutex> lock(mu_);
    if (!modules_[id]) AOTRT_CU_CALL(cuModuleLoadData, (&modules_[id], data_.c_str()),
                                     StrCat("loading the CUDA module's ", fmt_, " code (", data_.size(), " bytes) on device ", id));
    for (auto& [key, k] : kernels_) {
      CUfunction f = k.fn[id].load();
      if (!f) AOTRT_CU_CALL(cuModuleGetFunction, (&f, modules_[id], key.c_str()), StrCat("CUDA kernel '", key, "'"));
      k.fn[id].store(f);
    }
  }

 private:
  void Launch(CuKernel& k, TVMArgs args) {
    const size_t n = k.info.arg_types.size();
    k.launch.CheckCount("CUDA", k.info.name, args.size());
    int id = CudaState::current_device;
    CudaState::Get().Bind(id, "CUDA kernel launch");
    CUfunction f = k.fn[id].load() ? k.fn[id].load() : (Prepare(id), k.fn[id].load());
    // kernelParams: a pointer to each value; a float32 narrowed, an int32 or uint32 the low half of its int64 (LE hosts).
    thread_local std::vector<void*> ptr;  // grown, never shrunk: a steady run allocates nothing
    thread_local std::vector<float> f32;
    if (ptr.size() < n) ptr.resize(n), f32.resize(n);
    auto* v = const_cast<TVMValue*>(args.values());
    for (size_t i = 0; i < n; ++i) {
      bool narrow = k.info.arg_types[i].code == kDLFloat && k.info.arg_types[i].bits == 32;
      if (narrow) f32[i] = static_cast<float>(v[i].v_float64);
      ptr[i] = narrow ? static_cast<void*>(&f32[i]) : &v[i];
    }
    KernelLaunch l = k.launch.Read(v);
    if (l.dyn_shared_bytes >= (48u << 10))  // over the default limit: raised for the kernel (8: MAX_DYNAMIC_SHARED_SIZE_BYTES)
      AOTRT_CU_CALL(cuFuncSetAttribute, (f, 8, static_cast<int>(l.dyn_shared_bytes)), StrCat("CUDA kernel '", k.info.name, "'"));
    AOTRT_CU_CALL(cuLaunchKernel, (f, l.grid[0], l.grid[1], l.grid[2], l.block[0], l.block[1], l.block[2],
                                   static_cast<unsigned>(l.dyn_shared_bytes), CudaState::current_stream, ptr.data(), nullptr),
                  StrCat("launching CUDA kernel '", k.info.name, "' on device ", id, " (grid ", l.grid[0], "x", l.grid[1], "x", l.grid[2],
                         ", block ", l.block[0], "x", l.block[1], "x", l.block[2], ", dynamic shared memory ", l.dyn_shared_bytes, ")"));
  }
  std::string data_;
  std::map<std::string, CuKernel> kernels_;
  std::mutex mu_;
  CUmodule modules_[kMaxCudaDevices] = {};
};

}  // namespace

ObjectPtr<ModuleNode> LoadCUDAModule(BoundedReader& r, const LoadContext&) {
  std::string fmt = r.ReadString("CUDA module format");
  std::map<std::string, KernelInfo> infos = ReadKernelMap(r);
  std::string data = r.ReadString("CUDA module code");
  AOTRT_REQUIRE(fmt == "ptx" || fmt == "cubin" || fmt == "fatbin", kNotImplemented, r.what(), ": CUDA module of format '",
                fmt, "': aotrt loads 'ptx', 'cubin' or 'fatbin' code");
  for (const auto& [key, info] : infos)  // what TVM's PackFuncVoidAddr passes: a buffer or a 32/64-bit scalar
    for (DLDataType t : info.arg_types)
      AOTRT_REQUIRE(t.lanes == 1 && (t.code == kTVMOpaqueHandle || (t.code <= kDLFloat && (t.bits == 32 || t.bits == 64))),
                    kNotImplemented, r.what(), ": CUDA kernel '", key, "' takes a ", DataTypeToString(t), ", which TVM cannot pass");
  return MakeObject<CudaModuleNode>(std::move(fmt), std::move(infos), std::move(data));
}

}  // namespace aotrt
