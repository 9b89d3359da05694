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

}  // namespace aotrt_test
