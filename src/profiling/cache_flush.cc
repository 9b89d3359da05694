// cache_flush_cpu_non_first_arg: evict the tensor arguments (but the first) from the CPU caches.
#include <cstdint>
#include <cstring>
#include <vector>

#include <unistd.h>

#if defined(__x86_64__) || defined(_M_X64)
#include <emmintrin.h>
#define AOTRT_FLUSH_X86 1
#elif defined(__aarch64__)
#define AOTRT_FLUSH_ARM64 1
#endif

#include "aotrt/ndarray.h"
#include "aotrt/profiling.h"

namespace aotrt {
namespace {

#if defined(AOTRT_FLUSH_X86)
size_t CacheLineBytes() {
  static const size_t line = [] {
    long v = ::sysconf(_SC_LEVEL1_DCACHE_LINESIZE);
    return v > 0 && (v & (v - 1)) == 0 ? static_cast<size_t>(v) : size_t{64};
  }();
  return line;
}

void FlushRange(const char* addr, size_t len) {
  const size_t line = CacheLineBytes();
  uintptr_t end = reinterpret_cast<uintptr_t>(addr) + len;
  for (uintptr_t p = reinterpret_cast<uintptr_t>(addr) & ~(line - 1); p < end; p += line) {
    _mm_clflush(reinterpret_cast<const void*>(p));
  }
  _mm_mfence();
}
#elif defined(AOTRT_FLUSH_ARM64)
void FlushRange(const char* addr, size_t len) {
  uint64_t ctr_el0 = 0;
  asm volatile("mrs %0, ctr_el0" : "=r"(ctr_el0));
  const size_t line = size_t{4} << ((ctr_el0 >> 16) & 15);  // DminLine: log2 of words
  uintptr_t end = reinterpret_cast<uintptr_t>(addr) + len;
  for (uintptr_t p = reinterpret_cast<uintptr_t>(addr) & ~(line - 1); p < end; p += line) {
    asm volatile("dc civac, %0" : : "r"(p) : "memory");
  }
  asm volatile("dsb ish" : : : "memory");
}
#else
// No flush instruction: write through a buffer larger than common last-level caches.
void FlushRange(const char*, size_t) {
  constexpr size_t kSweepBytes = size_t{64} << 20;
  static thread_local std::vector<char> sweep(kSweepBytes);
  for (size_t i = 0; i < sweep.size(); i += 64) sweep[i] = static_cast<char>(sweep[i] + 1);
}
#endif

}  // namespace

void CacheFlushNonFirstArg(TVMArgs args) {
  for (int i = 1; i < args.size(); ++i) {
    int code = args[i].type_code();
    if (code != kTVMDLTensorHandle && code != kTVMNDArrayHandle) continue;
    const DLTensor* t = args[i].AsDLTensor();
    if (t->data == nullptr) continue;
    FlushRange(static_cast<const char*>(t->data) + t->byte_offset, TensorBytes(*t));
  }
}

}  // namespace aotrt
