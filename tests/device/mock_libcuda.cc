// A stand-in for the NVIDIA driver's libcuda.so.1, built only for the tests (as libcuda.so.1 in its own
// folder, put first on LD_LIBRARY_PATH), so that the CUDA driver and module of aotrt run their real
// plumbing on a machine without a GPU: two devices whose CUdevice handles differ from their ordinals, a
// primary context per device that must be current in the calling thread, host memory for device memory
// (every device pointer checked against the live allocations), copies as memcpy, streams that only
// exist, PTX modules whose .entry names and .param sizes are read, and launches recorded (grid, block,
// shared bytes, stream, the bytes each kernelParams entry points to). It computes nothing.
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <map>
#include <mutex>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "device/mock_libcuda.h"

namespace {

enum : int {
  kSuccess = 0, kInvalidValue = 1, kOutOfMemory = 2, kInvalidDevice = 101, kInvalidImage = 200,
  kInvalidContext = 201, kInvalidPtx = 218, kInvalidHandle = 400, kNotFound = 500, kNotReady = 600, kLaunchFailed = 719
};
constexpr int kDevices = 2;

struct Context { int device; };
struct Entry {
  std::string name;
  std::vector<int> param_bytes;
  int max_dynamic_shared = 48 << 10;
};
struct Module {
  Context* ctx;
  std::vector<Entry*> entries;  // owned
  bool any_name = false;        // a cubin or fatbin: its names are not read
};

std::mutex mu;
Context contexts[kDevices] = {{0}, {1}};
// Each thread's current context. Not a thread_local: LeakSanitizer's tracer (GCC 12) can crash scanning the
// dynamic TLS of a dlopen'ed library at exit.
std::map<std::thread::id, Context*> current_of;
Context*& Current() { return current_of[std::this_thread::get_id()]; }
std::map<uintptr_t, size_t> allocations;
std::set<void*> modules, streams;
std::map<void*, long> events;  // the launches made before each was recorded (-1: not recorded)
std::vector<MockCudaLaunch> launches;
MockCudaStats stats;
std::string fail_fn;
int fail_result = 0, fail_skip = 0;

int Inject(const char* fn) {
  if (fail_fn != fn) return kSuccess;
  if (fail_skip-- > 0) return kSuccess;
  fail_fn.clear();
  return fail_result;
}

// Whether [p, p + n) lies in one live allocation.
bool InDevice(uintptr_t p, size_t n) {
  auto it = allocations.upper_bound(p);
  if (it == allocations.begin()) return false;
  --it;
  return p >= it->first && p + n <= it->first + it->second;
}

int ParamBytes(const std::string& type) {
  if (type.size() < 3) return 0;
  int bits = std::atoi(type.c_str() + 2);
  return bits / 8;
}

// Every ".entry name(.param .type name, ...)" of a PTX text.
std::vector<Entry*> ParsePtx(const std::string& ptx) {
  std::vector<Entry*> out;
  for (size_t at = ptx.find(".entry "); at != std::string::npos; at = ptx.find(".entry ", at + 1)) {
    size_t open = ptx.find('(', at), close = ptx.find(')', open);
    auto* e = new Entry;
    e->name = ptx.substr(at + 7, open - at - 7);
    while (!e->name.empty() && e->name.back() == ' ') e->name.pop_back();
    for (size_t p = ptx.find(".param ", open); p != std::string::npos && p < close; p = ptx.find(".param ", p + 1)) {
      size_t t = ptx.find('.', p + 7);
      e->param_bytes.push_back(ParamBytes(ptx.substr(t, ptx.find(' ', t) - t)));
    }
    out.push_back(e);
  }
  return out;
}

}  // namespace

#define LOCK std::lock_guard<std::mutex> lock(mu)
#define INJECT(fn) \
  if (int r = Inject(fn)) return r
#define NEED_CONTEXT \
  if (!Current()) return kInvalidContext

