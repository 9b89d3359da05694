// What every device code module of a blob (opencl, vulkan, cuda) shares: its function map written
// back as TVM writes it, kernels readied for a device before the first run, and a cache of the
// binaries the vendor's compiler makes from the module's code, so a second process compiles none.
#pragma once

#include <dlpack/dlpack.h>

#include <map>
#include <string>

#include "aotrt/module.h"
#include "device_module/function_info.h"

namespace aotrt {

class DeviceModuleNode : public ModuleNode {
 public:
  // `api` names the device type `type` in messages ("OpenCL"); `fmt` and `infos` as the blob holds them.
  DeviceModuleNode(const char* api, DLDeviceType type, std::string fmt, std::map<std::string, KernelInfo> infos)
      : type(type), api_(api), fmt_(std::move(fmt)), infos_(std::move(infos)) {}
  int GetPropertyMask() const override { return kModuleBinarySerializable; }
  std::string MissingFunctionHint(const std::string&) const override;  // the kernels' names
  // The format and the function map, as every device module's binary begins, then SaveCode's.
  std::string SaveToBinary() const override;
  // Builds every kernel for device `id` of this module's type now, so no run builds one. Throws as a
  // kernel's first launch would.
  virtual void Prepare(int id) = 0;
  // After an executor's first run on device `id`: every kernel its model launches has been launched.
  virtual void FirstRunDone(int id) {}
  const DLDeviceType type;

 protected:
  virtual void SaveCode(std::string* out) const = 0;
  const char* api_;
  std::string fmt_;
  std::map<std::string, KernelInfo> infos_;
};

// Builds the kernels of every device module under `root` (itself and its imports) for `device`, or,
// with `first_run_done`, calls their FirstRunDone.
void PrepareDeviceModules(ModuleNode* root, DLDevice device, bool first_run_done = false);

// A compiled binary in the cache directory: `<dir>/<kind>-<xxh3-128 of identity and code>.bin`,
// where `identity` names the device and driver the binary was built for. The path is "" when
// `dir` is "" or cannot be made (the cache is then off).
std::string KernelCachePath(const std::string& dir, const char* kind, const std::string& identity,
                            const std::string& code);
// The file's bytes; "" when it is absent or not a regular file of this user that no one else can
// write (a binary is code that runs).
std::string ReadKernelCache(const std::string& path);
// Writes the file atomically (a temporary file renamed into place); a failure is only logged.
void WriteKernelCache(const std::string& path, const std::string& bytes);

}  // namespace aotrt
