// The constant cache's file format and its checks (constant_cache.h decides when it is used;
// README, 'The constant cache'). A pool file, `<directory>/<32 hex digits>.aotrt-pool` named by its
// content, is a 4 KiB header (FileHeader in the .cc) followed by the payload at a page boundary (the
// pool's bytes, then its tail slack filled with the canary: memory/reserve.h), mapped directly,
// without MAP_POPULATE. Opening checks the exact file size, the header and 16 sampled 512-byte
// payload blocks; the whole payload is hashed only on request (`verify`) and at the first map in a
// boot of a file last changed before it (files are not fsynced: a crash may have cut it short).
// Callers serialise writers (constant_cache.cc holds the directory lock).
#pragma once

#include <cstddef>
#include <cstdint>
#include <ctime>
#include <string>

#include "constant_cache/constant_pool_memory.h"

namespace aotrt {

// Bump whenever what a pool file holds changes meaning (pool layout, slack policy, header): older
// files then no longer match and are rebuilt.
constexpr uint32_t kConstantCacheLayoutVersion = 1;

// A pool file's name ends with this.
constexpr char kPoolSuffix[] = ".aotrt-pool";

// The temporary files of writers start with this (a writer that died leaves one behind).
constexpr char kPoolTempPrefix[] = ".tmp-";

// What a valid file for one pool must say.
struct PoolFileSpec {
  uint64_t key_hash[2] = {0, 0};  // the content hash (constant_cache.cc)
  // The usable bytes lie in [bytes, bytes_max] (a hit does not parse the constants: the header's
  // are taken); a writer's are exact (bytes_max == bytes). The canary slack after them is always
  // TailSlack(usable bytes).
  size_t bytes = 0, bytes_max = 0;
  std::string Name() const;  // <32 hex digits of key_hash>
};

// Sets spec->key_hash from a pool file's name, "<32 lowercase hex digits>.aotrt-pool"; false (spec
// untouched) for any other name.
bool ParsePoolFileName(const std::string& name, PoolFileSpec* spec);

// Maps `path` read-only (kMappedCache) when it holds a valid pool for `spec` (`verify`: hash the
// whole payload too; *out then has the file's sizes), and sets *modified (when not null) to the
// file's modification time; false, with a debug log naming `what` and why, when it is missing or invalid.
bool MapPoolFile(const std::string& path, const PoolFileSpec& spec, bool verify, const std::string& what,
                 ConstantPoolMemory* out, time_t* modified = nullptr);

// Writes `payload` (spec.bytes + their slack) as the pool file `path` in `dir` (temporary file, rename);
// `what` (the model's name and file, truncated to 255 bytes) goes into the header for listings
// and names the model in logs. Temporaries of dead writers are removed first: all of them when
// `dir` is locked (`locked`: no other writer can be running), else those older than an hour.
// False, with a debug log, on any failure of the file system (the temporary is removed).
bool WritePoolFile(const std::string& dir, const std::string& path, const PoolFileSpec& spec, const uint8_t* payload,
                   bool locked, const std::string& what);

// A pool file's header as `aotrt cache` lists it.
struct PoolFileHeader {
  bool valid = false;      // magic, version and header checksum right, file size matching
  uint64_t bytes = 0;      // usable bytes
  std::string built_for;   // the model it was first built for
};
PoolFileHeader ReadPoolFileHeader(const std::string& path);

}  // namespace aotrt
