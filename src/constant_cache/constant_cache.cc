#include "constant_cache/constant_cache.h"

#include "base/temp_dir.h"

#include <fcntl.h>
#include <sys/file.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstring>
#include <ctime>

#include "constant_cache/cache_directory.h"
#include "constant_cache/constant_pool_file.h"
#include "base/error_util.h"
#include "base/logging.h"
#include "memory/reserve.h"
#include "base/unique_fd.h"

// Header-only: the inlined functions are static, so the installed library gains no dependency.
#define XXH_INLINE_ALL
#include <xxhash.h>

namespace aotrt {
namespace {

constexpr time_t kMarkUsedEvery = 3600;  // seconds: a hit rewrites its file's mtime at most this often

// A private read-only pool of `bytes` usable bytes plus their canary slack (TailSlack):
// `fill(dst)` writes the usable bytes into zeroed memory. Throws Error(kOutOfMemory) naming `what`
// when the memory cannot be mapped, or whatever `fill` throws (nothing is leaked).
ConstantPoolMemory PrivateConstantPool(size_t bytes, const std::function<void(uint8_t*)>& fill,
                                       const std::string& what) {
  const size_t slack = TailSlack(bytes), map_bytes = bytes + slack;
  // Populated up front: fill() writes every page anyway.
  void* map = ::mmap(nullptr, map_bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_POPULATE, -1, 0);
  AOTRT_REQUIRE(map != MAP_FAILED, kOutOfMemory, what, ": cannot allocate ", GroupedNumber(bytes), " bytes (+", slack,
                " slack) for the constant pool");
  ConstantPoolMemory m = ConstantPoolMemory::Adopt(map, map_bytes, 0, bytes, slack, ConstantSource::kPrivateCopy, "");
  uint8_t* p = static_cast<uint8_t*>(map);
  fill(p);  // anonymous memory is zeroed; `m` unmaps if this throws
  FillCanary(p + bytes, slack);
  ::mprotect(map, map_bytes, PROT_READ);  // as the shared file: a store into constants faults either way
  return m;
}

// The content key of a pool: xxh3-128 of its bytes (and their slack) and what gives them their
// meaning (layout version, sizes).
PoolFileSpec ContentSpec(const uint8_t* payload, size_t bytes) {
  const size_t slack = TailSlack(bytes);
  XXH3_state_t st;
  XXH3_128bits_reset(&st);
  XXH3_128bits_update(&st, payload, bytes + slack);
  std::string tail = StrCat("|layout=", kConstantCacheLayoutVersion, "|bytes=", bytes, "|slack=", slack);
  XXH3_128bits_update(&st, tail.data(), tail.size());
  XXH128_hash_t h = XXH3_128bits_digest(&st);
  return PoolFileSpec{{h.low64, h.high64}, bytes, bytes};
}

// Points `alias` at `target` (a name in the same directory): a symlink under a temporary name,
// renamed over the alias, so that a reader sees the old alias, the new one or none.
bool LinkAlias(const std::string& dir, const std::string& alias, const std::string& target, std::string* why) {
  static std::atomic<unsigned> counter{0};
  std::string tmp = StrCat(dir, "/", kPoolTempPrefix, "alias-", ::getpid(), "-", counter++);
  if (::symlink(target.c_str(), tmp.c_str()) != 0) {
    *why = StrCat("cannot create a link in ", dir, ": ", std::strerror(errno));
    return false;
  }
  if (::rename(tmp.c_str(), alias.c_str()) != 0) {
    *why = StrCat("cannot rename a link to ", alias, ": ", std::strerror(errno));
    ::unlink(tmp.c_str());
    return false;
  }
  return true;
}

// Maps into *out the pool that `alias` (a symbolic link to "<content hash>.aotrt-pool" in `dir`)
// names when it is valid, of [bytes_min, bytes_max] usable bytes, and its header names the same
// content; *out then reports kMappedCache from `alias`. The link is read, not followed: a target
// elsewhere or a damaged file is a miss (false, with a debug log unless the alias is missing).
bool MapThroughAlias(const std::string& dir, const std::string& alias, size_t bytes_min, size_t bytes_max,
                     bool verify, const std::string& what, ConstantPoolMemory* out) {
  char target[64];
  ssize_t n = ::readlink(alias.c_str(), target, sizeof target);
  PoolFileSpec spec{{0, 0}, bytes_min, bytes_max};
  if (n <= 0 || static_cast<size_t>(n) >= sizeof target ||
      !ParsePoolFileName(std::string(target, static_cast<size_t>(n)), &spec)) {
    if (n >= 0 || errno != ENOENT) AOTRT_LOG_DEBUG(what, ": constant cache: rebuilding ", alias, ": not an alias");
    return false;
  }
  std::string pool = dir + "/" + std::string(target, static_cast<size_t>(n));
  time_t modified = 0;
  if (!MapPoolFile(pool, spec, verify, what, out, &modified)) return false;
  // A hit marks its pool used, so that pruning removes the least recently used files first; at
  // most once an hour, so that loads do not rewrite the inode every time. Failures are ignored (a
  // read-only cache still serves).
  if (std::time(nullptr) - modified > kMarkUsedEvery) ::utimensat(AT_FDCWD, pool.c_str(), nullptr, 0);
  out->Relabel(ConstantSource::kMappedCache, alias);
  return true;
}

enum class Existing { kNone, kSame, kCollision };

// Whether the pool file `path` of `spec` holds exactly `copy`'s bytes, compared byte for byte (the
// names matched by hash; a collision must never hand this model another's constants). A file that
// differs and whose own bytes do not hash to its name is damaged: kNone, so it is rewritten.
Existing FindExistingPool(const std::string& path, const PoolFileSpec& spec, const ConstantPoolMemory& copy,
                          const std::string& what) {
  ConstantPoolMemory m;
  if (!MapPoolFile(path, spec, false, what, &m)) return Existing::kNone;
  if (std::memcmp(m.data(), copy.data(), copy.bytes() + copy.slack()) == 0) {
    ::utimensat(AT_FDCWD, path.c_str(), nullptr, 0);  // used now
    return Existing::kSame;
  }
  PoolFileSpec own = ContentSpec(m.data(), m.bytes());
  if (own.key_hash[0] != spec.key_hash[0] || own.key_hash[1] != spec.key_hash[1]) {
    AOTRT_LOG_DEBUG(what, ": constant cache: rewriting ", path, ": its bytes do not match its name");
    return Existing::kNone;
  }
  AOTRT_LOG_WARN(what, ": constant cache: ", path, " has this pool's content hash but other bytes "
                 "(an xxh3-128 collision); this model stays on its private copy");
  return Existing::kCollision;
}

// Writes the cache file of `copy` (a miss's private copy) and points `alias` at it, on the
// load's thread, under the directory's `.lock`. Another process holding the lock is writing:
// this load keeps its copy and the next one maps that process's file. Any failure leaves the
// load on its copy, with a debug log; true when the alias names a pool of `copy`'s bytes.
bool WriteCacheFile(const std::string& dir, const std::string& alias, const ConstantPoolMemory& copy,
                    const ConstantCacheOptions& options, const std::string& what) {
  auto log = [&](const std::string& m) { AOTRT_LOG_DEBUG(what, ": constant cache: ", m); };
  UniqueFd lock(::open(StrCat(dir, "/.lock").c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0644));
  bool locked = lock.fd >= 0 && ::flock(lock.fd, LOCK_EX | LOCK_NB) == 0;
  if (!locked && errno == EWOULDBLOCK) {
    log(StrCat("another process holds ", dir, "/.lock; not written (the private copy serves)"));
    return false;
  }
  // Without flock (a file system that lacks it) writers go ahead unserialised: every step is atomic.
  ConstantPoolMemory done;
  if (MapThroughAlias(dir, alias, copy.bytes(), copy.bytes(), options.verify, what, &done)) return true;
  PoolFileSpec spec = ContentSpec(copy.data(), copy.bytes());
  std::string name = spec.Name() + kPoolSuffix, path = StrCat(dir, "/", name);
  Existing existing = FindExistingPool(path, spec, copy, what);
  if (existing == Existing::kCollision) return false;
  if (existing == Existing::kNone && !WritePoolFile(dir, path, spec, copy.data(), locked, what)) return false;
  std::string why;
  if (!LinkAlias(dir, alias, name, &why)) {
    log(why + "; the private copy serves");
    return false;
  }
  log(StrCat("wrote ", alias, " -> ", name));
  PruneCacheDirectory(dir, path, options.max_bytes, log);
  return true;
}

}  // namespace

ConstantCacheOptions ConstantCacheOptions::From(const LoadOptions& load) {
  ConstantCacheOptions o{load.constant_cache && !load.cache_dir.empty(), load.verify_constant_cache, load.cache_dir};
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
  size_t bytes = SIZE_MAX;  // plan()'s, once called
  auto private_copy = [&](const std::string& why) {
    if (bytes == SIZE_MAX) bytes = source.plan();
    AOTRT_LOG_DEBUG(what, ": constant cache", why, "; using a private copy");
    return PrivateConstantPool(bytes, source.fill, what);
  };
  if (!options.enabled) return private_copy(" is off");
  if (source.bytes_max < options.min_bytes) return private_copy(" not used for a pool this small");
  const std::string& dir = options.directory;
  if (dir.empty()) return private_copy(" has no directory");
  // The alias of this model file (its identity and the constants' layout) is a symbolic link to
  // the pool file named by its content (WriteCacheFile). A hit needs neither the
  // constants nor their exact size: the pool file's header gives it, within the metadata's bounds.
  std::string identity = source.key();
  StrAppend(identity, "|layout=", kConstantCacheLayoutVersion);
  XXH128_hash_t h = XXH3_128bits(identity.data(), identity.size());
  std::string alias = StrCat(dir, "/", Hex{h.high64, 16}, Hex{h.low64, 16}, kAliasSuffix);
  ConstantPoolMemory m;
  if (MapThroughAlias(dir, alias, source.bytes_min, source.bytes_max, options.verify, what, &m)) return m;
  bytes = source.plan();
  if (bytes < options.min_bytes) return private_copy(" not used for a pool this small");
  if (!MakeDirectories(dir) || ::access(dir.c_str(), W_OK) != 0) {
    return private_copy(StrCat(": cannot ", ::access(dir.c_str(), F_OK) == 0 ? "write to" : "create", " directory ", dir));
  }
  // A miss: a private copy of the constants, from which the cache file is written now; the next
  // process maps it.
  ConstantPoolMemory copy = PrivateConstantPool(bytes, source.fill, what);
  if (WriteCacheFile(dir, alias, copy, options, what)) copy.Relabel(ConstantSource::kBuiltCache, alias);
  return copy;
}

}  // namespace aotrt
