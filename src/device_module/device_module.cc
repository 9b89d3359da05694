#include "device_module/device_module.h"

#include <sys/stat.h>
#include <unistd.h>

#include <cstdio>
#include <fstream>
#include <sstream>
#include <thread>

#define XXH_INLINE_ALL
#include <xxhash.h>

#include "base/byte_reader.h"
#include "base/error_util.h"
#include "base/logging.h"
#include "base/temp_dir.h"

namespace aotrt {

std::string DeviceModuleNode::SaveToBinary() const {  // the function map as ReadKernelMap reads it
  std::string out;
  WriteString(fmt_, &out);
  WriteU64(infos_.size(), &out);
  for (const auto& [key, k] : infos_) {
    WriteString(key, &out);
    WriteString(k.name, &out);
    WriteU64(k.arg_types.size(), &out);
    for (DLDataType t : k.arg_types) out.append(reinterpret_cast<const char*>(&t), 4);
    WriteU64(k.launch_param_tags.size(), &out);
    for (const std::string& tag : k.launch_param_tags) WriteString(tag, &out);
  }
  SaveCode(&out);
  return out;
}

std::string DeviceModuleNode::MissingFunctionHint(const std::string&) const {
  std::string names;
  for (const auto& kv : infos_) names += (names.empty() ? "" : ", ") + kv.first;
  return StrCat("the ", api_, " module's kernels are ", names);
}

void PrepareDeviceModules(ModuleNode* root, DLDevice device, bool first_run_done) {
  if (auto* m = dynamic_cast<DeviceModuleNode*>(root); m && m->type == device.device_type) {
    first_run_done ? m->FirstRunDone(device.device_id) : m->Prepare(device.device_id);
  }
  for (const auto& m : root->imports()) PrepareDeviceModules(m.get(), device, first_run_done);
}

std::string KernelCachePath(const std::string& dir, const char* kind, const std::string& identity,
                            const std::string& code) {
  if (dir.empty() || !MakeDirectories(dir)) return "";
  std::string keyed = identity + code;  // hashed whole: the same key as hashing the two in turn
  XXH128_hash_t key = XXH3_128bits(keyed.data(), keyed.size());
  return StrCat(dir, "/", kind, "-", Hex{key.high64, 16}, Hex{key.low64, 16}, ".bin");
}

std::string ReadKernelCache(const std::string& path) {
  return path.empty() || !TrustedFile(path) ? std::string() : ReadFileBytes(path);
}

void WriteKernelCache(const std::string& path, const std::string& bytes) {
  if (path.empty()) return;
  std::ostringstream tmp;
  tmp << path.substr(0, path.rfind('/') + 1) << ".tmp-" << ::getpid() << "-" << std::this_thread::get_id();
  {
    std::ofstream out(tmp.str(), std::ios::binary | std::ios::trunc);
    out.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
    if (!out) {
      AOTRT_LOG_DEBUG("kernel cache: cannot write ", tmp.str());
      ::unlink(tmp.str().c_str());
      return;
    }
  }
  ::chmod(tmp.str().c_str(), 0644);
  if (::rename(tmp.str().c_str(), path.c_str()) != 0) ::unlink(tmp.str().c_str());
}

}  // namespace aotrt
