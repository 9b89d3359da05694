// The constant cache (issue 15): a USMP constant pool (ABI.md 7.3), assembled from the serialized
// constants in the metadata, is built once per machine into a file and mapped read-only
// (MAP_SHARED), so that every process using the model shares the same page-cache pages instead of
// holding a private copy.
//
// A cache file is `<directory>/<32 hex digits>.aotrt-pool`: a 4 KiB header (magic, format and
// layout versions, the key hash, payload and slack sizes, an xxh3 hash of the payload, a hash of
// sampled blocks, a hash of the header) followed by the payload at a page boundary (the pool's
// bytes, then its tail slack filled with the canary: base/tail_slack.h), mapped directly.
//
// Opening checks the exact file size, the header and a bounded sample of payload blocks (first,
// last and evenly spaced ones: catches truncated, foreign, zeroed and overwritten files at a
// cost independent of the pool size). Hashing the whole payload costs time proportional to the
// weights at every load, so it is done only with AOTRT_CONSTANT_CACHE_VERIFY=1
// (ConstantCacheOptions::verify); a bit flipped inside an unsampled block is otherwise not seen.
// A file that fails any check is rebuilt and atomically replaced, never used.
//
// Building: under an exclusive flock on `<directory>/.lock` (one builder per directory; others
// wait, then map its file), the pool is assembled in private memory, written with large pwrite()s
// to a temporary file created O_EXCL in the same directory, fdatasync'ed (about 12 ms for 32 MiB,
// once per machine: a crash can then never leave a valid-looking name over missing data) and
// renamed over the final name; the builder then maps the file like everyone else. Large writes
// matter: the page cache keeps the file in large folios, so mapping 32 MiB costs ~20 page faults
// and 0.1 ms instead of ~500 faults and 2-3 ms (bench/README.md). Files are mapped with
// MAP_POPULATE: a first run reads every page anyway. Temporary files older than an hour (crashed
// writers) are removed when a new one is created. Any failure of the directory or the file system
// (missing and uncreatable, unwritable, full, I/O error) keeps the private copy (read-only, like
// the file) with a debug log: never an error.
//
// The cache directory must be trusted: whoever can write it can change a model's constants.
// Files of keys no longer used (a replaced model file) are left in place; the directory can be
// deleted at any time while no process is building into it. A process that has a file mapped
// keeps its pages when the file is replaced; truncating a mapped cache file in place (nothing in
// aotrt does) would make reads fault.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <string>
#include <utility>
#include <vector>

#include "aotrt/model_info.h"

namespace aotrt {

// Bump whenever what a pool file holds changes meaning (pool layout, slack policy, header): older
// files then no longer match and are rebuilt.
constexpr uint32_t kConstantCacheLayoutVersion = 1;

struct ConstantCacheOptions {
  bool enabled = true;    // false: always a private copy
  bool verify = false;    // hash the whole payload at every open
  std::string directory;  // "" -> DefaultConstantCacheDirectory()

  // From the environment: AOTRT_CONSTANT_CACHE ("0" off; unset, "" or "1" on) and
  // AOTRT_CONSTANT_CACHE_VERIFY (same values); `directory` is left "" (resolved at use). Fields
  // set explicitly afterwards win. Throws Error(kInvalidArgument) naming a variable with another
  // value.
  static ConstantCacheOptions FromEnvironment();
};

// The options for constant pools built by loads on this thread: those of the innermost live
// ScopedConstantCacheOptions (Model::Load with LoadOptions sets them around its load, since a load
// through the packed loader registry carries no options), else FromEnvironment().
ConstantCacheOptions CurrentConstantCacheOptions();

class ScopedConstantCacheOptions {
 public:
  explicit ScopedConstantCacheOptions(const ConstantCacheOptions& options);  // must outlive this
  ~ScopedConstantCacheOptions();
  ScopedConstantCacheOptions(const ScopedConstantCacheOptions&) = delete;
  ScopedConstantCacheOptions& operator=(const ScopedConstantCacheOptions&) = delete;

 private:
  const ConstantCacheOptions* previous_;
};

// $AOTRT_CACHE_DIR if set and non-empty, else $XDG_CACHE_HOME/aotrt if that is an absolute path,
// else $HOME/.cache/aotrt if HOME is set; "" when none applies (the cache is then off).
std::string DefaultConstantCacheDirectory();

// Identity of a model file for a cache key: path, device, inode, size and modification time in
// nanoseconds, so that replacing or rewriting the file changes the key. "" when stat fails.
std::string FileIdentityKey(const std::string& path);

// Identity by content, for a model loaded from memory: "xxh3-128:<32 hex digits>" of the byte
// ranges as if concatenated (e.g. every constant's serialized bytes; the key also carries their
// names, offsets and lengths). Costs a pass over them (~3 ms per 32 MiB).
std::string ContentKey(const std::vector<std::pair<const void*, size_t>>& ranges);

// Read-only memory of a constant pool: bytes() usable bytes followed by slack() canary bytes, the
// data 4096-byte aligned. Move-only; unmaps on destruction (pointers into it die with it).
// Thread-safe to read from any number of threads.
class ConstantPoolMemory {
 public:
  using Source = ConstantSource;  // public (aotrt/model_info.h): inspect and ModelInfo report it

  ConstantPoolMemory() = default;
  ConstantPoolMemory(ConstantPoolMemory&& other) noexcept { *this = std::move(other); }
  ConstantPoolMemory& operator=(ConstantPoolMemory&& other) noexcept;
  ConstantPoolMemory(const ConstantPoolMemory&) = delete;
  ConstantPoolMemory& operator=(const ConstantPoolMemory&) = delete;
  ~ConstantPoolMemory() { Reset(); }

  const uint8_t* data() const { return data_; }
  size_t bytes() const { return bytes_; }
  size_t slack() const { return slack_; }
  // Where the memory came from (for inspect and benchmarks): an existing cache file, a cache file
  // this call built, or a private copy (cache off or unusable).
  Source source() const { return source_; }
  const std::string& cache_path() const { return path_; }  // "" for kPrivateCopy

 private:
  friend class ConstantCacheAccess;
  void Reset();
  void* map_ = nullptr;  // the whole mapping (header included for files)
  size_t map_bytes_ = 0;
  const uint8_t* data_ = nullptr;
  size_t bytes_ = 0;
  size_t slack_ = 0;
  Source source_ = Source::kNone;
  std::string path_;
};

// The pool of `bytes` usable bytes identified by `key` (everything it is built from: the model
// file's identity, e.g. FileIdentityKey, or a content hash for a model loaded from memory, plus the
// constants' names, offsets and lengths; the layout version and sizes are mixed in here). On a
// miss, `fill(dst)` writes the usable bytes into zeroed memory; an exception from `fill` is
// propagated after the temporary file is removed. `what` names the model in log messages.
// Thread-safe and safe across processes. Throws Error(kOutOfMemory) when even the private copy
// cannot be allocated, or whatever `fill` throws.
ConstantPoolMemory GetConstantPool(const std::string& key, size_t bytes, const std::function<void(uint8_t*)>& fill,
                                   const ConstantCacheOptions& options, const std::string& what);

}  // namespace aotrt
