// The `opencl` module of a GPU export's blob: the kernels' OpenCL C source and function map, read
// by the built-in loader of type key "opencl". A kernel is a packed function that the host code
// finds through TVMBackendGetFuncFromEnv and calls with its buffers (cl_mem), scalars and launch
// extents; it runs on the device __tvm_set_device chose. Programs are built per kernel and per
// device at the first launch (TVM's order, so the same driver gives the same bits) and kept, as
// binaries, in the cache directory: a second process builds none. A binary is taken once its
// first launch has run: pocl makes a kernel's machine code at its first launch and keeps the first
// binary it hands out, so one taken at build holds bitcode only, for every later process to compile.
// A kernel a graph never launches is cached when an executor's first run ends (FirstRunDone).
#include <mutex>

#include "aotrt/module.h"
#include "base/byte_reader.h"
#include "base/error_util.h"
#include "base/logging.h"
#include "device/opencl/opencl_driver.h"
#include "device_module/function_info.h"
#include "device_module/device_module.h"
#include "module/load_context.h"

namespace aotrt {
namespace {

// TVM's delimiter between kernels in the module's source (source_utils.cc).
constexpr char kKernelDelimiter[] = "// Function: ";

// The source of each kernel, by name: the text after its delimiter line up to the next delimiter.
std::map<std::string, std::string> SplitKernels(const std::string& source) {
  std::map<std::string, std::string> parts;
  const size_t dlen = sizeof(kKernelDelimiter) - 1;
  size_t begin = source.find(kKernelDelimiter);
  while (begin != std::string::npos) {
    size_t name_end = source.find('\n', begin + dlen);
    if (name_end == std::string::npos) break;
    std::string name = source.substr(begin + dlen, name_end - begin - dlen);
    size_t next = source.find(kKernelDelimiter, name_end + 1);
    parts[name] = source.substr(name_end + 1, next == std::string::npos ? std::string::npos : next - name_end - 1);
    begin = next;
  }
  return parts;
}

// One kernel: how its arguments are passed and launched, and its program and cl_kernel per device.
struct ClKernel {
  const KernelInfo& info;        // the module's
  const std::string& cache_dir;  // the module's
  LaunchConfig launch;
  std::string source;  // its own program's source
  std::mutex mu;       // one launch at a time: clSetKernelArg and the launch are one step
  std::vector<cl_program> programs;  // by device id, null until built
  std::vector<cl_kernel> kernels;
  std::vector<char> unsaved;  // by device id: built from source here, its binary not yet cached

