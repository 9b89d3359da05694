#include "aot/constant_cache.h"

#include <dirent.h>
#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <thread>

#include "aot/constant_pool_file.h"
#include "base/error_util.h"
#include "base/logging.h"
#include "base/tail_slack.h"
#include "base/unique_fd.h"

// Header-only: the inlined functions are static, so the installed library gains no dependency.
#define XXH_INLINE_ALL
#include <xxhash.h>

namespace aotrt {
namespace {

constexpr time_t kMarkUsedEvery = 3600;  // seconds: a hit rewrites its file's mtime at most this often
const char kPoolSuffix[] = ".aotrt-pool";

// A hit marks its file (last modified at `modified`) used, so that pruning removes the least
// recently used files first; at most once an hour, so that loads do not rewrite the inode every
// time. Failures are ignored (a read-only cache still serves).
void MarkUsed(const std::string& path, time_t modified) {
  if (std::time(nullptr) - modified > kMarkUsedEvery) ::utimensat(AT_FDCWD, path.c_str(), nullptr, 0);
}

// Removes the least recently used pool files of `dir` (oldest mtime first, never `keep`) while
// their sizes add up to more than `max_bytes`.
void Prune(const std::string& dir, const std::string& keep, uint64_t max_bytes, const std::string& what) {
  struct Entry {
    std::string path;
    time_t mtime;
    uint64_t bytes;
  };
  std::vector<Entry> files;
  uint64_t total = 0;
  if (DIR* d = ::opendir(dir.c_str())) {
    while (struct dirent* ent = ::readdir(d)) {
      std::string name = ent->d_name;
      struct stat st;
      if (name.size() > sizeof kPoolSuffix - 1 &&
          name.compare(name.size() - (sizeof kPoolSuffix - 1), std::string::npos, kPoolSuffix) == 0 &&
          ::fstatat(::dirfd(d), ent->d_name, &st, AT_SYMLINK_NOFOLLOW) == 0 && S_ISREG(st.st_mode)) {
        files.push_back({dir + "/" + name, st.st_mtime, static_cast<uint64_t>(st.st_size)});
        total += static_cast<uint64_t>(st.st_size);
      }
    }
    ::closedir(d);
  }
  std::sort(files.begin(), files.end(), [](const Entry& a, const Entry& b) { return a.mtime < b.mtime; });
  for (const Entry& f : files) {
    if (total <= max_bytes) break;
    if (f.path == keep || ::unlink(f.path.c_str()) != 0) continue;
    total -= f.bytes;
    AOTRT_LOG_DEBUG(what, ": constant cache: removed ", f.path, " (least recently used; the cache is over ",
                    max_bytes >> 20, " MiB)");
  }
}

// Takes the exclusive lock on `fd`, waiting at most `wait_ms`: false when another process still
// holds it then (a builder that hangs must not hang every later load). A lock the file system
// cannot provide counts as taken: the build then goes ahead unserialised, as without a lock file.
bool LockWithin(int fd, int wait_ms) {
  auto deadline = std::chrono::steady_clock::now() + std::chrono::milliseconds(wait_ms);
  auto pause = std::chrono::microseconds(500);
  for (;;) {
    if (::flock(fd, LOCK_EX | LOCK_NB) == 0) return true;
    if (errno != EWOULDBLOCK && errno != EINTR) return true;
    auto now = std::chrono::steady_clock::now();
    if (now >= deadline) return false;
    std::this_thread::sleep_for(std::min<std::chrono::steady_clock::duration>(pause, deadline - now));
    pause = std::min(pause * 2, std::chrono::microseconds(10000));  // wakes within 10 ms of a release
  }
}

}  // namespace

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
  return StrCat("file:dev=", st.st_dev, "|ino=", st.st_ino, "|size=", st.st_size,
                "|mtime_ns=", static_cast<int64_t>(st.st_mtim.tv_sec) * 1000000000 + st.st_mtim.tv_nsec);
}

std::string ContentKey(const std::vector<std::pair<const void*, size_t>>& ranges) {
  XXH3_state_t state;
  XXH3_128bits_reset(&state);
  for (const auto& [data, n] : ranges) XXH3_128bits_update(&state, data, n);
  XXH128_hash_t h = XXH3_128bits_digest(&state);
  return StrCat("xxh3-128:", Hex{h.high64, 16}, Hex{h.low64, 16});
}

ConstantPoolMemory GetConstantPool(size_t bytes, const std::function<std::string()>& key,
                                   const std::function<void(uint8_t*)>& fill, const ConstantCacheOptions& options,
                                   const std::string& what) {
  size_t slack = TailSlack(bytes);
  if (!options.enabled || bytes < options.min_bytes) {
    AOTRT_LOG_DEBUG(what, ": constant cache ", options.enabled ? "not used for a pool this small" : "is off",
                    "; using a private copy");
    return PrivateConstantPool(bytes, slack, fill, what);
  }
  const std::string& dir = options.directory;
  if (dir.empty()) {
    AOTRT_LOG_DEBUG(what, ": constant cache has no directory; using a private copy");
    return PrivateConstantPool(bytes, slack, fill, what);
  }
  std::string full_key = StrCat(key(), "|layout=", kConstantCacheLayoutVersion, "|bytes=", bytes, "|slack=", slack);
  XXH128_hash_t h = XXH3_128bits(full_key.data(), full_key.size());
  PoolFileSpec spec{{h.low64, h.high64}, bytes, slack};
  std::string path = StrCat(dir, "/", spec.Name(), kPoolSuffix);
  ConstantPoolMemory m;
  time_t modified = 0;
  if (MapPoolFile(path, spec, options.verify, what, ConstantSource::kMappedCache, &m, &modified)) {
    MarkUsed(path, modified);
    return m;
  }
  if (!MakeDirectories(dir)) {
    AOTRT_LOG_DEBUG(what, ": constant cache: cannot create directory ", dir, "; using a private copy");
    return PrivateConstantPool(bytes, slack, fill, what);
  }
  // One builder at a time per directory; the others wait and then map what it built.
  UniqueFd lock(::open(StrCat(dir, "/.lock").c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0644));
  if (lock.fd >= 0) {
    if (!LockWithin(lock.fd, options.lock_wait_ms)) {
      AOTRT_LOG_DEBUG(what, ": constant cache: another process has held ", dir, "/.lock for over ",
                      options.lock_wait_ms, " ms; using a private copy");
      return PrivateConstantPool(bytes, slack, fill, what);
    }
    if (MapPoolFile(path, spec, options.verify, what, ConstantSource::kMappedCache, &m)) return m;
  }
  // Built in memory, written, then mapped from the file so that this process shares its pages
  // too; the copy is the fallback when writing fails.
  ConstantPoolMemory copy = PrivateConstantPool(bytes, slack, fill, what);
  if (WritePoolFile(dir, path, spec, copy.data(), what) &&
      MapPoolFile(path, spec, false, what, ConstantSource::kBuiltCache, &m)) {
    Prune(dir, path, options.max_bytes, what);  // still under the lock: one pruner at a time
    return m;
  }
  return copy;
}

}  // namespace aotrt
