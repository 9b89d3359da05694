// Writes constant pools into the cache off the load's path (issue 25): a load that misses returns
// with its private copy at once, and one background thread per process writes the cache file from
// that copy, then links the model file's alias to it.
//
// The writer, per job: takes the directory's `.lock` (one writer per directory across processes;
// it waits at most the job's lock_wait_ms), returns if another process wrote the alias meanwhile,
// hashes the pool (its content key), and either finds an existing pool file of that content
// (compared byte for byte, so that a hash collision can never hand a model another model's
// constants) or writes one (constant_pool_file.h: temporary file, fdatasync, rename); then points
// the alias at it (symlink to a temporary name, renamed over the alias: never torn) and prunes the
// directory to its size limit. Any failure leaves the process on its private copy, with a debug log.
//
// Process exit: an atexit handler waits up to 5 s in all for the queued jobs (so that a
// short-lived process, e.g. `aotrt run`, still leaves the file for the next), but a job waiting
// for another process's lock gives up at once; past 5 s the writer stops between writes, the rest
// is dropped, and a temporary file left behind is removed by the next writer (under the lock, any
// temporary is a dead writer's). A process that ends by _exit or a signal writes nothing more.
// The writer runs at nice 10, below the process's own threads. Its first job pins libaotrt
// (RTLD_NODELETE): a dlclose() while the writer runs would unmap its code under it.
// The writer's state is never destroyed and it logs only while the process is not exiting, so it
// is safe to be cut off at any point. fork(): the child closes the writer's descriptors (its copy
// of the lock must not keep the directory locked), has no writer thread, and drops the parent's
// queued jobs; the parent's writer is unaffected.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>

#include "aotrt/cache.h"  // WaitForCacheWrites, implemented in constant_cache_writer.cc

namespace aotrt {

struct CacheWriteJob {
  std::string directory;
  std::string alias_path;             // <directory>/<identity hash>.aotrt-alias
  size_t bytes = 0, slack = 0;        // the pool's usable and canary bytes
  const uint8_t* payload = nullptr;   // bytes + slack, read-only, kept mapped by `keep`
  std::shared_ptr<const void> keep;
  std::string built_for;              // the model, for listings
  std::string what;                   // the model, in log messages
  uint64_t max_bytes = 0;             // the directory's limit for pool files
  int lock_wait_ms = 60000;
  bool verify = false;                // hash whole pools when checking an existing alias
};

// Queues `job` for this process's writer thread (started on first use). Never throws: a thread
// that cannot be started leaves the model uncached, with a debug log.
void WriteInBackground(CacheWriteJob job);

}  // namespace aotrt
