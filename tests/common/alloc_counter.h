// Test helper: counts heap allocations of the whole process by interposing malloc and friends
// (defined in alloc_counter.cc, linked only into the allocation test executable).
#pragma once

#include <cstdint>

namespace aotrt_test {

struct AllocStats {
  int64_t calls;  // allocation calls so far
  int64_t live;   // allocations not yet freed
};

// Whether the hook is active (false under sanitizers, which own malloc).
bool AllocHookActive();
AllocStats CurrentAllocStats();
// Fault injection: after `n` more successful allocations (of any thread) the next one fails
// (NULL, ENOMEM), once; later ones succeed. FailAllocationsAfter(-1) disarms it if it has not
// fired. Returns whether the previous arming fired. No-op without the hook.
bool FailAllocationsAfter(int64_t n);
// Whether the allocation refused last was glibc's dynamic loader's own (inside dlopen): glibc does
// not free all of a dlopen that fails for lack of memory, which is not aotrt's to fix.
bool LastFailureInDynamicLoader();

}  // namespace aotrt_test
