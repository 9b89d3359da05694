// What every device code module of a blob carries (opencl, cuda, vulkan: TVM's FunctionInfo) and
// how a kernel's launch is read from its trailing arguments (TVM's launch_param_tags).
#pragma once

#include <dlpack/dlpack.h>

#include <cstddef>
#include <map>
#include <string>
#include <vector>

#include "aotrt/packed_func.h"

namespace aotrt {

class BoundedReader;

struct KernelInfo {
  std::string name;
  std::vector<DLDataType> arg_types;
  std::vector<std::string> launch_param_tags;
};

// The function map as TVM writes it (a u64 count, then name and FunctionInfo pairs), each kernel's
// argument types and tags checked. Throws kFormatError naming the kernel and what is wrong.
std::map<std::string, KernelInfo> ReadKernelMap(BoundedReader& r);

// Throws kNotImplemented naming `kernel` ("OpenCL kernel 'k'") unless argument `i` of type `t` can be
// passed to a device function: a buffer, int32/64, uint32 or float32/64.
void RequirePassableArg(const std::string& kernel, size_t i, DLDataType t);

// A launch: grid (work groups) and block (work-group) extents, dynamic shared memory.
struct KernelLaunch {
  size_t grid[3] = {1, 1, 1};
  size_t block[3] = {1, 1, 1};
  size_t dyn_shared_bytes = 0;
};

// Where a kernel's launch extents sit among its arguments, from its launch_param_tags.
class LaunchConfig {
 public:
  // Throws kFormatError naming the kernel for an unknown tag.
  explicit LaunchConfig(const KernelInfo& kernel);
  size_t work_dim() const { return work_dim_; }
  size_t num_extents() const { return index_.size() + (dyn_shared_ ? 1 : 0); }
  // Throws kInvalidArgument unless a call of `api`'s `kernel` has `num_values` = num_args + num_extents().
  void CheckCount(const char* api, const std::string& kernel, int num_values) const;
  // The launch of a call whose first num_args values are the kernel's arguments.
  KernelLaunch Read(const TVMValue* values) const;

 private:
  size_t base_;
  std::vector<int> index_;  // per extent: 0-2 grid x/y/z, 3-5 block x/y/z
  bool dyn_shared_ = false;
  size_t work_dim_ = 1;
};

}  // namespace aotrt
