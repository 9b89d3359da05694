#include "aot/constant_cache.h"

#include <fcntl.h>
#include <sys/stat.h>

#include <unistd.h>

#include <cerrno>
#include <ctime>

#include "aot/cache_directory.h"
#include "aot/constant_cache_writer.h"
#include "aot/constant_pool_file.h"
#include "base/error_util.h"
#include "base/logging.h"
#include "base/tail_slack.h"

// Header-only: the inlined functions are static, so the installed library gains no dependency.
#define XXH_INLINE_ALL
#include <xxhash.h>

namespace aotrt {
namespace {

constexpr time_t kMarkUsedEvery = 3600;  // seconds: a hit rewrites its file's mtime at most this often

// A hit marks its file (last modified at `modified`) used, so that pruning removes the least
// recently used files first; at most once an hour, so that loads do not rewrite the inode every
// time. `path` may be an alias: utimensat follows it to the pool. Failures are ignored (a
// read-only cache still serves).
void MarkUsed(const std::string& path, time_t modified) {
  if (std::time(nullptr) - modified > kMarkUsedEvery) ::utimensat(AT_FDCWD, path.c_str(), nullptr, 0);
}

}  // namespace

bool MapThroughAlias(const std::string& dir, const std::string& alias, size_t bytes_min, size_t bytes_max,
                     bool verify, const std::string& what, ConstantPoolMemory* out) {
  char target[64];
  ssize_t n = ::readlink(alias.c_str(), target, sizeof target);
  PoolFileSpec spec;
  spec.bytes = bytes_min;
  spec.bytes_max = bytes_max;
  if (n <= 0 || static_cast<size_t>(n) >= sizeof target ||
      !ParsePoolFileName(std::string(target, static_cast<size_t>(n)), &spec)) {
    if (n >= 0 || errno != ENOENT) AOTRT_LOG_DEBUG(what, ": constant cache: rebuilding ", alias, ": not an alias");
    return false;
  }
  std::string pool = dir + "/" + std::string(target, static_cast<size_t>(n));
  time_t modified = 0;
  if (!MapPoolFile(pool, spec, verify, what, ConstantSource::kMappedCache, out, &modified)) return false;
  MarkUsed(pool, modified);
  out->Relabel(ConstantSource::kMappedCache, alias);
  return true;
}

bool MakeDirectories(const std::string& dir) {
  for (size_t i = 1; i <= dir.size(); ++i) {
    if (i == dir.size() || dir[i] == '/') ::mkdir(dir.substr(0, i).c_str(), 0700);
  }
  struct stat st;
  return ::stat(dir.c_str(), &st) == 0 && S_ISDIR(st.st_mode);
}

ConstantCacheOptions ConstantCacheOptions::From(const LoadOptions& load) {
  ConstantCacheOptions o;
  o.enabled = load.constant_cache && !load.cache_dir.empty();
  o.verify = load.verify_constant_cache;
  o.directory = load.cache_dir;
  if (load.cache_max_bytes != 0) o.max_bytes = load.cache_max_bytes;
  return o;
}

std::string FileIdentityKey(const std::string& path) {
  struct stat st;
  if (::stat(path.c_str(), &st) != 0) return std::string();
  auto ns = [](const struct timespec& t) { return static_cast<int64_t>(t.tv_sec) * 1000000000 + t.tv_nsec; };
  std::string key;
  key.reserve(160);  // 40 bytes of labels and 5 numbers of at most 20 digits: one allocation
  StrAppend(key, "file:dev=", st.st_dev, "|ino=", st.st_ino, "|size=", st.st_size, "|mtime_ns=", ns(st.st_mtim),
            "|ctime_ns=", ns(st.st_ctim));
  return key;
}

std::string ContentKey(const std::vector<std::pair<const void*, size_t>>& ranges) {
  XXH3_state_t state;
  XXH3_128bits_reset(&state);
  for (const auto& [data, n] : ranges) XXH3_128bits_update(&state, data, n);
  XXH128_hash_t h = XXH3_128bits_digest(&state);
  return StrCat("xxh3-128:", Hex{h.high64, 16}, Hex{h.low64, 16});
}

ConstantPoolMemory GetConstantPool(const ConstantPoolSource& source, const ConstantCacheOptions& options,
                                   const std::string& what) {
  auto private_copy = [&](const char* why) {
    size_t bytes = source.plan();
    AOTRT_LOG_DEBUG(what, ": constant cache ", why, "; using a private copy");
    return PrivateConstantPool(bytes, TailSlack(bytes), source.fill, what);
  };
  if (!options.enabled) return private_copy("is off");
  if (source.bytes_max < options.min_bytes) return private_copy("not used for a pool this small");
  const std::string& dir = options.directory;
  if (dir.empty()) return private_copy("has no directory");
  // The alias of this model file (its identity and the constants' layout) is a symbolic link to
  // the pool file named by its content (constant_cache_writer.h). A hit needs neither the
  // constants nor their exact size: the pool file's header gives it, within the metadata's bounds.
  std::string identity = source.key();
  StrAppend(identity, "|layout=", kConstantCacheLayoutVersion);
  XXH128_hash_t h = XXH3_128bits(identity.data(), identity.size());
  std::string alias = StrCat(dir, "/", Hex{h.high64, 16}, Hex{h.low64, 16}, kAliasSuffix);
  ConstantPoolMemory m;
  if (MapThroughAlias(dir, alias, source.bytes_min, source.bytes_max, options.verify, what, &m)) return m;
  size_t bytes = source.plan();
  if (bytes < options.min_bytes) return private_copy("not used for a pool this small");
  if (!MakeDirectories(dir) || ::access(dir.c_str(), W_OK) != 0) {
    AOTRT_LOG_DEBUG(what, ": constant cache: cannot ", ::access(dir.c_str(), F_OK) == 0 ? "write to" : "create",
                    " directory ", dir, "; using a private copy");
    return PrivateConstantPool(bytes, TailSlack(bytes), source.fill, what);
  }
  // A miss costs this load one copy of the constants, no more: the cache file is written from that
  // copy in the background (constant_cache_writer.h), and the next process maps it.
  ConstantPoolMemory copy = PrivateConstantPool(bytes, TailSlack(bytes), source.fill, what);
  CacheWriteJob job;
  job.directory = dir;
  job.alias_path = alias;
  job.bytes = bytes;
  job.slack = copy.slack();
  job.payload = copy.data();
  job.keep = copy.Share();
  job.built_for = what;
  job.what = what;
  job.max_bytes = options.max_bytes;
  job.verify = options.verify;
  job.lock_wait_ms = options.lock_wait_ms;
  WriteInBackground(std::move(job));
  copy.Relabel(ConstantSource::kBuiltCache, alias);
  return copy;
}

ConstantPoolMemory GetConstantPool(size_t bytes, const std::function<std::string()>& key,
                                   const std::function<void(uint8_t*)>& fill, const ConstantCacheOptions& options,
                                   const std::string& what) {
  ConstantPoolSource source;
  source.bytes_min = source.bytes_max = bytes;
  source.key = [&] {
    std::string k = key();
    StrAppend(k, "|bytes=", bytes);
    return k;
  };
  source.plan = [bytes] { return bytes; };
  source.fill = fill;
  return GetConstantPool(source, options, what);
}

}  // namespace aotrt
