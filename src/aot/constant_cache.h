// The constant cache (issue 15): a USMP constant pool (ABI.md 7.3), assembled from the serialized
// constants in the metadata, is built once per machine into a file and mapped read-only
// (MAP_SHARED), so that every process using the model shares the same page-cache pages instead of
// holding a private copy. This file is the policy (when, where, under which key, with which
// lock); aot/constant_pool_file.h is the file format and its checks.
//
// Pools smaller than ConstantCacheOptions::min_bytes (64 KiB) are always private copies: copying
// a few pages costs less than opening, checking and mapping a file, and holds little memory.
//
// Building: under an exclusive flock on `<directory>/.lock` (one builder per directory; others
// wait, then map its file; after ConstantCacheOptions::lock_wait_ms, 60 s, they give up and use a
// private copy, so a builder that hangs holding the lock delays later loads but never blocks them), the pool is assembled in private memory, written (about 12 ms for
// 32 MiB with its fdatasync, once per machine) and renamed over its final name; the builder then
// maps the file like everyone else. A file that fails any check is rebuilt and atomically
// replaced, never used. Any failure of the directory or the file system (missing and
// uncreatable, unwritable, full, I/O error) keeps the private copy (read-only, like the file)
// with a debug log: never an error.
//
// Size: a hit marks its file used (its modification time, at most once an hour); after building a
// file, the builder removes the least recently used pool files while the directory's pool files
// exceed ConstantCacheOptions::max_bytes (AOTRT_CACHE_MAX_MB, default 1024), never the file it
// just built. So files of keys no longer used (a replaced model file) age out. A process that has
// a removed file mapped keeps its pages.
//
// The cache directory must be trusted: whoever can write it can change a model's constants. The
// directory can be deleted at any time while no process is building into it. A process that has a file mapped
// keeps its pages when the file is replaced; truncating a mapped cache file in place (nothing in
// aotrt does) would make reads fault.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <string>
#include <utility>
#include <vector>

#include "aot/constant_pool_memory.h"
#include "aotrt/options.h"

namespace aotrt {

struct ConstantCacheOptions {
  bool enabled = true;             // false: always a private copy
  bool verify = false;             // hash the whole payload at every open
  std::string directory;           // "": no directory, so a private copy
  size_t min_bytes = size_t{64} << 10;  // smaller pools are private copies
  uint64_t max_bytes = kDefaultCacheMaxBytes;  // pool files kept in the directory (LRU beyond it)
  int lock_wait_ms = 60000;  // longest wait for another builder; then a private copy

  // What a load's options ask for (the front door has merged the environment into them and
  // resolved the directory).
  static ConstantCacheOptions From(const LoadOptions& load);
};

// mkdir -p with mode 0700 (XDG); true when `dir` is a directory afterwards. Never throws.
bool MakeDirectories(const std::string& dir);

// Maps into *out the pool that `alias` (a symbolic link to "<content hash>.aotrt-pool" in `dir`)
// names, when that file is a valid pool (constant_pool_file.h) of `bytes` + `slack` whose header
// names the same content; *out then reports kMappedCache from `alias`. The link's target is read,
// not followed: a target elsewhere, a damaged file or one whose header names other content is a
// miss (false, with a debug log unless the alias is simply missing).
bool MapThroughAlias(const std::string& dir, const std::string& alias, size_t bytes, size_t slack, bool verify,
                     const std::string& what, ConstantPoolMemory* out);

// Identity of a model file for a cache key: device, inode, size and modification time in
// nanoseconds, so that replacing or rewriting the file changes the key, and the same file reached
// by another path (relative, absolute, a link) keeps it. "" when stat fails.
std::string FileIdentityKey(const std::string& path);

// Identity by content, for a model loaded from memory: "xxh3-128:<32 hex digits>" of the byte
// ranges as if concatenated (e.g. every constant's serialized bytes; the key also carries their
// names, offsets and lengths). Costs a pass over them (~3 ms per 32 MiB).
std::string ContentKey(const std::vector<std::pair<const void*, size_t>>& ranges);

// The pool of `bytes` usable bytes, from the cache when `options` allow it for that size, else a
// private copy. `key()` (called only when the cache is used) returns everything the pool is built
// from: the model file's identity (FileIdentityKey) or a content hash for a model loaded from
// memory, plus the constants' names, offsets and lengths; the layout version and sizes are mixed
// in here. On a miss, `fill(dst)` writes the usable bytes into zeroed memory; an exception from
// `fill` is propagated after the temporary file is removed. `what` names the model in log
// messages. Thread-safe and safe across processes. Throws Error(kOutOfMemory) when even the
// private copy cannot be allocated, or whatever `key` or `fill` throws.
ConstantPoolMemory GetConstantPool(size_t bytes, const std::function<std::string()>& key,
                                   const std::function<void(uint8_t*)>& fill, const ConstantCacheOptions& options,
                                   const std::string& what);

}  // namespace aotrt
