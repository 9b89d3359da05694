#include "common/alloc_counter.h"

#include <atomic>
#include <cerrno>
#include <cstddef>

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
}  // namespace aotrt_test

#ifndef AOTRT_TEST_NO_MALLOC_HOOK
extern "C" {
void* malloc(size_t n) { return Counted(__libc_malloc(n)); }
void* calloc(size_t n, size_t m) { return Counted(__libc_calloc(n, m)); }
void* realloc(void* p, size_t n) {
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
void* memalign(size_t a, size_t n) { return Counted(__libc_memalign(a, n)); }
void* aligned_alloc(size_t a, size_t n) { return Counted(__libc_memalign(a, n)); }
int posix_memalign(void** out, size_t a, size_t n) {
  void* p = Counted(__libc_memalign(a, n));
  if (!p) return ENOMEM;
  *out = p;
  return 0;
}
}
#endif
