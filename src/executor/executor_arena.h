// One executor's region of caller memory (ExecutorOptions::arena; layout in
// executor/executor_in_arena.h): cut from the front, nothing given back before the executor is
// destroyed. Past the end: ArenaExhausted. Not thread-safe: used while its executor is created.
#pragma once

#include <cstddef>
#include <cstdint>
#include <exception>
#include <memory_resource>
#include <utility>

namespace aotrt {

// Thrown by ExecutorArena when its region has no room left; never escapes the creator.
struct ArenaExhausted : std::exception {
  const char* what() const noexcept override { return "the executor's arena has no room left"; }
};

class ExecutorArena : public std::pmr::memory_resource {
 public:
  ExecutorArena() = default;  // no region: every allocation throws ArenaExhausted
  // `zeroed`: the region is known to be zero (a fresh mapping), so buffers need no clearing.
  ExecutorArena(uint8_t* data, size_t bytes, bool zeroed = false)
      : begin_(data), top_(data), end_(data + bytes), zeroed_(zeroed) {}

  bool defined() const { return begin_ != nullptr; }
  bool zeroed() const { return zeroed_; }
  size_t used() const { return static_cast<size_t>(top_ - begin_); }
  // The rest of the region (its start and bytes), for the run-time workspace; nothing can be cut
  // from it afterwards.
  std::pair<uint8_t*, size_t> TakeRest() {
    size_t bytes = static_cast<size_t>(end_ - top_);
    return {std::exchange(top_, end_), bytes};
  }

 private:
  void* do_allocate(size_t bytes, size_t align) override {
    auto top = reinterpret_cast<uintptr_t>(top_);
    uintptr_t start = (top + align - 1) & ~(uintptr_t{align} - 1);
    if (start < top || start > reinterpret_cast<uintptr_t>(end_) || bytes > reinterpret_cast<uintptr_t>(end_) - start) {
      throw ArenaExhausted();
    }
    top_ = reinterpret_cast<uint8_t*>(start + bytes);
    return reinterpret_cast<void*>(start);
  }
  void do_deallocate(void*, size_t, size_t) override {}  // the caller's region, released with the executor
  bool do_is_equal(const std::pmr::memory_resource& other) const noexcept override { return this == &other; }

  uint8_t* begin_ = nullptr;
  uint8_t* top_ = nullptr;
  uint8_t* end_ = nullptr;
  bool zeroed_ = false;
};

}  // namespace aotrt