extern "C" {

__attribute__((visibility("default"))) int mock_cuda_num_launches() {
  LOCK;
  return static_cast<int>(launches.size());
}
__attribute__((visibility("default"))) const MockCudaLaunch* mock_cuda_launch(int i) {
  LOCK;
  return i >= 0 && i < static_cast<int>(launches.size()) ? &launches[i] : nullptr;
}
__attribute__((visibility("default"))) void mock_cuda_clear() {
  LOCK;
  launches.clear();
}
__attribute__((visibility("default"))) void mock_cuda_stats(MockCudaStats* out) {
  LOCK;
  *out = stats;
  out->live_allocations = static_cast<long>(allocations.size());
  out->live_modules = static_cast<long>(modules.size());
  out->live_streams = static_cast<long>(streams.size());
  out->live_events = static_cast<long>(events.size());
}
__attribute__((visibility("default"))) void mock_cuda_fail(const char* fn, int result, int skip) {
  LOCK;
  fail_fn = fn;
  fail_result = result;
  fail_skip = skip;
}

__attribute__((visibility("default"))) void mock_cuda_drop_context() {
  LOCK;
  Current() = nullptr;
}

int cuInit(unsigned flags) { return flags == 0 ? kSuccess : kInvalidValue; }
int cuDeviceGetCount(int* n) {
  *n = kDevices;
  return kSuccess;
}
int cuDeviceGet(int* dev, int ordinal) {
  if (ordinal < 0 || ordinal >= kDevices) return kInvalidDevice;
  *dev = 100 + ordinal;  // not the ordinal: a driver that passes ordinals as CUdevice fails
  return kSuccess;
}
int cuDeviceGetName(char* name, int len, int dev) {
  if (dev < 100 || dev >= 100 + kDevices) return kInvalidDevice;
  std::snprintf(name, len, "Mock CUDA Device %d", dev - 100);
  return kSuccess;
}
int cuDeviceGetAttribute(int* v, int attr, int dev) {
  if (dev < 100 || dev >= 100 + kDevices) return kInvalidDevice;
  static const std::map<int, int> kValues = {{1, 1024}, {2, 1024}, {3, 1024}, {4, 64}, {8, 49152}, {10, 32},
                                             {12, 65536}, {13, 1410000}, {16, 108}, {38, 41943040}, {75, 8}, {76, 0}};
  auto it = kValues.find(attr);
  if (it == kValues.end()) return kInvalidValue;
  *v = it->second;
  return kSuccess;
}
int cuDeviceTotalMem_v2(size_t* bytes, int dev) {
  if (dev < 100 || dev >= 100 + kDevices) return kInvalidDevice;
  *bytes = size_t{80} << 30;
  return kSuccess;
}
int cuDevicePrimaryCtxRetain(void** ctx, int dev) {
  LOCK;
  if (dev < 100 || dev >= 100 + kDevices) return kInvalidDevice;
  *ctx = &contexts[dev - 100];
  ++stats.retains;
  return kSuccess;
}
int cuCtxSetCurrent(void* ctx) {
  LOCK;
  Current() = static_cast<Context*>(ctx);
  return kSuccess;
}
int cuCtxSynchronize() {
  LOCK;
  NEED_CONTEXT;
  INJECT("cuCtxSynchronize");
  ++stats.syncs;
  return kSuccess;
}
int cuGetErrorName(int err, const char** name) {
  static const std::map<int, const char*> kNames = {
      {kSuccess, "CUDA_SUCCESS"}, {kInvalidValue, "CUDA_ERROR_INVALID_VALUE"}, {kOutOfMemory, "CUDA_ERROR_OUT_OF_MEMORY"},
      {kInvalidDevice, "CUDA_ERROR_INVALID_DEVICE"}, {kInvalidImage, "CUDA_ERROR_INVALID_IMAGE"},
      {kInvalidContext, "CUDA_ERROR_INVALID_CONTEXT"}, {kInvalidPtx, "CUDA_ERROR_INVALID_PTX"},
      {kInvalidHandle, "CUDA_ERROR_INVALID_HANDLE"}, {kNotFound, "CUDA_ERROR_NOT_FOUND"},
      {kLaunchFailed, "CUDA_ERROR_LAUNCH_FAILED"}};
  auto it = kNames.find(err);
  *name = it == kNames.end() ? nullptr : it->second;
  return it == kNames.end() ? kInvalidValue : kSuccess;
}

int cuMemAlloc_v2(uintptr_t* p, size_t n) {
  LOCK;
  NEED_CONTEXT;
  INJECT("cuMemAlloc_v2");
  if (n == 0) return kInvalidValue;
  void* mem = std::aligned_alloc(256, (n + 255) / 256 * 256);
  if (!mem) return kOutOfMemory;
  *p = reinterpret_cast<uintptr_t>(mem);
  allocations[*p] = n;
  return kSuccess;
}
int cuMemFree_v2(uintptr_t p) {
  LOCK;
  NEED_CONTEXT;
  if (!allocations.erase(p)) return kInvalidValue;
  std::free(reinterpret_cast<void*>(p));
  return kSuccess;
}
int CheckStream(void* s) { return s == nullptr || streams.count(s) ? kSuccess : kInvalidHandle; }
int cuMemcpyHtoDAsync_v2(uintptr_t dst, const void* src, size_t n, void* s) {
  LOCK;
  NEED_CONTEXT;
  if (!InDevice(dst, n)) return kInvalidValue;
  std::memcpy(reinterpret_cast<void*>(dst), src, n);
  return CheckStream(s);
}
int cuMemcpyDtoHAsync_v2(void* dst, uintptr_t src, size_t n, void* s) {
  LOCK;
  NEED_CONTEXT;
  if (!InDevice(src, n)) return kInvalidValue;
  std::memcpy(dst, reinterpret_cast<const void*>(src), n);
  return CheckStream(s);
}
int cuMemcpyDtoDAsync_v2(uintptr_t dst, uintptr_t src, size_t n, void* s) {
  LOCK;
  NEED_CONTEXT;
  if (!InDevice(dst, n) || !InDevice(src, n)) return kInvalidValue;
  std::memmove(reinterpret_cast<void*>(dst), reinterpret_cast<const void*>(src), n);
  return CheckStream(s);
}
int cuStreamCreate(void** s, unsigned) {
  LOCK;
  NEED_CONTEXT;
  *s = new char;
  streams.insert(*s);
  return kSuccess;
}
int cuStreamDestroy_v2(void* s) {
  LOCK;
  if (!streams.erase(s)) return kInvalidHandle;
  delete static_cast<char*>(s);
  return kSuccess;
}
int cuStreamSynchronize(void* s) {
  LOCK;
  NEED_CONTEXT;
  ++stats.syncs;
  return CheckStream(s);
}

int cuModuleLoadData(void** out, const void* image) {
  LOCK;
  NEED_CONTEXT;
  INJECT("cuModuleLoadData");
  auto* m = new Module{Current(), {}, false};
  const auto* bytes = static_cast<const unsigned char*>(image);
  uint32_t magic = 0;
  std::memcpy(&magic, bytes, 4);
  if (std::memcmp(bytes, "\x7f" "ELF", 4) == 0 || magic == 0xBA55ED50u) {
    m->any_name = true;  // a cubin or a fatbin
  } else {
    std::string ptx(static_cast<const char*>(image));
    if (ptx.find(".version") == std::string::npos) {
      delete m;
      return ptx.find(".entry") == std::string::npos ? kInvalidImage : kInvalidPtx;
    }
    m->entries = ParsePtx(ptx);
  }
  modules.insert(m);
  ++stats.module_loads;
  *out = m;
  return kSuccess;
}
int cuModuleUnload(void* mod) {
  LOCK;
  if (!modules.erase(mod)) return kInvalidHandle;
  auto* m = static_cast<Module*>(mod);
  for (Entry* e : m->entries) delete e;
  delete m;
  return kSuccess;
}
int cuModuleGetFunction(void** f, void* mod, const char* name) {
  LOCK;
  if (!modules.count(mod)) return kInvalidHandle;
  auto* m = static_cast<Module*>(mod);
  ++stats.function_lookups;
  for (Entry* e : m->entries) {
    if (e->name == name) return *f = e, kSuccess;
  }
  if (!m->any_name) return kNotFound;
  m->entries.push_back(new Entry{name, {}});
  *f = m->entries.back();
  return kSuccess;
}
int cuFuncSetAttribute(void* f, int attr, int value) {
  LOCK;
  if (attr == 8) static_cast<Entry*>(f)->max_dynamic_shared = value;
  ++stats.func_attribute_sets;
  stats.last_func_attribute = attr;
  stats.last_func_attribute_value = value;
  return kSuccess;
}
int cuLaunchKernel(void* f, unsigned gx, unsigned gy, unsigned gz, unsigned bx, unsigned by, unsigned bz, unsigned shared,
                   void* stream, void** params, void** extra) {
  LOCK;
  NEED_CONTEXT;
  INJECT("cuLaunchKernel");
  auto* e = static_cast<Entry*>(f);
  if (gx == 0 || gy == 0 || gz == 0 || bx * by * bz == 0 || bx * by * bz > 1024 || bz > 64) return kInvalidValue;
  if (static_cast<int>(shared) > e->max_dynamic_shared || extra != nullptr) return kInvalidValue;
  if (!e->param_bytes.empty() && params == nullptr) return kInvalidValue;
  if (int r = CheckStream(stream)) return r;
  MockCudaLaunch l{};
  std::snprintf(l.kernel, sizeof(l.kernel), "%s", e->name.c_str());
  l.device = Current()->device;
  unsigned dims[6] = {gx, gy, gz, bx, by, bz};
  std::memcpy(l.grid, dims, sizeof(l.grid));
  std::memcpy(l.block, dims + 3, sizeof(l.block));
  l.shared_bytes = shared;
  l.stream = stream;
  l.num_params = static_cast<int>(e->param_bytes.size());
  for (int i = 0; i < l.num_params && i < 32; ++i) {
    l.param_bytes[i] = e->param_bytes[i];
    std::memcpy(l.params[i], params[i], e->param_bytes[i] > 8 ? 8 : e->param_bytes[i]);
  }
  launches.push_back(l);
  ++stats.launches;
  return kSuccess;
}

// The mock's clock: every launch takes 0.5 ms of device time.
int cuEventCreate(void** e, unsigned flags) {
  LOCK;
  NEED_CONTEXT;
  INJECT("cuEventCreate");
  if (flags != 0) return kInvalidValue;
  *e = new char;
  events[*e] = -1;
  return kSuccess;
}
int cuEventRecord(void* e, void* s) {
  LOCK;
  NEED_CONTEXT;
  auto it = events.find(e);
  if (it == events.end()) return kInvalidHandle;
  if (int r = CheckStream(s)) return r;
  it->second = stats.launches;
  return kSuccess;
}
int cuEventSynchronize(void* e) {
  LOCK;
  return events.count(e) ? kSuccess : kInvalidHandle;
}
int cuEventElapsedTime(float* ms, void* a, void* b) {
  LOCK;
  auto start = events.find(a), end = events.find(b);
  if (start == events.end() || end == events.end()) return kInvalidHandle;
  if (start->second < 0 || end->second < 0) return kNotReady;
  *ms = static_cast<float>(end->second - start->second) * 0.5f;
  return kSuccess;
}
int cuEventDestroy_v2(void* e) {
  LOCK;
  if (!events.erase(e)) return kInvalidHandle;
  delete static_cast<char*>(e);
  return kSuccess;
}

}  // extern "C"