  ClKernel(const KernelInfo& i, std::string src, const std::string& cache)
      : info(i), cache_dir(cache), launch(i), source(std::move(src)),
        programs(OpenCLState::Get().devices().size()), kernels(programs.size()), unsaved(programs.size()) {}
  ~ClKernel() {
    const ClApi& cl = OpenCLState::Get().cl();
    for (size_t id = 0; id < unsaved.size(); ++id) {
      if (unsaved[id] && !OpenCLState::exiting) SaveBinary(id);  // not launched; not at exit: pocl's LLVM is gone
    }
    for (cl_kernel k : kernels) if (k) cl.clReleaseKernel(k);
    for (cl_program p : programs) if (p) cl.clReleaseProgram(p);
  }
  std::string CachePath(const ClDevice& d) const {
    return KernelCachePath(cache_dir, "opencl", StrCat("aotrt-opencl-2|", d.platform_name, "|", d.name, "|",
                                                       d.version, "|", d.driver, "|"), source);
  }
  cl_kernel For(int id);
  cl_program Build(const ClDevice& d, int id);
  void SaveBinary(size_t id);
  void Launch(TVMArgs args);
};

// A failure only leaves the cache without this binary.
void ClKernel::SaveBinary(size_t id) {
  unsaved[id] = 0;
  const ClApi& cl = OpenCLState::Get().cl();
  size_t size = 0;
  if (cl.clGetProgramInfo(programs[id], CL_PROGRAM_BINARY_SIZES, sizeof(size), &size, nullptr) == CL_SUCCESS && size > 0) {
    std::string bin(size, '\0');
    unsigned char* ptr = reinterpret_cast<unsigned char*>(bin.data());
    if (cl.clGetProgramInfo(programs[id], CL_PROGRAM_BINARIES, sizeof(ptr), &ptr, nullptr) == CL_SUCCESS) {
      WriteKernelCache(CachePath(OpenCLState::Get().devices()[id]), bin);
    }
  }
}

cl_program ClKernel::Build(const ClDevice& d, int id) {
  const OpenCLState& s = OpenCLState::Get();
  const ClApi& cl = s.cl();
  std::string cached = CachePath(d);
  cl_int err = CL_SUCCESS;
  if (std::string bin = ReadKernelCache(cached); !bin.empty()) {  // "" also without a cache
    const unsigned char* bytes = reinterpret_cast<const unsigned char*>(bin.data());
    size_t len = bin.size();
    cl_int status = CL_SUCCESS;
    cl_program p = cl.clCreateProgramWithBinary(d.context, 1, &d.id, &len, &bytes, &status, &err);
    if (err == CL_SUCCESS && status == CL_SUCCESS && cl.clBuildProgram(p, 1, &d.id, nullptr, nullptr, nullptr) == CL_SUCCESS) {
      return p;
    }
    if (p) cl.clReleaseProgram(p);
    AOTRT_LOG_DEBUG("OpenCL program cache: ", cached, " is not usable on this device; building from source");
  }
  const char* text = source.c_str();
  size_t len = source.size();
  cl_program p = cl.clCreateProgramWithSource(d.context, 1, &text, &len, &err);
  if (err != CL_SUCCESS) ThrowClError(err, "clCreateProgramWithSource", StrCat("OpenCL kernel '", info.name, "'"));
  err = cl.clBuildProgram(p, 1, &d.id, nullptr, nullptr, nullptr);
  if (err != CL_SUCCESS) {
    size_t n = 0;
    cl.clGetProgramBuildInfo(p, d.id, CL_PROGRAM_BUILD_LOG, 0, nullptr, &n);
    std::string log(n, '\0');
    cl.clGetProgramBuildInfo(p, d.id, CL_PROGRAM_BUILD_LOG, n, log.data(), nullptr);
    while (!log.empty() && (log.back() == '\0' || log.back() == '\n')) log.pop_back();
    cl.clReleaseProgram(p);
    AOTRT_THROW(kModelError, "OpenCL kernel '", info.name, "' failed to build on device ", id, " (", d.name, "): ",
                ClErrorName(err), "; build log:\n", log);
  }
  unsaved[id] = !cached.empty();
  return p;
}

cl_kernel ClKernel::For(int id) {
  if (static_cast<size_t>(id) < kernels.size() && kernels[id]) return kernels[id];
  const OpenCLState& s = OpenCLState::Get();
  const ClDevice& d = s.device(id, StrCat("OpenCL kernel '", info.name, "'").c_str());
  programs[id] = Build(d, id);
  cl_int err = CL_SUCCESS;
  kernels[id] = s.cl().clCreateKernel(programs[id], info.name.c_str(), &err);
  if (err != CL_SUCCESS) ThrowClError(err, "clCreateKernel", StrCat("OpenCL kernel '", info.name, "'"));
  return kernels[id];
}

void ClKernel::Launch(TVMArgs args) {
  const size_t n = info.arg_types.size();
  launch.CheckCount("OpenCL", info.name, args.size());
  int id = OpenCLState::current_device;
  const OpenCLState& s = OpenCLState::Get();
  const ClApi& cl = s.cl();
  const TVMValue* v = args.values();
  std::lock_guard<std::mutex> lock(mu);
  cl_kernel k = For(id);
  for (size_t i = 0; i < n; ++i) {
    DLDataType t = info.arg_types[i];
    float f = static_cast<float>(v[i].v_float64);
    int32_t x = static_cast<int32_t>(v[i].v_int64);
    bool buffer = t.code == kTVMOpaqueHandle;
    const void* arg = &v[i];  // a buffer's cl_mem, an int64 or a float64 as it is
    if (!buffer && t.bits == 32) arg = t.code == kDLFloat ? static_cast<const void*>(&f) : &x;
    cl_int err = cl.clSetKernelArg(k, i, buffer ? sizeof(cl_mem) : t.bits / 8, arg);
    if (err != CL_SUCCESS) ThrowClError(err, "clSetKernelArg", StrCat("OpenCL kernel '", info.name, "' argument ", i));
  }
  KernelLaunch l = launch.Read(v);
  if (l.dyn_shared_bytes) {
    AOTRT_CL_CALL(cl.clSetKernelArg(k, n, l.dyn_shared_bytes, nullptr), StrCat("OpenCL kernel '", info.name, "'"));
  }
  size_t global[3], local[3];
  for (int d = 0; d < 3; ++d) {
    global[d] = l.grid[d] * l.block[d];
    local[d] = l.block[d];
  }
  cl_event event = nullptr;
  cl_int err = cl.clEnqueueNDRangeKernel(s.devices()[id].queue, k, static_cast<cl_uint>(launch.work_dim()), nullptr,
                                         global, local, 0, nullptr, OpenCLState::timed_launches ? &event : nullptr);
  if (event) OpenCLState::timed_launches->push_back(event);
  if (err != CL_SUCCESS) {
    ThrowClError(err, "clEnqueueNDRangeKernel",
                 StrCat("launching OpenCL kernel '", info.name, "' (global ", global[0], "x", global[1], "x", global[2],
                        ", local ", local[0], "x", local[1], "x", local[2], ")"));
  }
  if (unsaved[id]) {  // built from source by this process: one wait, then the binary with the launch's code
    AOTRT_CL_CALL(cl.clFinish(s.devices()[id].queue), StrCat("OpenCL kernel '", info.name, "'"));
    SaveBinary(id);
  }
}

class OpenCLModuleNode final : public DeviceModuleNode {
 public:
  OpenCLModuleNode(std::string fmt, std::map<std::string, KernelInfo> infos, std::string source, std::string cache)
      : DeviceModuleNode("OpenCL", kDLOpenCL, std::move(fmt), std::move(infos)), source_(std::move(source)),
        cache_dir_(std::move(cache)) {
    std::map<std::string, std::string> parts = SplitKernels(source_);
    for (const auto& [key, info] : infos_) {
      auto part = parts.find(key);
      // Without TVM's delimiters (older exports), every kernel's program is the whole source.
      kernels_.try_emplace(key, info, part == parts.end() ? source_ : part->second, cache_dir_);
    }
  }
  const char* type_key() const override { return "opencl"; }
  PackedFunc GetFunction(const std::string& name, const ObjectPtr<ModuleNode>& self) override {
    auto it = kernels_.find(name);
    if (it == kernels_.end()) return PackedFunc();
    for (size_t i = 0; i < it->second.info.arg_types.size(); ++i) {
      RequirePassableArg(StrCat("OpenCL kernel '", name, "'"), i, it->second.info.arg_types[i]);
    }
    return PackedFunc([k = &it->second, self](TVMArgs args, TVMRetValue*) { k->Launch(args); });
  }
  void SaveCode(std::string* out) const override { WriteString(source_, out); }
  void Prepare(int id) override {
    for (auto& [name, k] : kernels_) {
      std::lock_guard<std::mutex> lock(k.mu);
      k.For(id);
    }
  }
  void FirstRunDone(int id) override {  // a program still unsaved is of a kernel the model does not launch
    for (auto& [name, k] : kernels_) {
      std::lock_guard<std::mutex> lock(k.mu);
      if (k.unsaved[id]) k.SaveBinary(id);
    }
  }

 private:
  std::string source_;
  std::string cache_dir_;
  std::map<std::string, ClKernel> kernels_;
};

}  // namespace

ObjectPtr<ModuleNode> LoadOpenCLModule(BoundedReader& r, const LoadContext& ctx) {
  std::string fmt = r.ReadString("OpenCL module format");
  std::map<std::string, KernelInfo> infos = ReadKernelMap(r);
  std::string source = r.ReadString("OpenCL module source");
  AOTRT_REQUIRE(fmt == "cl", kNotImplemented, r.what(), ": OpenCL module of format '", fmt,
                "': aotrt builds OpenCL C source (format 'cl') only");
  std::string cache = ctx.options.compile_cache ? ctx.options.cache_dir : std::string();
  return MakeObject<OpenCLModuleNode>(std::move(fmt), std::move(infos), std::move(source), std::move(cache));
}

}  // namespace aotrt
