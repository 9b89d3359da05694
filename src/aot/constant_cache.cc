#include "aot/constant_cache.h"

#include <dirent.h>
#include <fcntl.h>
#include <sys/file.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>

#include "base/error_util.h"
#include "base/logging.h"
#include "base/tail_slack.h"

// Header-only: the inlined functions are static, so the installed library gains no dependency.
#define XXH_INLINE_ALL
#include <xxhash.h>
#if XXH_VERSION_NUMBER < 800
#error "aotrt needs xxHash 0.8 or newer (XXH3)"
#endif

namespace aotrt {

class ConstantCacheAccess {
 public:
  static ConstantPoolMemory Make(void* map, size_t map_bytes, size_t offset, size_t bytes, size_t slack,
                                 ConstantPoolMemory::Source source, std::string path) {
    ConstantPoolMemory m;
    m.map_ = map;
    m.map_bytes_ = map_bytes;
    m.data_ = static_cast<const uint8_t*>(map) + offset;
    m.bytes_ = bytes;
    m.slack_ = slack;
    m.source_ = source;
    m.path_ = std::move(path);
    return m;
  }
};

namespace {

constexpr char kMagic[8] = {'A', 'O', 'T', 'R', 'T', 'C', 'P', '\n'};
constexpr uint32_t kFormatVersion = 1;
constexpr size_t kHeaderBytes = 4096;  // the payload starts on a page
constexpr size_t kSampleBlock = 4096;
constexpr size_t kSampleCount = 64;    // at most 256 KiB hashed when a file is opened
constexpr time_t kStaleTempSeconds = 3600;
const char kTempPrefix[] = ".tmp-";

struct FileHeader {
  char magic[8];
  uint32_t format_version;
  uint32_t layout_version;
  uint64_t key_hash[2];
  uint64_t bytes;  // usable payload bytes
  uint64_t slack;  // canary bytes after them, part of the payload
  uint64_t payload_hash;
  uint64_t sample_hash;
  uint64_t header_hash;  // of every field above
};

// What a valid file for this request must say.
struct Expected {
  uint64_t key_hash[2];
  size_t bytes, slack;
  size_t FileBytes() const { return kHeaderBytes + bytes + slack; }
  std::string Name() const {
    char hex[33];
    std::snprintf(hex, sizeof hex, "%016llx%016llx", static_cast<unsigned long long>(key_hash[1]),
                  static_cast<unsigned long long>(key_hash[0]));
    return hex;
  }
};

struct Fd {
  int fd = -1;
  ~Fd() {
    if (fd >= 0) ::close(fd);
  }
};

bool Flag(const char* name, bool default_value) {
  const char* v = std::getenv(name);
  if (v == nullptr || *v == '\0') return default_value;
  if (std::strcmp(v, "0") == 0) return false;
  if (std::strcmp(v, "1") == 0) return true;
  AOTRT_THROW(kInvalidArgument, name, "='", v, "': expected 0 or 1");
}

uint64_t HeaderHash(const FileHeader& h) { return XXH3_64bits(&h, offsetof(FileHeader, header_hash)); }

// Hash of kSampleCount evenly spaced blocks, the first and the last included (all of a small payload).
uint64_t SampleHash(const uint8_t* p, size_t n) {
  if (n <= kSampleBlock * kSampleCount) return XXH3_64bits(p, n);
  XXH3_state_t state;
  XXH3_64bits_reset(&state);
  for (size_t i = 0; i < kSampleCount; ++i) {
    XXH3_64bits_update(&state, p + (n - kSampleBlock) * i / (kSampleCount - 1), kSampleBlock);
  }
  return XXH3_64bits_digest(&state);
}

// Why the mapped file `map` of `size` bytes cannot be used, or nullptr when it can.
const char* Invalid(const uint8_t* map, size_t size, const Expected& e, bool verify) {
  if (size != e.FileBytes()) return "wrong file size";
  FileHeader h;
  std::memcpy(&h, map, sizeof h);
  if (std::memcmp(h.magic, kMagic, sizeof kMagic) != 0) return "not a constant pool file (magic)";
  if (h.header_hash != HeaderHash(h)) return "header checksum mismatch";
  if (h.format_version != kFormatVersion || h.layout_version != kConstantCacheLayoutVersion) return "other version";
  if (h.key_hash[0] != e.key_hash[0] || h.key_hash[1] != e.key_hash[1]) return "other key";
  if (h.bytes != e.bytes || h.slack != e.slack) return "other pool size";
  const uint8_t* payload = map + kHeaderBytes;
  if (SampleHash(payload, e.bytes + e.slack) != h.sample_hash) return "sampled blocks checksum mismatch";
  if (verify && XXH3_64bits(payload, e.bytes + e.slack) != h.payload_hash) return "payload checksum mismatch";
  return nullptr;
}

void Unmap(void* map, size_t bytes) {
  if (map != nullptr) ::munmap(map, bytes);
}

// Maps `path` read-only when it holds a valid pool for `e`; false (logged) otherwise.
bool MapFile(const std::string& path, const Expected& e, bool verify, const std::string& what,
             ConstantPoolMemory::Source source, ConstantPoolMemory* out) {
  Fd f;
  f.fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (f.fd < 0) {
    if (errno != ENOENT) AOTRT_LOG_DEBUG(what, ": constant cache: cannot open ", path, ": ", std::strerror(errno));
    return false;
  }
  struct stat st;
  const char* why = nullptr;
  void* map = MAP_FAILED;
  if (::fstat(f.fd, &st) != 0 || static_cast<size_t>(st.st_size) != e.FileBytes()) {
    why = "wrong file size";
  } else {
    // MAP_POPULATE: the first run reads every page anyway; mapping them at once is cheaper.
    map = ::mmap(nullptr, e.FileBytes(), PROT_READ, MAP_SHARED | MAP_POPULATE, f.fd, 0);
    why = map == MAP_FAILED ? "mmap failed" : Invalid(static_cast<const uint8_t*>(map), e.FileBytes(), e, verify);
  }
  if (why != nullptr) {
    if (map != MAP_FAILED) Unmap(map, e.FileBytes());
    AOTRT_LOG_DEBUG(what, ": constant cache: rebuilding ", path, ": ", why);
    return false;
  }
  *out = ConstantCacheAccess::Make(map, e.FileBytes(), kHeaderBytes, e.bytes, e.slack, source, path);
  return true;
}

// mkdir -p with mode 0700 (XDG); true when `dir` is a directory afterwards.
bool MakeDirectories(const std::string& dir) {
  for (size_t i = 1; i <= dir.size(); ++i) {
    if (i == dir.size() || dir[i] == '/') ::mkdir(dir.substr(0, i).c_str(), 0700);
  }
  struct stat st;
  return ::stat(dir.c_str(), &st) == 0 && S_ISDIR(st.st_mode);
}

// Temporary files of writers that died before their rename.
void RemoveStaleTemps(const std::string& dir) {
  DIR* d = ::opendir(dir.c_str());
  if (d == nullptr) return;
  time_t now = std::time(nullptr);
  while (struct dirent* ent = ::readdir(d)) {
    struct stat st;
    if (std::strncmp(ent->d_name, kTempPrefix, sizeof kTempPrefix - 1) == 0 &&
        ::fstatat(::dirfd(d), ent->d_name, &st, AT_SYMLINK_NOFOLLOW) == 0 && now - st.st_mtime > kStaleTempSeconds) {
      ::unlinkat(::dirfd(d), ent->d_name, 0);
    }
  }
  ::closedir(d);
}

// A new temporary file in `dir`, created exclusively; -1 on failure (errno set).
int CreateTemp(const std::string& dir, const Expected& e, std::string* tmp) {
  static std::atomic<unsigned> counter{0};
  for (int attempt = 0; attempt < 8; ++attempt) {
    *tmp = StrCat(dir, "/", kTempPrefix, e.Name(), "-", ::getpid(), "-", counter++);
    int fd = ::open(tmp->c_str(), O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
    if (fd >= 0 || errno != EEXIST) return fd;
  }
  return -1;
}

// pwrite of all `n` bytes at `at`; false with errno set.
bool WriteAll(int fd, const uint8_t* p, size_t n, size_t at) {
  while (n > 0) {
    ssize_t w = ::pwrite(fd, p, n, static_cast<off_t>(at));
    if (w < 0 && errno == EINTR) continue;
    if (w <= 0) {
      if (w == 0) errno = ENOSPC;
      return false;
    }
    p += w;
    n -= static_cast<size_t>(w);
    at += static_cast<size_t>(w);
  }
  return true;
}

// Writes the pool `payload` (bytes + slack, built in memory) to a temporary file and renames it
// to `path`. False (logged) on any I/O failure, after removing the temporary file. Large write()s
// rather than stores through a mapping: the page cache then holds the file in large folios, which
// later processes map with a handful of faults (32 MiB: 16 faults, 0.1 ms, against 512 faults and
// 2-3 ms for 4 KiB folios; ext4 on Linux 6.18).
bool WriteFile(const std::string& dir, const std::string& path, const Expected& e, const uint8_t* payload,
               const std::string& what) {
  RemoveStaleTemps(dir);
  std::string tmp;
  Fd f;
  f.fd = CreateTemp(dir, e, &tmp);
  auto give_up = [&](const char* step, int err) {
    AOTRT_LOG_DEBUG(what, ": constant cache: cannot ", step, " in ", dir, ": ", std::strerror(err),
                    "; using a private copy");
    if (f.fd >= 0) ::unlink(tmp.c_str());
    return false;
  };
  if (f.fd < 0) return give_up("create a temporary file", errno);
  FileHeader h{};
  std::memcpy(h.magic, kMagic, sizeof kMagic);
  h.format_version = kFormatVersion;
  h.layout_version = kConstantCacheLayoutVersion;
  h.key_hash[0] = e.key_hash[0];
  h.key_hash[1] = e.key_hash[1];
  h.bytes = e.bytes;
  h.slack = e.slack;
  h.payload_hash = XXH3_64bits(payload, e.bytes + e.slack);
  h.sample_hash = SampleHash(payload, e.bytes + e.slack);
  h.header_hash = HeaderHash(h);
  uint8_t header[kHeaderBytes] = {};
  std::memcpy(header, &h, sizeof h);
  if (!WriteAll(f.fd, header, kHeaderBytes, 0) || !WriteAll(f.fd, payload, e.bytes + e.slack, kHeaderBytes)) {
    return give_up("write", errno);
  }
  // Durable before visible: after a crash the name holds the whole pool, the old file or nothing.
  if (::fdatasync(f.fd) != 0) return give_up("fdatasync", errno);
  if (::rename(tmp.c_str(), path.c_str()) != 0) return give_up("rename", errno);
  return true;
}

ConstantPoolMemory PrivateCopy(const Expected& e, const std::function<void(uint8_t*)>& fill, const std::string& what) {
  size_t map_bytes = e.bytes + e.slack;
  void* map = ::mmap(nullptr, map_bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  AOTRT_REQUIRE(map != MAP_FAILED, kOutOfMemory, what, ": cannot allocate ", GroupedNumber(e.bytes), " bytes (+",
                e.slack, " slack) for the constant pool");
  ConstantPoolMemory m =
      ConstantCacheAccess::Make(map, map_bytes, 0, e.bytes, e.slack, ConstantPoolMemory::Source::kPrivateCopy, "");
  uint8_t* p = static_cast<uint8_t*>(map);
  fill(p);  // anonymous memory is zeroed; `m` unmaps if this throws
  FillCanary(p + e.bytes, e.slack);
  ::mprotect(map, map_bytes, PROT_READ);  // as the shared file: a store into constants faults either way
  return m;
}

}  // namespace

ConstantCacheOptions ConstantCacheOptions::FromEnvironment() {
  ConstantCacheOptions o;
  o.enabled = Flag("AOTRT_CONSTANT_CACHE", true);
  o.verify = Flag("AOTRT_CONSTANT_CACHE_VERIFY", false);
  return o;
}

std::string DefaultConstantCacheDirectory() {
  const char* v = std::getenv("AOTRT_CACHE_DIR");
  if (v != nullptr && *v != '\0') return v;
  v = std::getenv("XDG_CACHE_HOME");
  if (v != nullptr && v[0] == '/') return StrCat(v, "/aotrt");  // relative values are ignored (XDG)
  v = std::getenv("HOME");
  if (v != nullptr && *v != '\0') return StrCat(v, "/.cache/aotrt");
  return std::string();
}

std::string FileIdentityKey(const std::string& path) {
  struct stat st;
  if (::stat(path.c_str(), &st) != 0) return std::string();
  return StrCat("file:", path, "|dev=", st.st_dev, "|ino=", st.st_ino, "|size=", st.st_size,
                "|mtime_ns=", static_cast<int64_t>(st.st_mtim.tv_sec) * 1000000000 + st.st_mtim.tv_nsec);
}

std::string ContentKey(const std::vector<std::pair<const void*, size_t>>& ranges) {
  XXH3_state_t state;
  XXH3_128bits_reset(&state);
  for (const auto& [data, n] : ranges) XXH3_128bits_update(&state, data, n);
  XXH128_hash_t h = XXH3_128bits_digest(&state);
  char hex[48];
  std::snprintf(hex, sizeof hex, "xxh3-128:%016llx%016llx", static_cast<unsigned long long>(h.high64),
                static_cast<unsigned long long>(h.low64));
  return hex;
}

ConstantPoolMemory& ConstantPoolMemory::operator=(ConstantPoolMemory&& o) noexcept {
  if (this != &o) {
    Reset();
    map_ = o.map_;
    map_bytes_ = o.map_bytes_;
    data_ = o.data_;
    bytes_ = o.bytes_;
    slack_ = o.slack_;
    source_ = o.source_;
    path_ = std::move(o.path_);
    o.map_ = nullptr;
    o.data_ = nullptr;
    o.bytes_ = o.slack_ = o.map_bytes_ = 0;
    o.source_ = Source::kNone;
  }
  return *this;
}

void ConstantPoolMemory::Reset() {
  Unmap(map_, map_bytes_);
  map_ = nullptr;
  data_ = nullptr;
}

namespace {
thread_local const ConstantCacheOptions* t_scoped_options = nullptr;
}  // namespace

ConstantCacheOptions CurrentConstantCacheOptions() {
  return t_scoped_options ? *t_scoped_options : ConstantCacheOptions::FromEnvironment();
}

ScopedConstantCacheOptions::ScopedConstantCacheOptions(const ConstantCacheOptions& options)
    : previous_(t_scoped_options) {
  t_scoped_options = &options;
}

ScopedConstantCacheOptions::~ScopedConstantCacheOptions() { t_scoped_options = previous_; }

ConstantPoolMemory GetConstantPool(const std::string& key, size_t bytes, const std::function<void(uint8_t*)>& fill,
                                   const ConstantCacheOptions& options, const std::string& what) {
  using Source = ConstantPoolMemory::Source;
  Expected e{};
  e.bytes = bytes;
  e.slack = TailSlack(bytes);
  std::string full_key = StrCat(key, "|layout=", kConstantCacheLayoutVersion, "|bytes=", bytes, "|slack=", e.slack);
  XXH128_hash_t h = XXH3_128bits(full_key.data(), full_key.size());
  e.key_hash[0] = h.low64;
  e.key_hash[1] = h.high64;
  std::string dir = options.enabled ? (options.directory.empty() ? DefaultConstantCacheDirectory() : options.directory)
                                    : std::string();
  if (dir.empty()) {
    AOTRT_LOG_DEBUG(what, ": constant cache ", options.enabled ? "has no directory" : "is off", "; using a private copy");
    return PrivateCopy(e, fill, what);
  }
  std::string path = StrCat(dir, "/", e.Name(), ".aotrt-pool");
  ConstantPoolMemory m;
  if (MapFile(path, e, options.verify, what, Source::kMappedCache, &m)) return m;
  if (!MakeDirectories(dir)) {
    AOTRT_LOG_DEBUG(what, ": constant cache: cannot create directory ", dir, "; using a private copy");
    return PrivateCopy(e, fill, what);
  }
  // One builder at a time per directory; the others wait and then map what it built.
  Fd lock;
  lock.fd = ::open(StrCat(dir, "/.lock").c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0644);
  if (lock.fd >= 0) {
    while (::flock(lock.fd, LOCK_EX) != 0 && errno == EINTR) {
    }
    if (MapFile(path, e, options.verify, what, Source::kMappedCache, &m)) return m;
  }
  // Built in memory, written, then mapped from the file so that this process shares its pages
  // too; the copy is the fallback when writing fails.
  ConstantPoolMemory copy = PrivateCopy(e, fill, what);
  if (WriteFile(dir, path, e, copy.data(), what) && MapFile(path, e, false, what, Source::kBuiltCache, &m)) return m;
  return copy;
}

}  // namespace aotrt
