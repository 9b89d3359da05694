// The OpenCL driver: device discovery through the ICD loader opened at run time, buffers and
// images (TVM's texture storage), copies, queues and attributes (DeviceAPI). A data pointer on an
// OpenCL device is its cl_mem, a buffer or an image2d.
#include "device/opencl/opencl_driver.h"

#include <dlfcn.h>

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <mutex>
#include <unordered_map>

#include "aotrt/dtype.h"
#include "base/error_util.h"
#include "device/device_api.h"
#include "device/texture.h"

namespace aotrt {

std::string ClErrorName(cl_int err) {
#define AOTRT_CL_ERROR(e) {e, #e},
  static const std::pair<cl_int, const char*> kNames[] = {
      AOTRT_CL_ERROR(CL_DEVICE_NOT_FOUND) AOTRT_CL_ERROR(CL_MEM_OBJECT_ALLOCATION_FAILURE)
      AOTRT_CL_ERROR(CL_OUT_OF_RESOURCES) AOTRT_CL_ERROR(CL_OUT_OF_HOST_MEMORY) AOTRT_CL_ERROR(CL_BUILD_PROGRAM_FAILURE)
      AOTRT_CL_ERROR(CL_INVALID_VALUE) AOTRT_CL_ERROR(CL_INVALID_BINARY) AOTRT_CL_ERROR(CL_INVALID_KERNEL_NAME)
      AOTRT_CL_ERROR(CL_INVALID_MEM_OBJECT) AOTRT_CL_ERROR(CL_INVALID_ARG_INDEX) AOTRT_CL_ERROR(CL_INVALID_ARG_VALUE)
      AOTRT_CL_ERROR(CL_INVALID_ARG_SIZE) AOTRT_CL_ERROR(CL_INVALID_KERNEL_ARGS) AOTRT_CL_ERROR(CL_INVALID_WORK_GROUP_SIZE)
      AOTRT_CL_ERROR(CL_INVALID_WORK_ITEM_SIZE) AOTRT_CL_ERROR(CL_INVALID_BUFFER_SIZE) {-1001, "CL_PLATFORM_NOT_FOUND_KHR"}};
#undef AOTRT_CL_ERROR
  auto it = std::find_if(std::begin(kNames), std::end(kNames), [err](const auto& n) { return n.first == err; });
  return StrCat(it == std::end(kNames) ? "an OpenCL error" : it->second, " (", err, ")");
}

void ThrowClError(cl_int err, const char* call, const std::string& what) {
  ThrowDriverError("OpenCL", call, ClErrorName(err), err == CL_MEM_OBJECT_ALLOCATION_FAILURE ||
                   err == CL_OUT_OF_HOST_MEMORY || err == CL_INVALID_BUFFER_SIZE, what);
}

namespace {

// A string property of a device (CL_DEVICE_NAME, ...), "" when it cannot be read.
std::string ClDeviceString(const ClApi& cl, cl_device_id dev, cl_device_info what) {
  size_t n = 0;
  if (cl.clGetDeviceInfo(dev, what, 0, nullptr, &n) != CL_SUCCESS || n == 0) return "";
  std::string s(n, '\0');
  if (cl.clGetDeviceInfo(dev, what, n, s.data(), nullptr) != CL_SUCCESS) return "";
  while (!s.empty() && s.back() == '\0') s.pop_back();
  return s;
}

}  // namespace

OpenCLState::OpenCLState() {
  // Opened once and never closed: kernels and buffers live as long as the process may use them.
  void* lib = ::dlopen("libOpenCL.so.1", RTLD_NOW | RTLD_LOCAL);
  if (!lib) lib = ::dlopen("libOpenCL.so", RTLD_NOW | RTLD_LOCAL);
  if (!lib) {
    why_none_ = "the OpenCL ICD loader libOpenCL.so.1 is not installed: install it with a platform, e.g. Debian's "
                "ocl-icd-libopencl1 and pocl-opencl-icd, or your GPU vendor's OpenCL driver";
    return;
  }
  std::string missing;
#define AOTRT_CL_RESOLVE(name)                                                  \
  cl_.name = reinterpret_cast<decltype(cl_.name)>(::dlsym(lib, #name));         \
  if (!cl_.name) missing += (missing.empty() ? "" : ", ") + std::string(#name);
  AOTRT_CL_FUNCTIONS(AOTRT_CL_RESOLVE)
#undef AOTRT_CL_RESOLVE
  if (!missing.empty()) {
    why_none_ = "libOpenCL.so.1 lacks " + missing + " (OpenCL 1.2 is needed)";
    return;
  }
  cl_uint n = 0;
  if (cl_.clGetPlatformIDs(0, nullptr, &n) != CL_SUCCESS || n == 0) {
    why_none_ = "no OpenCL platform found: install one, e.g. Debian's pocl-opencl-icd, or your GPU vendor's driver";
    return;
  }
  std::vector<cl_platform_id> platforms(n);
  cl_.clGetPlatformIDs(n, platforms.data(), nullptr);
  std::vector<ClDevice> gpus, all;
  for (cl_platform_id p : platforms) {
    char pname[256] = {0};
    cl_.clGetPlatformInfo(p, CL_PLATFORM_NAME, sizeof(pname) - 1, pname, nullptr);
    cl_uint count = 0;
    if (cl_.clGetDeviceIDs(p, CL_DEVICE_TYPE_ALL, 0, nullptr, &count) != CL_SUCCESS || count == 0) continue;
    std::vector<cl_device_id> ids(count);
    cl_.clGetDeviceIDs(p, CL_DEVICE_TYPE_ALL, count, ids.data(), nullptr);
    for (cl_device_id id : ids) {
      cl_device_type type = 0;
      cl_.clGetDeviceInfo(id, CL_DEVICE_TYPE, sizeof(type), &type, nullptr);
      (type & CL_DEVICE_TYPE_GPU ? gpus : all).push_back(ClDevice{p, id, nullptr, nullptr, "", "", "", pname});
    }
  }
  std::vector<ClDevice> chosen = gpus.empty() ? all : gpus;
  for (ClDevice& d : chosen) {
    cl_int err = CL_SUCCESS;
    cl_context_properties props[] = {CL_CONTEXT_PLATFORM, reinterpret_cast<cl_context_properties>(d.platform), 0};
    d.context = cl_.clCreateContext(props, 1, &d.id, nullptr, nullptr, &err);
    if (err != CL_SUCCESS) continue;
    d.queue = cl_.clCreateCommandQueue(d.context, d.id, CL_QUEUE_PROFILING_ENABLE, &err);
    if (err != CL_SUCCESS) {
      cl_.clReleaseContext(d.context);
      continue;
    }
    d.name = ClDeviceString(cl_, d.id, CL_DEVICE_NAME);
    d.version = ClDeviceString(cl_, d.id, CL_DEVICE_VERSION);
    d.driver = ClDeviceString(cl_, d.id, CL_DRIVER_VERSION);
    devices_.push_back(d);
  }
  if (devices_.empty()) why_none_ = "the OpenCL platforms found have no usable device";
  std::atexit([] { exiting = true; });
}

const ClDevice& OpenCLState::device(int id, const char* what) const {
  RequireDeviceId(what, "OpenCL", id, devices_.size(), why_none_);
  return devices_[id];
}

namespace {

// TVM's image channel type of a texture's dtype (opencl_common.h).
cl_channel_type ChannelType(DLDataType t, const std::string& what) {
  if (t.lanes == 1 && t.code == kDLFloat && (t.bits == 32 || t.bits == 16)) return t.bits == 32 ? CL_FLOAT : CL_HALF_FLOAT;
  if (t.lanes == 1 && (t.code == kDLInt || t.code == kDLUInt) && (t.bits == 8 || t.bits == 16 || t.bits == 32)) {
    static const cl_channel_type types[2][3] = {{CL_SIGNED_INT8, CL_SIGNED_INT16, CL_SIGNED_INT32},
                                                {CL_UNSIGNED_INT8, CL_UNSIGNED_INT16, CL_UNSIGNED_INT32}};
    return types[t.code == kDLUInt][t.bits == 8 ? 0 : t.bits == 16 ? 1 : 2];
  }
  AOTRT_THROW(kInvalidArgument, what, ": an image cannot hold ", DataTypeToString(t),
              " (float16/32, int8/16/32, uint8/16/32)");
}

class OpenCLDriverImpl final : public DeviceAPI {
 public:
  const char* name() const override { return "opencl"; }
  int NumDevices() override { return static_cast<int>(OpenCLState::Get().devices().size()); }
  std::string WhyNoDevice() override { return OpenCLState::Get().why_none(); }

  void* Alloc(int id, size_t bytes, size_t, const std::string& scope) override {
    AOTRT_REQUIRE(scope.empty() || scope == "global", kNotImplemented, "memory scope '", scope,
                  "' is not one of an OpenCL buffer ('global'); texture scopes are images allocated with their shape");
    const OpenCLState& s = OpenCLState::Get();
    const ClDevice& d = s.device(id, "OpenCL allocation");
    cl_int err = CL_SUCCESS;
    // Alignment: a buffer starts where the device's base address alignment says (CL_DEVICE_MEM_BASE_ADDR_ALIGN).
    cl_mem mem = s.cl().clCreateBuffer(d.context, CL_MEM_READ_WRITE, std::max<size_t>(bytes, 1), nullptr, &err);
    if (err != CL_SUCCESS) ThrowClError(err, "clCreateBuffer", StrCat("allocating ", bytes, " bytes on OpenCL device ", id));
    return mem;
  }

  void* AllocTexture(int id, const int64_t* shape, int ndim, DLDataType dtype, const std::string& scope) override {
    const OpenCLState& s = OpenCLState::Get();
    const ClDevice& d = s.device(id, "OpenCL texture allocation");
    std::string what = StrCat("texture storage (scope '", scope, "') of ", DataTypeToString(dtype),
                              ShapeToString(shape, ndim), " on OpenCL device ", id, " (", d.name, ")");
    TextureShape t = FlattenToTexture(shape, ndim, scope, what);
    cl_bool images = CL_FALSE;
    s.cl().clGetDeviceInfo(d.id, CL_DEVICE_IMAGE_SUPPORT, sizeof(images), &images, nullptr);
    AOTRT_REQUIRE(images, kNotImplemented, what, ": the device has no image support, which this export's schedule ",
                  "(an Adreno or Mali one) needs; compile the model for a plain OpenCL target to run it here");
    cl_image_format format = {CL_RGBA, ChannelType(dtype, what)};
    cl_image_desc desc{};
    desc.image_type = CL_MEM_OBJECT_IMAGE2D;
    desc.image_width = t.width;
    desc.image_height = t.height;
    cl_int err = CL_SUCCESS;
    cl_mem mem = s.cl().clCreateImage(d.context, CL_MEM_READ_WRITE, &format, &desc, nullptr, &err);
    if (err != CL_SUCCESS) ThrowClError(err, "clCreateImage", StrCat(what, " (", t.width, "x", t.height, " texels)"));
    std::lock_guard<std::mutex> lock(images_mu_);
    image_scope_[mem] = scope;
    return mem;
  }

  void Free(int, void* data) noexcept override {
    if (!data) return;
    {
      std::lock_guard<std::mutex> lock(images_mu_);
      image_scope_.erase(data);
    }
    OpenCLState::Get().cl().clReleaseMemObject(static_cast<cl_mem>(data));
  }

  void Copy(const DLTensor& from, const DLTensor& to, size_t bytes, void* stream) override {
    if (bytes == 0) return;
    const OpenCLState& s = OpenCLState::Get();
    const ClApi& cl = s.cl();
    auto [from_dev, to_dev, id] = DeviceCopyEnds(from, to, kDLOpenCL, "OpenCL");
    cl_command_queue q = stream ? static_cast<cl_command_queue>(stream) : s.device(id, "OpenCL copy").queue;
    std::string what = StrCat("copying ", bytes, " bytes ", from_dev ? "from" : "to", " OpenCL device ", id);
    auto mem = [](const DLTensor& t) { return static_cast<cl_mem>(t.data); };
    // An image's texels: the region of the tensor's shape in its scope, TVM's (an image ignores byte offsets).
    size_t origin[3] = {0, 0, 0}, from_region[3] = {0, 0, 1}, to_region[3] = {0, 0, 1};
    bool from_image = from_dev && ImageRegion(from, what, from_region), to_image = to_dev && ImageRegion(to, what, to_region);
    if (from_dev && to_dev) {
      if (from_image && to_image) {
        AOTRT_CL_CALL(cl.clEnqueueCopyImage(q, mem(from), mem(to), origin, origin, to_region, 0, nullptr, nullptr), what);
      } else if (from_image) {
        AOTRT_CL_CALL(cl.clEnqueueCopyImageToBuffer(q, mem(from), mem(to), origin, from_region, to.byte_offset, 0,
                                                    nullptr, nullptr), what);
      } else if (to_image) {
        AOTRT_CL_CALL(cl.clEnqueueCopyBufferToImage(q, mem(from), mem(to), from.byte_offset, origin, to_region, 0,
                                                    nullptr, nullptr), what);
      } else {
        AOTRT_CL_CALL(cl.clEnqueueCopyBuffer(q, mem(from), mem(to), from.byte_offset, to.byte_offset, bytes, 0, nullptr,
                                             nullptr), what);
      }
    } else if (from_dev) {
      char* host = static_cast<char*>(to.data) + to.byte_offset;
      cl_int err = from_image ? cl.clEnqueueReadImage(q, mem(from), CL_TRUE, origin, from_region, 0, 0, host, 0, nullptr, nullptr)
                              : cl.clEnqueueReadBuffer(q, mem(from), CL_TRUE, from.byte_offset, bytes, host, 0, nullptr, nullptr);
      if (err != CL_SUCCESS) ThrowClError(err, from_image ? "clEnqueueReadImage" : "clEnqueueReadBuffer", what);
    } else {
      const char* host = static_cast<const char*>(from.data) + from.byte_offset;
      cl_int err = to_image ? cl.clEnqueueWriteImage(q, mem(to), CL_TRUE, origin, to_region, 0, 0, host, 0, nullptr, nullptr)
                            : cl.clEnqueueWriteBuffer(q, mem(to), CL_TRUE, to.byte_offset, bytes, host, 0, nullptr, nullptr);
      if (err != CL_SUCCESS) ThrowClError(err, to_image ? "clEnqueueWriteImage" : "clEnqueueWriteBuffer", what);
    }
  }

  void Sync(int id, void* stream) override {
    const OpenCLState& s = OpenCLState::Get();
    cl_command_queue q = stream ? static_cast<cl_command_queue>(stream) : s.device(id, "OpenCL synchronize").queue;
    const ClApi& cl = s.cl();
    AOTRT_CL_CALL(cl.clFinish(q), StrCat("waiting for OpenCL device ", id));
  }

  // The sum of the kernels' own times (their events' start to end), as TVM's OpenCL timer.
  double TimeOnDevice(int id, const std::function<void()>& enqueue) override {
    struct Launches {  // released however the timing ends
      const ClApi& cl;
      std::vector<cl_event> events;
      ~Launches() {
        OpenCLState::timed_launches = nullptr;
        for (cl_event e : events) cl.clReleaseEvent(e);
      }
    } launches{OpenCLState::Get().cl(), {}};
    OpenCLState::timed_launches = &launches.events;
    enqueue();
    OpenCLState::timed_launches = nullptr;
    Sync(id, nullptr);
    double ns = 0;
    for (cl_event e : launches.events) {
      cl_ulong t[2] = {0, 0};
      for (cl_profiling_info at : {CL_PROFILING_COMMAND_START, CL_PROFILING_COMMAND_END}) {
        AOTRT_CL_CALL(launches.cl.clGetEventProfilingInfo(e, at, sizeof(cl_ulong), &t[at == CL_PROFILING_COMMAND_END],
                                                          nullptr), "timing an OpenCL kernel");
      }
      ns += static_cast<double>(t[1] - t[0]);
    }
    return ns / 1e6;
  }

  void SetDevice(int id) override { OpenCLState::current_device = id; }  // checked by RequireDevice

  void GetAttr(int id, DeviceAttr kind, TVMRetValue* rv) override {
    const OpenCLState& s = OpenCLState::Get();
    const ClDevice& d = s.device(id, "runtime.GetDeviceAttr");
    auto number = [&](cl_device_info info, auto zero) {
      decltype(zero) v = zero;
      s.cl().clGetDeviceInfo(d.id, info, sizeof(v), &v, nullptr);
      rv->SetInt(static_cast<int64_t>(v));
    };
    switch (kind) {
      case DeviceAttr::kMaxThreadsPerBlock: return number(CL_DEVICE_MAX_WORK_GROUP_SIZE, size_t{0});
      case DeviceAttr::kWarpSize: return rv->SetInt(1);  // OpenCL has no warp size; TVM answers 1
      case DeviceAttr::kMaxSharedMemoryPerBlock: return number(CL_DEVICE_LOCAL_MEM_SIZE, cl_ulong{0});
      case DeviceAttr::kComputeVersion: return rv->SetString(d.version);
      case DeviceAttr::kDeviceName: return rv->SetString(d.name);
      case DeviceAttr::kMaxClockRate: return number(CL_DEVICE_MAX_CLOCK_FREQUENCY, cl_uint{0});
      case DeviceAttr::kMultiProcessorCount: return number(CL_DEVICE_MAX_COMPUTE_UNITS, cl_uint{0});
      case DeviceAttr::kMaxThreadDimensions: {
        size_t dims[3] = {0, 0, 0};
        s.cl().clGetDeviceInfo(d.id, CL_DEVICE_MAX_WORK_ITEM_SIZES, sizeof(dims), dims, nullptr);
        return rv->SetString(StrCat("[", dims[0], ", ", dims[1], ", ", dims[2], "]"));
      }
      case DeviceAttr::kDriverVersion: return rv->SetString(d.driver);
      case DeviceAttr::kTotalGlobalMemory: return number(CL_DEVICE_GLOBAL_MEM_SIZE, cl_ulong{0});
      default: return;  // not an OpenCL attribute: none, as TVM's OpenCL API answers
    }
  }

 private:
  // Whether `t` is an image; if so its region, from its shape in the image's scope.
  bool ImageRegion(const DLTensor& t, const std::string& what, size_t region[3]) {
    std::string scope;
    {
      std::lock_guard<std::mutex> lock(images_mu_);
      auto it = image_scope_.find(t.data);
      if (it == image_scope_.end()) return false;
      scope = it->second;
    }
    TextureShape shape = FlattenToTexture(t.shape, t.ndim, scope, what);
    region[0] = shape.width;
    region[1] = shape.height;
    return true;
  }

  std::mutex images_mu_;
  std::unordered_map<void*, std::string> image_scope_;  // the images made here, by cl_mem: their scope
};

}  // namespace

DeviceAPI* OpenCLDriver() { static auto* driver = new OpenCLDriverImpl(); return driver; }  // never destroyed

}  // namespace aotrt
