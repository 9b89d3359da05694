// The constant cache's file format (aot/constant_cache.h decides when it is used).
//
// A pool file is `<directory>/<32 hex digits>.aotrt-pool`: a 4 KiB header (magic, format and
// layout versions, the key hash, payload and slack sizes, an xxh3 hash of the payload, a hash of
// sampled blocks, a hash of the header) followed by the payload at a page boundary (the pool's
// bytes, then its tail slack filled with the canary: base/tail_slack.h), mapped directly.
//
// Opening checks the exact file size, the header and a bounded sample of payload blocks (first,
// last and evenly spaced ones: catches truncated, foreign, zeroed and overwritten files at a cost
// independent of the pool size). Hashing the whole payload costs time proportional to the weights
// at every load, so it is done only on request (`verify`); a bit flipped inside an unsampled block
// is otherwise not seen. Files are mapped without MAP_POPULATE, so that a load does no work
// proportional to the weights: the file's pages are mapped as the first run reads them, a whole
// large folio per fault (32 MiB: ~20 faults). A file held in 4 KiB folios (written in small
// writes, or read back in small pieces after eviction) costs ~500 faults instead, about as much
// as populating it would.
//
// Writing: to a temporary file created O_EXCL in the same directory, with large pwrite()s,
// fdatasync'ed (a crash can then never leave a valid-looking name over missing data), then renamed
// over the final name. Large writes matter: the page cache keeps the file in large folios, so
// mapping 32 MiB costs ~20 page faults and 0.1 ms instead of ~500 faults and 2-3 ms
// (bench/README.md). Temporary files older than an hour (crashed writers) are removed when a new
// one is created. Callers serialise writers (constant_cache.cc holds a lock).
#pragma once

#include <cstddef>
#include <cstdint>
#include <ctime>
#include <string>

#include "aot/constant_pool_memory.h"

namespace aotrt {

// Bump whenever what a pool file holds changes meaning (pool layout, slack policy, header): older
// files then no longer match and are rebuilt.
constexpr uint32_t kConstantCacheLayoutVersion = 1;

// What a valid file for one pool must say.
struct PoolFileSpec {
  uint64_t key_hash[2];  // of everything the pool is built from (constant_cache.cc)
  size_t bytes, slack;   // usable bytes, canary bytes after them
  size_t FileBytes() const;
  std::string Name() const;  // <32 hex digits of key_hash>
};

// Maps `path` read-only as `source` when it holds a valid pool for `spec` (`verify`: hash the whole
// payload too), and sets *modified (when not null) to the file's modification time; false, with a
// debug log naming `what` and why, when it is missing or invalid.
bool MapPoolFile(const std::string& path, const PoolFileSpec& spec, bool verify, const std::string& what,
                 ConstantSource source, ConstantPoolMemory* out, time_t* modified = nullptr);

// Writes `payload` (bytes + slack) as the pool file `path` in `dir`: temporary file, fdatasync,
// rename. False, with a debug log, on any failure of the file system (the temporary is removed).
bool WritePoolFile(const std::string& dir, const std::string& path, const PoolFileSpec& spec, const uint8_t* payload,
                   const std::string& what);

}  // namespace aotrt
