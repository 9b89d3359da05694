#include "constant_cache/cache_directory.h"

#include <dirent.h>
#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstring>
#include <thread>

#include "base/error_util.h"
#include "base/unique_fd.h"
#include "constant_cache/constant_pool_file.h"
#include "module/runtime_config.h"

namespace aotrt {

namespace {

// `suffix` after a non-empty name (a file called just ".aotrt-pool" is not a pool).
bool HasSuffix(std::string_view s, std::string_view suffix) { return s.size() > suffix.size() && EndsWith(s, suffix); }

// Every name in `dir` but . and .., sorted; false when it cannot be opened (errno set).
bool ReadNames(const std::string& dir, std::vector<std::string>* names) {
  DIR* d = ::opendir(dir.c_str());
  if (d == nullptr) return false;
  while (struct dirent* ent = ::readdir(d)) {
    if (std::strcmp(ent->d_name, ".") != 0 && std::strcmp(ent->d_name, "..") != 0) names->push_back(ent->d_name);
  }
  ::closedir(d);
  std::sort(names->begin(), names->end());
  return true;
}

// Throws unless `dir` is a directory; false when it does not exist.
bool RequireDirectory(const std::string& dir, const char* verb) {
  AOTRT_REQUIRE(!dir.empty(), kInvalidArgument, "cannot ", verb,
                " the cache: no cache directory (set AOTRT_CACHE_DIR, XDG_CACHE_HOME or HOME, or pass one)");
  struct stat st;
  if (::stat(dir.c_str(), &st) != 0) {
    AOTRT_REQUIRE(errno == ENOENT, kIOError, "cannot ", verb, " the cache: ", dir, ": ", std::strerror(errno));
    return false;
  }
  AOTRT_REQUIRE(S_ISDIR(st.st_mode), kInvalidArgument, "cannot ", verb, " the cache: ", dir,
                " is not a directory");
  return true;
}

// Takes the exclusive flock on `fd`, waiting at most `wait_ms` (polled every 0.5-10 ms); false when
// that timed out. True also when the file system has no flock: the caller goes ahead unserialised,
// as without a lock file.
bool LockWithin(int fd, int wait_ms) {
  auto deadline = std::chrono::steady_clock::now() + std::chrono::milliseconds(wait_ms);
  auto pause = std::chrono::microseconds(500);
  for (;;) {
    if (::flock(fd, LOCK_EX | LOCK_NB) == 0 || (errno != EWOULDBLOCK && errno != EINTR)) return true;
    auto now = std::chrono::steady_clock::now();
    if (now >= deadline) return false;
    std::this_thread::sleep_for(std::min<std::chrono::steady_clock::duration>(pause, deadline - now));
    pause = std::min(pause * 2, std::chrono::microseconds(10000));  // wakes within 10 ms of a release
  }
}

}  // namespace

CacheEntryKind CacheEntryKindOf(const std::string& name) {
  if (HasSuffix(name, kPoolSuffix)) return CacheEntryKind::kConstantPool;
  if (HasSuffix(name, kAliasSuffix)) return CacheEntryKind::kAlias;
  if (name.rfind("mlf-", 0) == 0 && HasSuffix(name, ".so")) return CacheEntryKind::kArchiveLibrary;
  if ((name.rfind("opencl-", 0) == 0 || name.rfind("vulkan-", 0) == 0) && HasSuffix(name, ".bin")) return CacheEntryKind::kProgramBinary;
  if (name.rfind(kPoolTempPrefix, 0) == 0) return CacheEntryKind::kTemporary;
  if (name == ".lock") return CacheEntryKind::kLock;
  return CacheEntryKind::kOther;
}

void PruneCacheDirectory(const std::string& dir, const std::string& keep, uint64_t max_bytes,
                         const std::function<void(const std::string&)>& log) {
  struct Pool {
    std::string path;
    time_t mtime;
    uint64_t bytes;
  };
  std::vector<std::string> names;
  if (!ReadNames(dir, &names)) return;
  std::vector<Pool> pools;
  uint64_t total = 0;
  for (const std::string& name : names) {
    struct stat st;
    std::string path = dir + "/" + name;
    if (CacheEntryKindOf(name) == CacheEntryKind::kConstantPool && ::lstat(path.c_str(), &st) == 0 &&
        S_ISREG(st.st_mode)) {
      pools.push_back({path, st.st_mtime, static_cast<uint64_t>(st.st_size)});
      total += static_cast<uint64_t>(st.st_size);
    }
  }
  std::sort(pools.begin(), pools.end(), [](const Pool& a, const Pool& b) { return a.mtime < b.mtime; });
  for (const Pool& p : pools) {
    if (total <= max_bytes) break;
    if (p.path == keep || ::unlink(p.path.c_str()) != 0) continue;
    total -= p.bytes;
    log(StrCat("removed ", p.path, " (least recently used; the cache is over ", max_bytes >> 20, " MiB)"));
  }
  // Aliases of removed pools (stat follows the link: ENOENT when its pool is gone).
  for (const std::string& name : names) {
    struct stat st;
    std::string path = dir + "/" + name;
    if (CacheEntryKindOf(name) == CacheEntryKind::kAlias && ::stat(path.c_str(), &st) != 0 && errno == ENOENT) {
      ::unlink(path.c_str());
    }
  }
}

CacheListing ListCacheDirectory(const std::string& dir) {
  CacheListing out;
  out.directory = dir;
  out.exists = RequireDirectory(dir, "list");
  if (!out.exists) return out;
  std::vector<std::string> names;
  AOTRT_REQUIRE(ReadNames(dir, &names), kIOError, "cannot list the cache: ", dir, ": ", std::strerror(errno));
  for (const std::string& name : names) {
    CacheEntry e;
    e.name = name;
    e.kind = CacheEntryKindOf(name);
    std::string path = dir + "/" + name;
    struct stat st;
    if (::lstat(path.c_str(), &st) != 0) continue;  // removed meanwhile
    e.last_used = static_cast<int64_t>(st.st_mtime);
    e.bytes = S_ISREG(st.st_mode) ? static_cast<uint64_t>(st.st_size) : 0;
    if (e.kind == CacheEntryKind::kConstantPool) {
      PoolFileHeader h = ReadPoolFileHeader(path);
      e.valid = h.valid;
      e.model = h.built_for;
      out.pool_bytes += e.bytes;
    } else if (e.kind == CacheEntryKind::kAlias) {
      char target[512];
      ssize_t n = ::readlink(path.c_str(), target, sizeof target - 1);
      e.target = n > 0 ? std::string(target, static_cast<size_t>(n)) : std::string();
      struct stat pool;
      e.valid = S_ISLNK(st.st_mode) && ::stat(path.c_str(), &pool) == 0;
      if (e.valid) e.last_used = static_cast<int64_t>(pool.st_mtime);
    }
    out.total_bytes += e.bytes;
    out.entries.push_back(std::move(e));
  }
  return out;
}

CacheClearResult ClearCacheDirectory(const std::string& dir, int lock_wait_ms) {
  CacheClearResult out;
  if (!RequireDirectory(dir, "clear")) return out;
  UniqueFd lock(::open((dir + "/.lock").c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0644));
  AOTRT_REQUIRE(lock.fd >= 0, kIOError, "cannot clear the cache: cannot open ", dir, "/.lock: ", std::strerror(errno));
  AOTRT_REQUIRE(LockWithin(lock.fd, lock_wait_ms), kIOError,
                "cannot clear the cache: another process has held ", dir, "/.lock for over ", lock_wait_ms,
                " ms (a writer still at work); try again");
  std::vector<std::string> names;
  AOTRT_REQUIRE(ReadNames(dir, &names), kIOError, "cannot clear the cache: ", dir, ": ", std::strerror(errno));
  for (const std::string& name : names) {
    CacheEntryKind kind = CacheEntryKindOf(name);
    if (kind == CacheEntryKind::kLock || kind == CacheEntryKind::kOther) continue;
    std::string path = dir + "/" + name;
    struct stat st;
    if (::lstat(path.c_str(), &st) != 0) continue;
    if (::unlink(path.c_str()) != 0) {
      AOTRT_REQUIRE(errno == ENOENT, kIOError, "cannot clear the cache: cannot remove ", path, ": ",
                    std::strerror(errno), " (", out.files_removed, " files removed before it)");
      continue;
    }
    ++out.files_removed;
    if (S_ISREG(st.st_mode)) out.bytes_removed += static_cast<uint64_t>(st.st_size);
  }
  return out;
}

const char* CacheEntryKindName(CacheEntryKind kind) {
  static const char* const kNames[] = {"constant pool", "alias", "archive library", "program binary",
                                       "temporary", "lock", "other"};  // in CacheEntryKind's order
  size_t i = static_cast<size_t>(kind);
  return i < sizeof(kNames) / sizeof(kNames[0]) ? kNames[i] : "other";
}

std::string CacheDirectory(const LoadOptions& options) { return FrontDoorLoadContext(options, "").options.cache_dir; }

uint64_t CacheMaxBytes(const LoadOptions& options) {
  uint64_t max = FrontDoorLoadContext(options, "").options.cache_max_bytes;
  return max != 0 ? max : kDefaultCacheMaxBytes;
}

CacheListing ListCache(const std::string& directory, const LoadOptions& options) {
  LoadOptions o = options;
  if (!directory.empty()) o.cache_dir = directory;
  CacheListing listing = ListCacheDirectory(CacheDirectory(o));
  listing.max_bytes = CacheMaxBytes(o);
  return listing;
}

CacheClearResult ClearCache(const std::string& directory, int lock_wait_ms) {
  return ClearCacheDirectory(directory.empty() ? CacheDirectory() : directory, lock_wait_ms);
}

}  // namespace aotrt
