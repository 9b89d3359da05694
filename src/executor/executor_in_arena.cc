#include "executor/executor_in_arena.h"

#include <sys/mman.h>

#include <memory>
#include <new>
#include <string>

#include "base/error_util.h"
#include "backend/arena_workspace.h"
#include "executor/planned_executor.h"
#include "memory/reserve.h"

namespace aotrt {
namespace {

// In front of the node in the arena: what to call once the node is destroyed (it is not part of
// the object, so it can be read after the destructor has run).
struct DestroyedCallback {
  void (*fn)(void*);
  void* data;
};
constexpr size_t kArenaCallbackBytes = kAllocAlignment;  // its slot
static_assert(sizeof(DestroyedCallback) <= kArenaCallbackBytes, "the callback must fit its slot");

// An executor module object in an arena: the last reference runs its destructor, frees nothing,
// then calls the callback in front of it.
class ExecutorModuleInArena final : public ExecutorModuleNode {
 public:
  using ExecutorModuleNode::ExecutorModuleNode;
  static void operator delete(void* node) {
    auto* cb = reinterpret_cast<DestroyedCallback*>(static_cast<uint8_t*>(node) - kArenaCallbackBytes);
    if (cb->fn) cb->fn(cb->data);
  }
};

// The bytes the callback slot and the node take at the front of an arena.
constexpr size_t kArenaNodeBytes =
    kArenaCallbackBytes + (sizeof(ExecutorModuleInArena) + kAllocAlignment - 1) / kAllocAlignment * kAllocAlignment;

// The callback slot and the node at the front of [data, data + bytes), the rest its executor's
// region. Throws ArenaExhausted when the region is too small for what the executor holds, or
// leaves less than `workspace` bytes of run-time workspace after it.
ObjectPtr<ExecutorModuleNode> BuildIn(uint8_t* data, size_t bytes, bool zeroed,
                                      const std::shared_ptr<const PlannedModel>& model, DLDevice device,
                                      const ExecutorOptions& options, size_t workspace) {
  if (bytes < kArenaNodeBytes) throw ArenaExhausted();
  ExecutorArena region(data + kArenaNodeBytes, bytes - kArenaNodeBytes, zeroed);
  ::new (data) DestroyedCallback{nullptr, nullptr};  // a node released here reports nothing
  ObjectPtr<ExecutorModuleNode> node(::new (data + kArenaCallbackBytes)
                                         ExecutorModuleInArena(model, device, options, region));
  if (node->executor().arena_workspace()->capacity() < workspace) throw ArenaExhausted();
  ::new (data) DestroyedCallback{options.on_destroyed, options.on_destroyed_data};
  return node;
}

// Anonymous memory for measuring, committed only where touched, so a generous size costs address
// space only.
struct Unmap {
  size_t bytes;
  void operator()(uint8_t* p) const { munmap(p, bytes); }
};
std::unique_ptr<uint8_t, Unmap> MapScratch(size_t bytes) {
  void* p = mmap(nullptr, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
  AOTRT_REQUIRE(p != MAP_FAILED, kOutOfMemory, "sizing an executor's arena: cannot map ", GroupedNumber(bytes),
                " bytes of scratch address space");
  return {static_cast<uint8_t*>(p), Unmap{bytes}};
}

// What an executor takes of an arena: the node and what the executor holds (built with `options`
// in scratch memory, exactly as in a caller's arena), or (`run`) the run-time workspace of one run
// on zeros: the one measure of both parts, so no formula has to mirror the layout. Grows the
// scratch while it is too small.
size_t Measure(const std::shared_ptr<const PlannedModel>& m, ExecutorOptions options, bool run) {
  options.on_destroyed = nullptr;
  size_t planned = kArenaNodeBytes;
  for (size_t bytes : m->plan().storage_bytes) planned += bytes + kAllocAlignment;
  for (size_t extra = size_t{1} << (run ? 30 : 24);; extra *= 4) {
    AOTRT_REQUIRE(extra < (size_t{1} << 42), kOutOfMemory, "sizing an executor's arena for ", m->display(),
                  ": it takes more than ", GroupedNumber(planned + extra / 4), " bytes");
    std::unique_ptr<uint8_t, Unmap> scratch = MapScratch(planned + extra);
    ObjectPtr<ExecutorModuleNode> node;
    try {
      node = BuildIn(scratch.get(), planned + extra, /*zeroed=*/true, m, DLDevice{kDLCPU, 0}, options, 0);
    } catch (const ArenaExhausted&) {
      continue;
    }
    PlannedExecutor& ex = node->executor();
    if (!run) return kArenaNodeBytes + ex.arena_used();
    try {
      ex.Run();
      return ex.arena_workspace()->peak();
    } catch (const Error& e) {
      AOTRT_REQUIRE(ex.arena_workspace()->exhausted(), kModelError, "sizing an executor's arena for ", m->display(),
                    ": its run on zero inputs (which measures the run-time workspace) failed: ", e.what());
    }
  }
}

// The run-time workspace an executor in an arena needs: measured once per model. When the
// measuring run fails, `strict` rethrows its error (every time, so ArenaBytes keeps saying why);
// otherwise the need counts as unknown (0): a run that finds the arena short fails naming it.
size_t RunTimeWorkspaceBytes(const std::shared_ptr<const PlannedModel>& m, bool strict) {
  constexpr int64_t kUnmeasured = -1, kRunFailed = -2;
  std::atomic<int64_t>& measured = m->arena_workspace_bytes();
  int64_t known = measured.load(std::memory_order_acquire);
  if (known >= 0) return static_cast<size_t>(known);
  if (known == kRunFailed && !strict) return 0;
  if (known == kUnmeasured && !m->MayUseWorkspace()) {
    measured.store(0, std::memory_order_release);
    return 0;
  }
  try {
    size_t bytes = Measure(m, ExecutorOptions(), /*run=*/true);
    measured.store(static_cast<int64_t>(bytes), std::memory_order_release);
    return bytes;
  } catch (const Error& e) {
    if (e.code() != ErrorCode::kModelError) throw;
    measured.store(kRunFailed, std::memory_order_release);
    if (strict) throw;
    return 0;
  }
}

}  // namespace

size_t ArenaBytesNeeded(const std::shared_ptr<const PlannedModel>& m, const ExecutorOptions& options) {
  size_t bytes = Measure(m, options, /*run=*/false) + RunTimeWorkspaceBytes(m, /*strict=*/true);
  return (bytes + kAllocAlignment - 1) / kAllocAlignment * kAllocAlignment;  // what aligned_alloc(64, n) takes
}

ObjectPtr<ExecutorModuleNode> CreateExecutorInArena(const std::shared_ptr<const PlannedModel>& m, DLDevice device,
                                                    const ExecutorOptions& options) {
  const ExecutorOptions::Arena& arena = std::get<ExecutorOptions::Arena>(options.memory);
  auto* data = static_cast<uint8_t*>(arena.data);
  auto addr = reinterpret_cast<uintptr_t>(data);
  AOTRT_REQUIRE(data != nullptr, kInvalidArgument, "the arena (ExecutorOptions::Arena) is null with ",
                GroupedNumber(arena.bytes), " bytes: give the memory for an executor of ", m->display(),
                " (Model::ArenaBytes says how much), or choose the heap");
  AOTRT_REQUIRE(addr % kAllocAlignment == 0, kInvalidArgument, "the arena (ExecutorOptions::Arena) at 0x", Hex{addr},
                " is not ", kAllocAlignment, "-byte aligned");
  size_t workspace = RunTimeWorkspaceBytes(m, /*strict=*/false);
  try {
    return BuildIn(data, arena.bytes, /*zeroed=*/false, m, device, options, workspace);
  } catch (const ArenaExhausted&) {
    AOTRT_THROW(kInvalidArgument, "the arena (ExecutorOptions::Arena) of ", GroupedNumber(arena.bytes),
                " bytes is too small for an executor of ", m->display(), ": it needs ",
                GroupedNumber(ArenaBytesNeeded(m, options)), " bytes (Model::ArenaBytes)");
  }
}

}  // namespace aotrt
