#include "device_module/function_info.h"

#include "aotrt/dtype.h"
#include "base/byte_reader.h"
#include "base/error_util.h"

namespace aotrt {

std::map<std::string, KernelInfo> ReadKernelMap(BoundedReader& r) {
  std::map<std::string, KernelInfo> kernels;
  uint64_t n = r.ReadCount("function map size", 32);
  for (uint64_t i = 0; i < n; ++i) {
    std::string key = r.ReadString("function map key");
    KernelInfo k;
    k.name = r.ReadString("function name");
    uint64_t nargs = r.ReadCount("argument types", 4);
    for (uint64_t a = 0; a < nargs; ++a) k.arg_types.push_back(r.Read<DLDataType>("argument type"));
    k.launch_param_tags = r.ReadStringVector("launch parameter tags");
    k.name = key;  // TVM's code generators leave FunctionInfo::name empty: the key names the kernel
    if (!kernels.emplace(key, std::move(k)).second) r.Fail(StrCat("function '", key, "' appears twice"));
  }
  return kernels;
}

void RequirePassableArg(const std::string& kernel, size_t i, DLDataType t) {
  bool ok = t.lanes == 1 && (t.code == kTVMOpaqueHandle || (t.code == kDLInt && (t.bits == 32 || t.bits == 64)) ||
                             (t.code == kDLUInt && t.bits == 32) || (t.code == kDLFloat && (t.bits == 32 || t.bits == 64)));
  AOTRT_REQUIRE(ok, kNotImplemented, kernel, " argument ", i, " has type ", DataTypeToString(t),
                ", which cannot be passed to a device function (int32/64, uint32, float32/64 or a buffer)");
}

LaunchConfig::LaunchConfig(const KernelInfo& kernel) : base_(kernel.arg_types.size()) {
  const std::vector<std::string>& tags = kernel.launch_param_tags;
  bool filled[6] = {false, false, false, false, false, false};
  for (size_t i = 0; i < tags.size(); ++i) {
    const std::string& tag = tags[i];
    if (tag == "tir.use_dyn_shared_memory") {
      AOTRT_REQUIRE(i + 1 == tags.size(), kFormatError, "kernel '", kernel.name,
                    "': tir.use_dyn_shared_memory must be the last launch tag");
      dyn_shared_ = true;
      continue;
    }
    int rank = tag.rfind("blockIdx.", 0) == 0 ? 0 : tag.rfind("threadIdx.", 0) == 0 ? 1 : -1;
    char axis = tag.empty() ? '\0' : tag.back();
    AOTRT_REQUIRE(rank >= 0 && tag.size() == (rank == 0 ? 10u : 11u) && axis >= 'x' && axis <= 'z', kFormatError,
                  "kernel '", kernel.name, "': unknown launch tag '", tag,
                  "' (expected blockIdx.x/y/z, threadIdx.x/y/z or tir.use_dyn_shared_memory)");
    int slot = rank * 3 + (axis - 'x');
    index_.push_back(slot);
    filled[slot] = true;
  }
  for (size_t d = 0; d < 3; ++d) {
    if (filled[d] || filled[d + 3]) work_dim_ = d + 1;
  }
}

void LaunchConfig::CheckCount(const char* api, const std::string& kernel, int num_values) const {
  AOTRT_REQUIRE(static_cast<size_t>(num_values) == base_ + num_extents(), kInvalidArgument, api, " kernel '", kernel,
                "' takes ", base_, " arguments and ", num_extents(), " launch extents, got ", num_values, " values");
}

KernelLaunch LaunchConfig::Read(const TVMValue* values) const {
  KernelLaunch l;
  size_t* sizes[6] = {&l.grid[0], &l.grid[1], &l.grid[2], &l.block[0], &l.block[1], &l.block[2]};
  for (size_t i = 0; i < index_.size(); ++i) {
    int64_t v = values[base_ + i].v_int64;
    if (v > 0) *sizes[index_[i]] = static_cast<size_t>(v);  // a dynamic shape's 0 launches one, as TVM
  }
  if (dyn_shared_) l.dyn_shared_bytes = static_cast<size_t>(values[base_ + index_.size()].v_int64);
  return l;
}

}  // namespace aotrt
