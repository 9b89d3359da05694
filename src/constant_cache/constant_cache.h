// The constant cache (issues 15, 25): a USMP constant pool (ABI.md 7.3), assembled from the
// serialized constants in the metadata, is kept once per machine in a file mapped read-only
// (MAP_SHARED), so that every process using the model shares the same page-cache pages instead of
// holding a private copy. This file is the policy (when, where, under which key);
// constant_cache/constant_pool_file.h is the file format and its checks; constant_cache/cache_directory.h is the
// directory's housekeeping.
//
// Pools smaller than ConstantCacheOptions::min_bytes (64 KiB) are always private copies: copying
// a few pages costs less than opening, checking and mapping a file, and holds little memory.
//
// Keys. A pool file is named by its content, `<xxh3-128 of its bytes and layout>.aotrt-pool`, so
// that every model file with the same constants shares one file. A model file reaches it through
// an alias named by the file's identity (FileIdentityKey: device, inode, size, mtime, ctime) and
// the pool's layout (the constants' names, offsets, lengths): `<hash>.aotrt-alias`, a symbolic link
// to the pool's name. Identity, not content, on the hit path: a hash of the weights would cost a
// read of all of them at every load.
//
// A hit: read the alias, open the pool it names, check it (constant_pool_file.h) and map it: a
// stat, a readlink and ~20 small syscalls. A miss: a private copy of the constants (what a load
// without a cache pays), from which the load writes the cache file under the directory's `.lock`
// (temporary file, rename; then the alias) and returns as kBuiltCache. Another process
// holding the lock is writing: the load does not wait, keeps its copy (kPrivateCopy) and a later
// load maps that process's file. A directory that cannot be created or written, or any failure
// while writing, gives kPrivateCopy with a debug log: never an error.
//
// Size: a hit marks its pool used (its modification time, at most once an hour); after writing a
// pool, a load removes the least recently used pool files while the directory's pool files
// exceed ConstantCacheOptions::max_bytes (AOTRT_CACHE_MAX_MB, default 1024), never the one it
// just wrote, and then the aliases of removed pools. A process that has a removed file mapped
// keeps its pages.
//
// The cache directory must be trusted: whoever can write it can change a model's constants. The
// directory can be deleted at any time while no process is writing into it (`aotrt cache clear`
// takes its lock). A process that has a file mapped keeps its pages when the file is replaced;
// truncating a mapped cache file in place (nothing in aotrt does) would make reads fault.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <string>
#include <utility>
#include <vector>

#include "constant_cache/constant_pool_memory.h"
#include "aotrt/options.h"

namespace aotrt {

struct ConstantCacheOptions {
  bool enabled = true;             // false: always a private copy
  bool verify = false;             // hash the whole payload at every open
  std::string directory;           // "": no directory, so a private copy
  size_t min_bytes = size_t{64} << 10;  // smaller pools are private copies
  uint64_t max_bytes = kDefaultCacheMaxBytes;  // pool files kept in the directory (LRU beyond it)

  // What a load's options ask for (the front door has merged the environment into them and
  // resolved the directory).
  static ConstantCacheOptions From(const LoadOptions& load);
};

// mkdir -p with mode 0700 (XDG); true when `dir` is a directory afterwards. Never throws.
bool MakeDirectories(const std::string& dir);

// Maps into *out the pool that `alias` (a symbolic link to "<content hash>.aotrt-pool" in `dir`)
// names, when that file is a valid pool (constant_pool_file.h) of [bytes_min, bytes_max] usable
// bytes (and their TailSlack) whose header names the same content; *out then reports kMappedCache
// from `alias`. The link's target is read, not followed: a target elsewhere, a damaged file or one
// whose header names other content is a miss (false, with a debug log unless the alias is simply
// missing).
bool MapThroughAlias(const std::string& dir, const std::string& alias, size_t bytes_min, size_t bytes_max,
                     bool verify, const std::string& what, ConstantPoolMemory* out);

// Identity of a model file for a cache key: device, inode, size, and modification and change
// times in nanoseconds, so that replacing or rewriting the file changes the key (ctime cannot be
// set back by `touch -d` or `cp -p`), and the same file reached by another path (relative,
// absolute, a link) keeps it. "" when stat fails.
std::string FileIdentityKey(const std::string& path);

// Identity by content, for a model loaded from memory: "xxh3-128:<32 hex digits>" of the byte
// ranges as if concatenated (e.g. every constant's serialized bytes; the key also carries their
// names, offsets and lengths). Costs a pass over them (~3 ms per 32 MiB).
std::string ContentKey(const std::vector<std::pair<const void*, size_t>>& ranges);

// Bytes GetConstantPool appends to a key (at most): callers reserve them when building it.
constexpr size_t kConstantPoolKeySuffixBytes = 32;

// What a pool is built from. On a hit only `key` is called (the constants are not read); `plan`
// (the pool's exact usable bytes: parses the constants) is called on a miss or when the cache is
// not used, then `fill(dst)` writes the usable bytes into zeroed memory.
struct ConstantPoolSource {
  size_t bytes_min = 0, bytes_max = 0;  // bounds on plan()'s result known without it (metadata)
  std::function<std::string()> key;     // the alias's identity (see GetConstantPool below)
  std::function<size_t()> plan;
  std::function<void(uint8_t*)> fill;
};

// The pool of `source`, as GetConstantPool below; a cached pool is used only when its size lies in
// [bytes_min, bytes_max]. What model loads call.
ConstantPoolMemory GetConstantPool(const ConstantPoolSource& source, const ConstantCacheOptions& options,
                                   const std::string& what);

// The pool of `bytes` usable bytes: mapped from the cache on a hit (kMappedCache), else a private
// copy (kBuiltCache when this load wrote its cache file, kPrivateCopy when the
// cache is off, the pool too small or the directory unusable). `key()` (called only when the cache
// is used) returns what names the alias: the model file's identity (FileIdentityKey) or a content
// hash for a model loaded from memory, plus the constants' names, offsets and lengths; the layout
// version and sizes are mixed in here. On a miss, `fill(dst)` writes the usable bytes into zeroed
// memory; an exception from `fill` is propagated and nothing is queued. `what` names the model in
// log messages and, in the pool file, for listings. cache_path() is the alias. Thread-safe and
// safe across processes. Throws Error(kOutOfMemory) when even the private copy cannot be
// allocated, or whatever `key` or `fill` throws.
ConstantPoolMemory GetConstantPool(size_t bytes, const std::function<std::string()>& key,
                                   const std::function<void(uint8_t*)>& fill, const ConstantCacheOptions& options,
                                   const std::string& what);

}  // namespace aotrt
