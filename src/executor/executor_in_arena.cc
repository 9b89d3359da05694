#include "executor/executor_in_arena.h"

#include <sys/mman.h>

#include <algorithm>
#include <new>
#include <string>

#include "base/error_util.h"
#include "backend/arena_workspace.h"
#include "memory/tail_slack.h"  // GroupedNumber

namespace aotrt {
namespace {

// In front of the node in the arena: what to call once the node is destroyed (it is not part of
// the object, so it can be read after the destructor has run).
struct DestroyedCallback {
  void (*fn)(void*);
  void* data;
};
static_assert(sizeof(DestroyedCallback) <= kArenaCallbackBytes, "the callback must fit its slot");

// The callback and the node at the front of [data, data + bytes), the rest its executor's region.
// Throws ArenaExhausted when it does not fit.
ObjectPtr<ExecutorModuleNode> BuildIn(uint8_t* data, size_t bytes, bool zeroed, const ArenaBuild& b,
                                      const ExecutorOptions& options) {
  if (bytes < b.NodeBytes()) throw ArenaExhausted();
  ExecutorArena region(data + b.NodeBytes(), bytes - b.NodeBytes(), zeroed);
  ExecutorModuleNode* node = b.Place(data + kArenaCallbackBytes, region, options);
  // Armed only once the node exists: a node that failed to build was never anyone's to report.
  ::new (data) DestroyedCallback{options.on_destroyed, options.on_destroyed_data};
  return ObjectPtr<ExecutorModuleNode>(node);
}

// Anonymous memory for measuring, committed only where touched, so a generous size costs address
// space only.
class ScratchRegion {
 public:
  explicit ScratchRegion(size_t bytes) : bytes_(bytes) {
    void* p = mmap(nullptr, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    AOTRT_REQUIRE(p != MAP_FAILED, kOutOfMemory, "sizing an executor's arena: cannot map ", GroupedNumber(bytes),
                  " bytes of scratch address space");
    data_ = static_cast<uint8_t*>(p);
  }
  ~ScratchRegion() { munmap(data_, bytes_); }
  ScratchRegion(const ScratchRegion&) = delete;
  ScratchRegion& operator=(const ScratchRegion&) = delete;
  uint8_t* data() const { return data_; }
  size_t bytes() const { return bytes_; }

 private:
  uint8_t* data_ = nullptr;
  size_t bytes_;
};

struct Measured {
  size_t held = 0;               // node + everything the executor cut from the region
  size_t workspace_peak = 0;     // of the measuring run
};

// Builds an executor in scratch memory of `workspace` bytes more than its first guess and, with
// `run`, runs it once on zeros. Grows the scratch while it is too small.
Measured MeasureInScratch(const ArenaBuild& b, const ExecutorOptions& options, bool run) {
  size_t held_guess = b.NodeBytes() + b.HeldGuess();
  size_t workspace = run ? size_t{1} << 30 : 0;
  for (;;) {
    ScratchRegion scratch(held_guess + workspace);
    ObjectPtr<ExecutorModuleNode> node;
    try {
      node = BuildIn(scratch.data(), scratch.bytes(), /*zeroed=*/true, b, options);
    } catch (const ArenaExhausted&) {
      held_guess *= 2;
      continue;
    }
    ExecutorInterface& ex = node->executor();
    Measured m;
    m.held = b.NodeBytes() + ex.arena_used();
    if (!run) return m;
    try {
      ex.Run();
    } catch (const Error& e) {
      if (!ex.arena_workspace()->exhausted()) {
        AOTRT_THROW(kModelError, "sizing an executor's arena for ", b.Model(),
                    ": its run on zero inputs (which measures the run-time workspace) failed: ", e.what());
      }
      AOTRT_REQUIRE(workspace < (size_t{1} << 40), kOutOfMemory, "sizing an executor's arena for ", b.Model(),
                    ": a run takes more than ", GroupedNumber(workspace), " bytes of run-time workspace");
      workspace *= 4;
      continue;
    }
    m.workspace_peak = ex.arena_workspace()->peak();
    return m;
  }
}

// The run-time workspace an executor in an arena needs: measured once per model. When the
// measuring run fails, `strict` rethrows its error (every time, so ArenaBytes keeps saying why);
// otherwise the need counts as unknown (0): a run that finds the arena short fails naming it.
size_t RunTimeWorkspaceBytes(const ArenaBuild& b, bool strict) {
  constexpr int64_t kUnmeasured = -1, kRunFailed = -2;
  int64_t known = b.WorkspaceBytes().load(std::memory_order_acquire);
  if (known >= 0) return static_cast<size_t>(known);
  if (known == kRunFailed && !strict) return 0;
  if (known == kUnmeasured && !b.MayUseWorkspace()) {
    b.WorkspaceBytes().store(0, std::memory_order_release);
    return 0;
  }
  try {
    size_t bytes = MeasureInScratch(b, ExecutorOptions(), /*run=*/true).workspace_peak;
    b.WorkspaceBytes().store(static_cast<int64_t>(bytes), std::memory_order_release);
    return bytes;
  } catch (const Error& e) {
    if (e.code() != ErrorCode::kModelError) throw;
    b.WorkspaceBytes().store(kRunFailed, std::memory_order_release);
    if (strict) throw;
    return 0;
  }
}

}  // namespace

void RunArenaDestroyedCallback(void* node) {
  auto* cb = reinterpret_cast<DestroyedCallback*>(static_cast<uint8_t*>(node) - kArenaCallbackBytes);
  if (cb->fn) cb->fn(cb->data);
}

size_t ArenaBytesNeeded(const ArenaBuild& b, const ExecutorOptions& options) {
  size_t workspace = RunTimeWorkspaceBytes(b, /*strict=*/true);
  ExecutorOptions without_arena = options;
  without_arena.arena = nullptr;
  without_arena.arena_bytes = 0;
  without_arena.on_destroyed = nullptr;  // the scratch executor is not the caller's
  return MeasureInScratch(b, without_arena, /*run=*/false).held + workspace;
}

ObjectPtr<ExecutorModuleNode> CreateExecutorInArena(const ArenaBuild& b, const ExecutorOptions& options) {
  auto* data = static_cast<uint8_t*>(options.arena);
  auto addr = reinterpret_cast<uintptr_t>(data);
  AOTRT_REQUIRE(data != nullptr, kInvalidArgument, "ExecutorOptions::arena is null with arena_bytes ",
                GroupedNumber(options.arena_bytes), ": give the memory for an executor of ", b.Model(),
                " (Model::ArenaBytes says how much), or neither for the heap");
  AOTRT_REQUIRE(addr % kAllocAlignment == 0, kInvalidArgument, "ExecutorOptions::arena at 0x", Hex{addr}, " is not ",
                kAllocAlignment, "-byte aligned");
  size_t workspace = RunTimeWorkspaceBytes(b, /*strict=*/false);
  ObjectPtr<ExecutorModuleNode> node;
  try {
    node = BuildIn(data, options.arena_bytes, /*zeroed=*/false, b, options);
  } catch (const ArenaExhausted&) {
  }
  if (!node || node->executor().arena_workspace()->capacity() < workspace) {
    if (node) ::new (data) DestroyedCallback{nullptr, nullptr};  // refused: not the caller's to hear about
    node.reset();
    AOTRT_THROW(kInvalidArgument, "ExecutorOptions::arena of ", GroupedNumber(options.arena_bytes),
                " bytes is too small for an executor of ", b.Model(), ": it needs ",
                GroupedNumber(ArenaBytesNeeded(b, options)), " bytes (Model::ArenaBytes)");
  }
  return node;
}

}  // namespace aotrt
