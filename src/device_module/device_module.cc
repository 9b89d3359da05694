#include "device_module/device_module.h"

#include <sys/stat.h>
#include <unistd.h>

#include <cstdio>
#include <fstream>
#include <sstream>
#include <thread>

#define XXH_INLINE_ALL
#include <xxhash.h>

#include "base/error_util.h"
#include "base/logging.h"
#include "base/temp_dir.h"

namespace aotrt {

void WriteString(const std::string& s, std::string* out) {
  uint64_t n = s.size();
  out->append(reinterpret_cast<const char*>(&n), 8);
  *out += s;
}

std::string DeviceModuleNode::SaveToBinary() const {  // the function map as ReadKernelMap reads it
  std::string out;
  WriteString(fmt_, &out);
  uint64_t n = infos_.size();
  out.append(reinterpret_cast<const char*>(&n), 8);
  for (const auto& [key, k] : infos_) {
    WriteString(key, &out);
    WriteString(k.name, &out);
    n = k.arg_types.size();
    out.append(reinterpret_cast<const char*>(&n), 8);
    for (DLDataType t : k.arg_types) out.append(reinterpret_cast<const char*>(&t), 4);
    n = k.launch_param_tags.size();
    out.append(reinterpret_cast<const char*>(&n), 8);
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

void PrepareDeviceModules(ModuleNode* root, DLDevice device) {
  auto* m = dynamic_cast<DeviceModuleNode*>(root);
  if (m && m->type == device.device_type) m->Prepare(device.device_id);
  for (const auto& m : root->imports()) PrepareDeviceModules(m.get(), device);
}

std::string KernelCachePath(const std::string& dir, const char* kind, const std::string& identity,
                            const std::string& code) {
  if (dir.empty() || !MakeDirectories(dir)) return "";
  XXH3_state_t* h = XXH3_createState();
  XXH3_128bits_reset(h);
  XXH3_128bits_update(h, identity.data(), identity.size());
  XXH3_128bits_update(h, code.data(), code.size());
  XXH128_hash_t key = XXH3_128bits_digest(h);
  XXH3_freeState(h);
  char hex[33];
  std::snprintf(hex, sizeof(hex), "%016llx%016llx", static_cast<unsigned long long>(key.high64),
                static_cast<unsigned long long>(key.low64));
  return StrCat(dir, "/", kind, "-", hex, ".bin");
}

std::string ReadKernelCache(const std::string& path) {
  struct stat st;
  if (path.empty() || ::lstat(path.c_str(), &st) != 0 || !S_ISREG(st.st_mode) || st.st_uid != ::geteuid() ||
      (st.st_mode & 022)) {
    return "";
  }
  std::ifstream in(path, std::ios::binary);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
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
