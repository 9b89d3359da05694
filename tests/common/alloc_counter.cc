#include "common/alloc_counter.h"

#include <atomic>
#include <cerrno>
#include <cstddef>
#include <cstring>

#include <dlfcn.h>

#ifndef AOTRT_TEST_NO_MALLOC_HOOK
extern "C" {
void* __libc_malloc(size_t);
void* __libc_calloc(size_t, size_t);
void* __libc_realloc(void*, size_t);
void* __libc_memalign(size_t, size_t);
void __libc_free(void*);
}
#endif

namespace {
std::atomic<int64_t> g_calls{0};
std::atomic<int64_t> g_live{0};
std::atomic<int64_t> g_fail_after{-1};  // -1: off; otherwise allocations to let through first
std::atomic<void*> g_failed_caller{nullptr};  // return address of the refused allocation

// Whether this allocation is the one to fail (fault injection). One failure, then off again: with
// every later allocation failing too, not even the error's message could be built.
inline bool ShouldFail() {
  int64_t left = g_fail_after.load(std::memory_order_relaxed);
  while (left >= 0) {
    if (g_fail_after.compare_exchange_weak(left, left - 1, std::memory_order_relaxed)) return left == 0;
  }
  return false;
}

// `caller`: __builtin_return_address(0) of the hook (deeper frames need frame pointers).
inline void* Refused(void* caller) {
  g_failed_caller.store(caller, std::memory_order_relaxed);
  errno = ENOMEM;
  return nullptr;
}

inline void* Counted(void* p) {
  if (p) {
    g_calls.fetch_add(1, std::memory_order_relaxed);
    g_live.fetch_add(1, std::memory_order_relaxed);
  }
  return p;
}
}  // namespace

namespace aotrt_test {
#ifdef AOTRT_TEST_NO_MALLOC_HOOK
bool AllocHookActive() { return false; }
#else
bool AllocHookActive() { return true; }
#endif
AllocStats CurrentAllocStats() { return AllocStats{g_calls.load(), g_live.load()}; }
bool FailAllocationsAfter(int64_t n) { return g_fail_after.exchange(n < 0 ? -1 : n) < 0; }
bool LastFailureInDynamicLoader() {
  Dl_info info{};
  void* caller = g_failed_caller.load();
  return caller && dladdr(caller, &info) && info.dli_fname && std::strstr(info.dli_fname, "ld-linux");
}
}  // namespace aotrt_test

#ifndef AOTRT_TEST_NO_MALLOC_HOOK
extern "C" {
void* malloc(size_t n) {
  if (ShouldFail()) return Refused(__builtin_return_address(0));
  return Counted(__libc_malloc(n));
}
void* calloc(size_t n, size_t m) {
  if (ShouldFail()) return Refused(__builtin_return_address(0));
  return Counted(__libc_calloc(n, m));
}
void* realloc(void* p, size_t n) {
  if (n != 0 && ShouldFail()) return Refused(__builtin_return_address(0));  // p stays valid, as with a real failure
  void* q = __libc_realloc(p, n);
  if (!p) return Counted(q);
  if (q) g_calls.fetch_add(1, std::memory_order_relaxed);
  if (n == 0 && !q) g_live.fetch_sub(1, std::memory_order_relaxed);
  return q;
}
void free(void* p) {
  if (p) g_live.fetch_sub(1, std::memory_order_relaxed);
  __libc_free(p);
}
void* memalign(size_t a, size_t n) {
  if (ShouldFail()) return Refused(__builtin_return_address(0));
  return Counted(__libc_memalign(a, n));
}
void* aligned_alloc(size_t a, size_t n) {
  if (ShouldFail()) return Refused(__builtin_return_address(0));
  return Counted(__libc_memalign(a, n));
}
int posix_memalign(void** out, size_t a, size_t n) {
  if (ShouldFail()) {
    Refused(__builtin_return_address(0));
    return ENOMEM;
  }
  void* p = Counted(__libc_memalign(a, n));
  if (!p) return ENOMEM;
  *out = p;
  return 0;
}
}
#endif
