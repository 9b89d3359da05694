// The per-machine cache directory (constant pools shared by every process, compiled C-interface
// archives, OpenCL program binaries): where it is, what it holds, and clearing it; what
// `aotrt cache` calls (README, "The constant cache").
// Ownership: every result is a value owned by the caller. Thread-safety: every function may be
// called from any thread at any time, also while models load and run; ClearCache serialises with
// the writers of every process through the directory's `.lock`. Errors: aotrt::Error, as each
// declaration says.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "aotrt/export.h"
#include "aotrt/options.h"

namespace aotrt {

// What a file of the cache directory is (from its name).
enum class CacheEntryKind {
  kConstantPool,     // <content hash>.aotrt-pool: a model's constant pool, mapped by every process
  kAlias,            // <file identity hash>.aotrt-alias: a link from one model file to its pool
  kArchiveLibrary,   // mlf-<hash>.so: a Model Library Format archive compiled once
  kProgramBinary,    // opencl-<hash>.bin, vulkan-<hash>.bin: kernels built once for a device
  kTemporary,        // .tmp-*: a writer's file before its rename (a leftover when its writer died)
  kLock,             // .lock: the directory lock
  kOther,            // anything else (left alone by ClearCache)
};

// "constant pool", "alias", "archive library", "program binary", "temporary", "lock", "other".
AOTRT_API const char* CacheEntryKindName(CacheEntryKind kind);

struct CacheEntry {
  std::string name;        // the file's name in the directory
  CacheEntryKind kind = CacheEntryKind::kOther;
  uint64_t bytes = 0;      // its size on disk (an alias: 0; a folder: 0)
  int64_t last_used = 0;   // modification time, seconds since 1970: a hit marks its pool at most hourly
  std::string model;       // a pool: the model it was first built for ("" when unknown)
  std::string target;      // an alias: the pool it links to
  bool valid = true;       // a pool: its header is intact; an alias: its pool exists
};

struct CacheListing {
  std::string directory;
  bool exists = false;                // false: the directory does not exist (nothing cached yet)
  std::vector<CacheEntry> entries;    // sorted by name
  uint64_t pool_bytes = 0;            // the constant pools' total: what the size limit applies to
  uint64_t total_bytes = 0;           // every entry's total
  uint64_t max_bytes = 0;             // the constant pools' limit (least recently used removed beyond it)
};

struct CacheClearResult {
  size_t files_removed = 0;
  uint64_t bytes_removed = 0;
};

// The cache directory and size limit a load with `options` uses, the environment merged in as at a
// load (LoadOptions::cache_dir and cache_max_bytes; "" when no directory is set). Throws
// Error(kInvalidArgument) for a malformed AOTRT_* variable, as a load would.
AOTRT_API std::string CacheDirectory(const LoadOptions& options = LoadOptions());
AOTRT_API uint64_t CacheMaxBytes(const LoadOptions& options = LoadOptions());

// Every file of `directory` (CacheDirectory() when ""), with the size limit of `options`. A missing
// directory lists as empty (exists false). Throws Error(kInvalidArgument) when no directory is set
// or the path is not a directory, Error(kIOError) when it cannot be read.
AOTRT_API CacheListing ListCache(const std::string& directory = "", const LoadOptions& options = LoadOptions());

// Removes every constant pool, alias, compiled archive library, program binary and temporary file
// of `directory` (CacheDirectory() when ""), holding the directory's `.lock` so that no writer of any process is
// mid-write; waits at most `lock_wait_ms` for one to finish. Processes that have a pool mapped keep
// it; later loads rebuild. Other files are left alone. Throws Error(kInvalidArgument) when no
// directory is set or the path is not a directory, Error(kIOError) when the lock stays held or a
// file cannot be removed (the message names it). A missing directory clears nothing.
AOTRT_API CacheClearResult ClearCache(const std::string& directory = "", int lock_wait_ms = 10000);

}  // namespace aotrt
