#include "aot/constant_cache_writer.h"

#include <dlfcn.h>
#include <fcntl.h>
#include <pthread.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdlib>
#include <cstring>
#include <deque>
#include <mutex>
#include <thread>

#include "aot/cache_directory.h"
#include "aot/constant_cache.h"
#include "aot/constant_pool_file.h"
#include "base/error_util.h"
#include "base/logging.h"

// Header-only: the inlined functions are static, so the installed library gains no dependency.
#define XXH_INLINE_ALL
#include <xxhash.h>

namespace aotrt {
namespace {

constexpr auto kExitWait = std::chrono::seconds(5);

struct WriterState {
  std::mutex mu;
  std::condition_variable cv;
  std::deque<CacheWriteJob> queue;
  bool thread_running = false;
  bool busy = false;            // a job is being written
  bool forked_child = false;    // this is a fork's child: `queue` holds the parent's jobs
  int lock_fd = -1;             // the running job's lock descriptor (closed in a fork's child)
  std::atomic<bool> exiting{false};   // no new jobs; no waiting for another process's lock
  std::atomic<bool> abandon{false};   // the exit's wait is over: stop between writes
};

// Never destroyed: the writer may still run while the process exits.
WriterState& State() {
  static WriterState* state = new WriterState;
  return *state;
}

void BeforeFork() { State().mu.lock(); }
void AfterForkInParent() { State().mu.unlock(); }
void AfterForkInChild() {
  WriterState& s = State();
  if (s.lock_fd >= 0) ::close(s.lock_fd);  // the parent's writer holds the lock; this copy must not
  s.lock_fd = -1;
  s.thread_running = false;  // threads do not survive fork
  s.busy = false;
  s.forked_child = true;
  s.mu.unlock();
}

// The process is exiting: the queued jobs get up to kExitWait in all (a short-lived process, e.g.
// `aotrt run`, still leaves its files), but none waits for another process's lock; past that the
// writer stops between writes and the rest is dropped.
void OnExit() {
  WriterState& s = State();
  std::unique_lock<std::mutex> lock(s.mu);
  s.exiting = true;
  if (s.forked_child) return;  // the queue holds the parent's jobs: no thread here runs them
  if (!s.cv.wait_for(lock, kExitWait, [&] { return s.queue.empty() && !s.busy; })) {
    s.abandon = true;
    s.queue.clear();
  }
}

// Keeps libaotrt mapped for as long as the process lives: a dlclose() while the writer runs its code
// would unmap it under the thread.
void PinLibrary() {
  Dl_info info;
  if (::dladdr(reinterpret_cast<void*>(&PinLibrary), &info) != 0 && info.dli_fname != nullptr) {
    ::dlopen(info.dli_fname, RTLD_NOW | RTLD_NOLOAD | RTLD_NODELETE);
  }
}

// The content key of a pool: xxh3-128 of its bytes and what gives them their meaning (layout
// version, sizes). ~1 ms per 16 MiB, on the writer's thread.
PoolFileSpec ContentSpec(const uint8_t* payload, size_t bytes, size_t slack) {
  XXH3_state_t st;
  XXH3_128bits_reset(&st);
  XXH3_128bits_update(&st, payload, bytes + slack);
  std::string tail = StrCat("|layout=", kConstantCacheLayoutVersion, "|bytes=", bytes, "|slack=", slack);
  XXH3_128bits_update(&st, tail.data(), tail.size());
  XXH128_hash_t h = XXH3_128bits_digest(&st);
  PoolFileSpec spec;
  spec.key_hash[0] = h.low64;
  spec.key_hash[1] = h.high64;
  spec.bytes = bytes;
  spec.slack = slack;
  return spec;
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

enum class Existing { kNone, kSame, kCollision };

// Whether the pool file `path` of `spec` holds exactly `job`'s bytes, compared byte for byte (the
// names matched by hash; a collision must never hand this model another's constants). A file that
// differs and whose own bytes do not hash to its name is damaged: kNone, so it is rewritten.
Existing FindExistingPool(const std::string& path, const PoolFileSpec& spec, const CacheWriteJob& job) {
  ConstantPoolMemory m;
  if (!MapPoolFile(path, spec, false, job.what, ConstantSource::kMappedCache, &m)) return Existing::kNone;
  if (std::memcmp(m.data(), job.payload, job.bytes + job.slack) == 0) {
    ::utimensat(AT_FDCWD, path.c_str(), nullptr, 0);  // used now
    return Existing::kSame;
  }
  PoolFileSpec own = ContentSpec(m.data(), m.bytes(), m.slack());
  if (own.key_hash[0] != spec.key_hash[0] || own.key_hash[1] != spec.key_hash[1]) {
    AOTRT_LOG_DEBUG(job.what, ": constant cache: rewriting ", path, ": its bytes do not match its name");
    return Existing::kNone;
  }
  AOTRT_LOG_WARN(job.what, ": constant cache: ", path, " has this pool's content hash but other bytes "
                 "(an xxh3-128 collision); this model stays on its private copy");
  return Existing::kCollision;
}

void WriteJob(const CacheWriteJob& job) {
  const std::string& dir = job.directory;
  auto give_up_lock = [] { return State().exiting.load(); };
  auto give_up = [] { return State().abandon.load(); };
  auto log = [&](const std::string& m) { AOTRT_LOG_DEBUG(job.what, ": constant cache: ", m); };
  // The load made the directory; one removed since (a test's temporary, a cleanup) is not remade.
  struct stat st;
  if (::stat(dir.c_str(), &st) != 0 || !S_ISDIR(st.st_mode)) return log(StrCat(dir, " is gone; not written"));
  WriterState& s = State();
  int fd;
  {
    std::lock_guard<std::mutex> l(s.mu);  // opened and recorded before any fork can copy it
    fd = ::open(StrCat(dir, "/.lock").c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0644);
    s.lock_fd = fd;
  }
  struct CloseLock {
    int fd;
    ~CloseLock() {
      std::lock_guard<std::mutex> l(State().mu);
      if (fd >= 0) ::close(fd);
      State().lock_fd = -1;
    }
  } close_lock{fd};
  LockResult locked = fd >= 0 ? LockWithin(fd, job.lock_wait_ms, give_up_lock) : LockResult::kUnsupported;
  if (locked == LockResult::kTimedOut) {
    return log(give_up_lock() ? std::string("the process is exiting; not written")
                         : StrCat("another process has held ", dir, "/.lock for over ", job.lock_wait_ms,
                                  " ms; not written (the private copy serves)"));
  }
  ConstantPoolMemory done;
  if (MapThroughAlias(dir, job.alias_path, job.bytes, job.bytes, job.verify, job.what, &done)) return;  // another's
  PoolFileSpec spec = ContentSpec(job.payload, job.bytes, job.slack);
  std::string name = spec.Name() + kPoolSuffix, path = StrCat(dir, "/", name);
  Existing existing = FindExistingPool(path, spec, job);
  if (existing == Existing::kCollision) return;
  if (existing == Existing::kNone &&
      !WritePoolFile(dir, path, spec, job.payload, job.built_for, locked == LockResult::kLocked, job.what, give_up)) {
    return;
  }
  std::string why;
  if (!LinkAlias(dir, job.alias_path, name, &why)) return log(why + "; the private copy serves");
  log(StrCat("wrote ", job.alias_path, " -> ", name));
  PruneCacheDirectory(dir, path, job.max_bytes, log);
}

void WriterMain() {
  // Below the process's own threads (Linux: nice is per thread): the write must not slow the
  // caller's first runs on a busy machine. Failure is harmless.
  ::setpriority(PRIO_PROCESS, static_cast<id_t>(::syscall(SYS_gettid)), 10);
  WriterState& s = State();
  std::unique_lock<std::mutex> lock(s.mu);
  while (!s.queue.empty() && !s.abandon) {
    CacheWriteJob job = std::move(s.queue.front());
    s.queue.pop_front();
    s.busy = true;
    lock.unlock();
    try {
      WriteJob(job);
    } catch (const std::exception& e) {  // bad_alloc in a message: the private copy serves
      AOTRT_LOG_DEBUG(job.what, ": constant cache: not written: ", e.what());
    }
    job = CacheWriteJob();  // the private copy is released before the next wait
    lock.lock();
    s.busy = false;
    s.cv.notify_all();
  }
  s.thread_running = false;
  s.cv.notify_all();
}

}  // namespace

void WriteInBackground(CacheWriteJob job) {
  static std::once_flag once;
  std::string what = job.what;
  try {
    std::call_once(once, [] {
      PinLibrary();
      ::pthread_atfork(&BeforeFork, &AfterForkInParent, &AfterForkInChild);
      std::atexit(&OnExit);
    });
    WriterState& s = State();
    std::lock_guard<std::mutex> lock(s.mu);
    if (s.exiting) return;
    if (s.forked_child) {  // the parent's jobs are the parent's to write
      s.queue.clear();
      s.forked_child = false;
    }
    if (!s.thread_running) {
      std::thread(&WriterMain).detach();  // takes `s.mu` first, so it finds the job pushed below
      s.thread_running = true;
    }
    s.queue.push_back(std::move(job));
  } catch (const std::exception& e) {
    AOTRT_LOG_DEBUG(what, ": constant cache: cannot start the writer (", e.what(), "); the private copy serves");
  }
}

bool WaitForCacheWrites(int timeout_ms) {
  WriterState& s = State();
  std::unique_lock<std::mutex> lock(s.mu);
  if (s.forked_child) return true;  // nothing of this process's own
  return s.cv.wait_for(lock, std::chrono::milliseconds(std::max(0, timeout_ms)),
                       [&] { return s.queue.empty() && !s.busy; });
}

}  // namespace aotrt
