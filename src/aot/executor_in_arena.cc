#include "aot/executor_in_arena.h"

#include <sys/mman.h>

#include <algorithm>
#include <new>
#include <string>

#include "base/error_util.h"
#include "memory/tail_slack.h"

namespace aotrt {
namespace {

// In front of the node in the arena: what to call once the node is destroyed (it is not part of
// the object, so it can be read after the destructor has run).
struct DestroyedCallback {
  void (*fn)(void*);
  void* data;
};
constexpr size_t kCallbackBytes = kAllocAlignment;
static_assert(sizeof(DestroyedCallback) <= kCallbackBytes, "the callback must fit its slot");

// An executor module in an arena: the last reference runs its destructor, frees nothing, then
// tells the caller (ExecutorOptions::on_destroyed) that its memory is no longer used.
class ArenaExecutorModuleNode final : public AotExecutorModuleNode {
 public:
  using AotExecutorModuleNode::AotExecutorModuleNode;
  static void operator delete(void* p) {
    auto* cb = reinterpret_cast<DestroyedCallback*>(static_cast<uint8_t*>(p) - kCallbackBytes);
    if (cb->fn) cb->fn(cb->data);
  }
};

constexpr size_t kNodeBytes =
    kCallbackBytes + (sizeof(ArenaExecutorModuleNode) + kAllocAlignment - 1) / kAllocAlignment * kAllocAlignment;

// The callback and the node at the front of [data, data + bytes), the rest its executor's region.
// Throws ArenaExhausted when it does not fit.
ObjectPtr<AotExecutorModuleNode> BuildIn(uint8_t* data, size_t bytes, bool zeroed,
                                         const std::shared_ptr<const LoadedModel>& model, DLDevice device,
                                         const ExecutorOptions& options, const ExecutorOptions& floor) {
  if (bytes < kNodeBytes) throw ArenaExhausted();
  ExecutorArena region(data + kNodeBytes, bytes - kNodeBytes, zeroed);
  auto* node = ::new (data + kCallbackBytes) ArenaExecutorModuleNode(model, device, options, floor, region);
  // Armed only once the node exists: a node that failed to build was never anyone's to report.
  ::new (data) DestroyedCallback{options.on_destroyed, options.on_destroyed_data};
  return ObjectPtr<AotExecutorModuleNode>(node);
}

// Whether a run may take run-time workspace: the library calls TVMBackendAllocWorkspace, or
// packed functions of the runtime (tvm.contrib.sort takes workspace; the model's first call looks
// each function up once), directly or through context pointers. A library whose dynamic symbols say
// nothing (a system library) is assumed to.
bool MayUseRunTimeWorkspace(const ModelProgram& p) {
  if (p.runtime_imports.empty() && p.context_pointers.empty()) return true;
  auto has = [](const std::vector<std::string>& v, const std::string& s) { return std::find(v.begin(), v.end(), s) != v.end(); };
  for (const char* fn : {"TVMBackendAllocWorkspace", "TVMBackendGetFuncFromEnv", "TVMFuncCall"}) {
    if (has(p.runtime_imports, fn) || has(p.context_pointers, std::string("__") + fn)) return true;
  }
  return false;
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

// What an executor holds for itself, with room for every buffer of the model: a first guess.
size_t HeldEstimate(const ModelMetadata& md) {
  size_t bytes = kNodeBytes + (size_t{64} << 10) + md.NumArgs() * 128;
  for (const std::vector<TensorSpec>* list : {&md.inputs, &md.outputs, &md.workspace_pools}) {
    for (const TensorSpec& t : *list) bytes += t.bytes + kAllocAlignment;
  }
  return bytes;
}

struct Measured {
  size_t held = 0;               // node + everything the executor cut from the region
  size_t workspace_peak = 0;     // of the measuring run
};

// Builds an executor in scratch memory of `workspace` bytes more than its first guess and, with
// `run`, runs it once on zeros. Grows the scratch while it is too small.
Measured MeasureInScratch(const std::shared_ptr<const LoadedModel>& model, DLDevice device, const ExecutorOptions& options,
                          const ExecutorOptions& floor, bool run) {
  size_t held_guess = HeldEstimate(model->metadata());
  size_t workspace = run ? size_t{1} << 30 : 0;
  for (;;) {
    ScratchRegion scratch(held_guess + workspace);
    ObjectPtr<AotExecutorModuleNode> node;
    try {
      node = BuildIn(scratch.data(), scratch.bytes(), /*zeroed=*/true, model, device, options, floor);
    } catch (const ArenaExhausted&) {
      held_guess *= 2;
      continue;
    }
    AotExecutor& ex = node->executor();
    Measured m;
    m.held = kNodeBytes + ex.arena_used();
    if (!run) return m;
    try {
      ex.Run();
    } catch (const Error& e) {
      if (!ex.arena_workspace().exhausted()) {
        AOTRT_THROW(kModelError, "sizing an executor's arena for ", model->metadata().DisplayName(),
                    ": its run on zero inputs (which measures the run-time workspace) failed: ", e.what());
      }
      AOTRT_REQUIRE(workspace < (size_t{1} << 40), kOutOfMemory, "sizing an executor's arena for ",
                    model->metadata().DisplayName(), ": a run takes more than ", GroupedNumber(workspace),
                    " bytes of run-time workspace");
      workspace *= 4;
      continue;
    }
    m.workspace_peak = ex.arena_workspace().peak();
    return m;
  }
}

// The run-time workspace an executor in an arena needs: measured once per model. When the
// measuring run fails, `strict` rethrows its error (every time, so ArenaBytes keeps saying why);
// otherwise the need counts as unknown (0): a run that finds the arena short fails naming it.
size_t RunTimeWorkspaceBytes(const std::shared_ptr<const LoadedModel>& model, DLDevice device, const ExecutorOptions& floor,
                             bool strict) {
  constexpr int64_t kUnmeasured = -1, kRunFailed = -2;
  int64_t known = model->arena_workspace_bytes();
  if (known >= 0) return static_cast<size_t>(known);
  if (known == kRunFailed && !strict) return 0;
  if (known == kUnmeasured && !MayUseRunTimeWorkspace(model->program())) {
    model->set_arena_workspace_bytes(0);
    return 0;
  }
  try {
    size_t bytes = MeasureInScratch(model, device, ExecutorOptions(), floor, /*run=*/true).workspace_peak;
    model->set_arena_workspace_bytes(static_cast<int64_t>(bytes));
    return bytes;
  } catch (const Error& e) {
    if (e.code() != ErrorCode::kModelError) throw;
    model->set_arena_workspace_bytes(kRunFailed);
    if (strict) throw;
    return 0;
  }
}

}  // namespace

size_t ArenaBytesNeeded(const std::shared_ptr<const LoadedModel>& model, DLDevice device, const ExecutorOptions& options,
                        const ExecutorOptions& floor) {
  size_t workspace = RunTimeWorkspaceBytes(model, device, floor, /*strict=*/true);
  ExecutorOptions without_arena = options;
  without_arena.arena = nullptr;
  without_arena.arena_bytes = 0;
  without_arena.on_destroyed = nullptr;  // the scratch executor is not the caller's
  return MeasureInScratch(model, device, without_arena, floor, /*run=*/false).held + workspace;
}

ObjectPtr<AotExecutorModuleNode> CreateExecutorInArena(const std::shared_ptr<const LoadedModel>& model, DLDevice device,
                                                       const ExecutorOptions& options, const ExecutorOptions& floor) {
  const ModelMetadata& md = model->metadata();
  auto* data = static_cast<uint8_t*>(options.arena);
  auto addr = reinterpret_cast<uintptr_t>(data);
  AOTRT_REQUIRE(data != nullptr, kInvalidArgument, "ExecutorOptions::arena is null with arena_bytes ",
                GroupedNumber(options.arena_bytes), ": give the memory for an executor of ", md.DisplayName(),
                " (Model::ArenaBytes says how much), or neither for the heap");
  AOTRT_REQUIRE(addr % kAllocAlignment == 0, kInvalidArgument, "ExecutorOptions::arena at 0x", Hex{addr}, " is not ",
                kAllocAlignment, "-byte aligned");
  size_t workspace = RunTimeWorkspaceBytes(model, device, floor, /*strict=*/false);
  ObjectPtr<AotExecutorModuleNode> node;
  try {
    node = BuildIn(data, options.arena_bytes, /*zeroed=*/false, model, device, options, floor);
  } catch (const ArenaExhausted&) {
  }
  if (!node || node->executor().arena_workspace().capacity() < workspace) {
    if (node) ::new (data) DestroyedCallback{nullptr, nullptr};  // refused: not the caller's to hear about
    node.reset();
    AOTRT_THROW(kInvalidArgument, "ExecutorOptions::arena of ", GroupedNumber(options.arena_bytes),
                " bytes is too small for an executor of ", md.DisplayName(), ": it needs ",
                GroupedNumber(ArenaBytesNeeded(model, device, options, floor)), " bytes (Model::ArenaBytes)");
  }
  return node;
}

}  // namespace aotrt
