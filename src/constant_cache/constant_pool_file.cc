#include "constant_cache/constant_pool_file.h"

#include <dirent.h>
#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <cstring>
#include <ctime>

#include "base/error_util.h"
#include "base/logging.h"
#include "memory/reserve.h"
#include "base/unique_fd.h"

// Header-only: the inlined functions are static, so the installed library gains no dependency.
#define XXH_INLINE_ALL
#include <xxhash.h>
#if XXH_VERSION_NUMBER < 800
#error "aotrt needs xxHash 0.8 or newer (XXH3)"
#endif

namespace aotrt {
namespace {

constexpr char kMagic[8] = {'A', 'O', 'T', 'R', 'T', 'C', 'P', '\n'};
constexpr uint32_t kFormatVersion = 3;  // 2: content-keyed, with built_for; 3: 512-byte samples
constexpr size_t kHeaderBytes = 4096;  // the payload starts on a page
// At most 8 KiB read and hashed when a file is opened, in 16 preads (constant_pool_file.h). Smaller
// samples save nothing more: the preads' cost is then the syscalls' own.
constexpr size_t kSampleBlock = 512;
constexpr size_t kSampleCount = 16;
constexpr time_t kStaleTempSeconds = 3600;
constexpr size_t kBuiltForBytes = 256;

struct FileHeader {
  char magic[8];
  uint32_t format_version;
  uint32_t layout_version;
  uint64_t key_hash[2];
  uint64_t bytes;  // usable payload bytes
  uint64_t slack;  // canary bytes after them, part of the payload
  uint64_t payload_hash;
  uint64_t sample_hash;
  char built_for[kBuiltForBytes];  // NUL-terminated: the model it was first built for (listings)
  uint64_t header_hash;  // of every field above
};
static_assert(sizeof(FileHeader) == offsetof(FileHeader, header_hash) + 8, "no padding: hashed and written as bytes");

uint64_t HeaderHash(const FileHeader& h) { return XXH3_64bits(&h, offsetof(FileHeader, header_hash)); }

// The hash of the sampled ranges of an n-byte payload: kSampleCount evenly spaced blocks, the first
// and the last included (all of a small payload). `block(offset, length)` gives a range's bytes, or
// nullptr on a read error (then false).
template <typename Block>
bool SampleHash(size_t n, Block block, uint64_t* hash) {
  XXH3_state_t state;
  XXH3_64bits_reset(&state);
  bool small = n <= kSampleBlock * kSampleCount;
  for (size_t i = 0; i < (small ? 1 : kSampleCount); ++i) {
    size_t len = small ? n : kSampleBlock;
    const uint8_t* p = block(small ? 0 : (n - kSampleBlock) * i / (kSampleCount - 1), len);
    if (!p) return false;
    XXH3_64bits_update(&state, p, len);
  }
  *hash = XXH3_64bits_digest(&state);
  return true;
}

bool ReadAll(int fd, void* dst, size_t n, size_t at) { return AllAt(::pread, fd, static_cast<uint8_t*>(dst), n, at); }
bool WriteAll(int fd, const uint8_t* p, size_t n, size_t at) { return AllAt(::pwrite, fd, p, n, at); }

// Why `h` is not a pool file header of this version, or nullptr.
const char* HeaderProblem(const FileHeader& h) {
  if (std::memcmp(h.magic, kMagic, sizeof kMagic) != 0) return "not a constant pool file (magic)";
  if (h.header_hash != HeaderHash(h)) return "header checksum mismatch";
  if (h.format_version != kFormatVersion || h.layout_version != kConstantCacheLayoutVersion) return "other version";
  return nullptr;
}

// Why the header `h` of a file of `file_bytes` cannot be the pool `e`, or nullptr; sets *bytes and
// *slack to the header's sizes.
const char* InvalidHeader(const FileHeader& h, uint64_t file_bytes, const PoolFileSpec& e, size_t* bytes,
                          size_t* slack) {
  if (const char* why = HeaderProblem(h)) return why;
  if (h.key_hash[0] != e.key_hash[0] || h.key_hash[1] != e.key_hash[1]) return "other key";
  if (h.bytes < e.bytes || h.bytes > e.bytes_max || h.slack != TailSlack(static_cast<size_t>(h.bytes))) {
    return "a pool size the model's metadata rules out";
  }
  *bytes = static_cast<size_t>(h.bytes);
  *slack = static_cast<size_t>(h.slack);
  if (file_bytes != kHeaderBytes + h.bytes + h.slack) return "wrong file size";
  return nullptr;
}

// Why the payload of the open pool file `fd` (header `h`, mapped at `map`) is damaged, or nullptr
// (the whole payload is hashed only with `verify`).
const char* InvalidPayload(int fd, const FileHeader& h, bool verify, const uint8_t* map) {
  // Read with pread, not from the mapping (bench/README.md says why).
  uint8_t buf[kSampleBlock * kSampleCount];  // the most one sample reads (all of a small payload)
  auto read = [&](size_t at, size_t len) { return ReadAll(fd, buf, len, kHeaderBytes + at) ? buf : nullptr; };
  uint64_t sampled = 0;
  if (!SampleHash(h.bytes + h.slack, read, &sampled)) return "cannot read the sampled blocks";
  if (sampled != h.sample_hash) return "sampled blocks checksum mismatch";
  if (verify && XXH3_64bits(map + kHeaderBytes, h.bytes + h.slack) != h.payload_hash) {
    return "payload checksum mismatch";
  }
  return nullptr;
}

// When this boot began (wall-clock seconds). Pool files are not fsynced: one last changed before
// this boot may have been cut short by a crash, so its first map in a boot hashes it whole.
time_t BootTime() {
  static const time_t boot = [] {
    struct timespec real {}, up {};
    ::clock_gettime(CLOCK_REALTIME, &real);
    ::clock_gettime(CLOCK_BOOTTIME, &up);
    return real.tv_sec - up.tv_sec;
  }();
  return boot;
}

// Temporary files of writers that died before their rename: all of them when `dir` is locked (no
// writer can be running), else those untouched for an hour.
void RemoveStaleTemps(const std::string& dir, bool locked) {
  DIR* d = ::opendir(dir.c_str());
  if (d == nullptr) return;
  time_t now = std::time(nullptr);
  while (struct dirent* ent = ::readdir(d)) {
    struct stat st;
    if (std::strncmp(ent->d_name, kPoolTempPrefix, std::strlen(kPoolTempPrefix)) == 0 &&
        ::fstatat(::dirfd(d), ent->d_name, &st, AT_SYMLINK_NOFOLLOW) == 0 &&
        (locked || now - st.st_mtime > kStaleTempSeconds)) {
      ::unlinkat(::dirfd(d), ent->d_name, 0);
    }
  }
  ::closedir(d);
}

// A new temporary file in `dir`, created exclusively; -1 on failure (errno set).
int CreateTemp(const std::string& dir, const PoolFileSpec& e, std::string* tmp) {
  static std::atomic<unsigned> counter{0};
  for (int attempt = 0; attempt < 8; ++attempt) {
    *tmp = StrCat(dir, "/", kPoolTempPrefix, e.Name(), "-", ::getpid(), "-", counter++);
    int fd = ::open(tmp->c_str(), O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
    if (fd >= 0 || errno != EEXIST) return fd;
  }
  return -1;
}

}  // namespace

ConstantPoolMemory ConstantPoolMemory::Adopt(void* map, size_t map_bytes, size_t offset, size_t bytes, size_t slack,
                                             ConstantSource source, std::string path) {
  ConstantPoolMemory m;
  m.data_ = std::shared_ptr<const uint8_t>(static_cast<const uint8_t*>(map) + offset,
                                           [map, map_bytes](const uint8_t*) { ::munmap(map, map_bytes); });
  m.bytes_ = bytes;
  m.slack_ = slack;
  m.source_ = source;
  m.path_ = std::move(path);
  return m;
}

std::string PoolFileSpec::Name() const {
  return StrCat(Hex{key_hash[1], 16}, Hex{key_hash[0], 16});
}

bool ParsePoolFileName(const std::string& name, PoolFileSpec* spec) {
  const size_t suffix = sizeof kPoolSuffix - 1;
  if (name.size() != 32 + suffix || name.compare(32, suffix, kPoolSuffix) != 0) return false;
  uint64_t half[2] = {0, 0};  // high, low: Name() writes the high half first
  for (size_t i = 0; i < 32; ++i) {
    char c = name[i];
    int v = c >= '0' && c <= '9' ? c - '0' : c >= 'a' && c <= 'f' ? c - 'a' + 10 : -1;
    if (v < 0) return false;
    half[i / 16] = half[i / 16] << 4 | static_cast<uint64_t>(v);
  }
  spec->key_hash[1] = half[0];
  spec->key_hash[0] = half[1];
  return true;
}

bool MapPoolFile(const std::string& path, const PoolFileSpec& e, bool verify, const std::string& what,
                 ConstantPoolMemory* out, time_t* modified) {
  UniqueFd f(::open(path.c_str(), O_RDONLY | O_CLOEXEC));
  if (f.fd < 0) {
    if (errno != ENOENT) AOTRT_LOG_DEBUG(what, ": constant cache: cannot open ", path, ": ", std::strerror(errno));
    return false;
  }
  struct stat st;
  FileHeader h;
  size_t bytes = 0, slack = 0, file_bytes = 0;
  const char* why = nullptr;
  void* map = MAP_FAILED;
  if (::fstat(f.fd, &st) != 0 || static_cast<uint64_t>(st.st_size) < kHeaderBytes) {
    why = "wrong file size";
  } else if (!ReadAll(f.fd, &h, sizeof h, 0)) {
    why = "cannot read the header";
  } else if ((why = InvalidHeader(h, static_cast<uint64_t>(st.st_size), e, &bytes, &slack)) == nullptr) {
    // Not MAP_POPULATE, and checked with pread: a load maps none of the pages; the first run maps
    // the file's large folios a whole folio per fault (constant_pool_file.h).
    file_bytes = kHeaderBytes + bytes + slack;
    map = ::mmap(nullptr, file_bytes, PROT_READ, MAP_SHARED, f.fd, 0);
    const bool whole = verify || st.st_ctime < BootTime();
    why = map == MAP_FAILED ? "mmap failed" : InvalidPayload(f.fd, h, whole, static_cast<const uint8_t*>(map));
  }
  if (why != nullptr) {
    if (map != MAP_FAILED) ::munmap(map, file_bytes);
    AOTRT_LOG_DEBUG(what, ": constant cache: rebuilding ", path, ": ", why);
    return false;
  }
  // Hashed whole since this boot began: its change time moves past it, later maps trust it.
  if (st.st_ctime < BootTime()) ::futimens(f.fd, nullptr);
  *out = ConstantPoolMemory::Adopt(map, file_bytes, kHeaderBytes, bytes, slack, ConstantSource::kMappedCache, path);
  if (modified) *modified = st.st_mtime;
  return true;
}

bool WritePoolFile(const std::string& dir, const std::string& path, const PoolFileSpec& e, const uint8_t* payload,
                   bool locked, const std::string& what) {
  RemoveStaleTemps(dir, locked);
  std::string tmp;
  UniqueFd f(CreateTemp(dir, e, &tmp));
  auto give_up = [&](const char* step, int err) {
    AOTRT_LOG_DEBUG(what, ": constant cache: cannot ", step, " in ", dir, ": ", std::strerror(err),
                    "; using a private copy");
    if (f.fd >= 0) ::unlink(tmp.c_str());
    return false;
  };
  if (f.fd < 0) return give_up("create a temporary file", errno);
  const size_t slack = TailSlack(e.bytes), n = e.bytes + slack;
  uint64_t sampled = 0;
  SampleHash(n, [payload](size_t at, size_t) { return payload + at; }, &sampled);
  FileHeader h{{}, kFormatVersion, kConstantCacheLayoutVersion, {e.key_hash[0], e.key_hash[1]}, e.bytes, slack,
               XXH3_64bits(payload, n), sampled, {}, 0};
  std::memcpy(h.magic, kMagic, sizeof kMagic);
  std::memcpy(h.built_for, what.data(), std::min(what.size(), kBuiltForBytes - 1));
  h.header_hash = HeaderHash(h);
  uint8_t header[kHeaderBytes] = {};
  std::memcpy(header, &h, sizeof h);
  if (!WriteAll(f.fd, header, kHeaderBytes, 0)) return give_up("write", errno);
  // Large writes (bench/README.md: the page cache then keeps the file in large folios).
  constexpr size_t kChunk = size_t{8} << 20;
  for (size_t at = 0; at < n; at += kChunk) {
    if (!WriteAll(f.fd, payload + at, std::min(kChunk, n - at), kHeaderBytes + at)) return give_up("write", errno);
  }
  // Not fsynced (the load waits for this write): a crash may leave the name over a short or
  // zeroed file, which the size check or the whole-file hash of the next boot's first map rejects.
  if (::rename(tmp.c_str(), path.c_str()) != 0) return give_up("rename", errno);
  return true;
}

PoolFileHeader ReadPoolFileHeader(const std::string& path) {
  PoolFileHeader out;
  UniqueFd f(::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NOFOLLOW));
  FileHeader h;
  struct stat st;
  if (f.fd < 0 || ::fstat(f.fd, &st) != 0 || !ReadAll(f.fd, &h, sizeof h, 0)) return out;
  out.valid = !HeaderProblem(h) && static_cast<uint64_t>(st.st_size) == kHeaderBytes + h.bytes + h.slack;
  if (out.valid) {
    out.bytes = h.bytes;
    out.built_for.assign(h.built_for, strnlen(h.built_for, kBuiltForBytes));
  }
  return out;
}

}  // namespace aotrt
