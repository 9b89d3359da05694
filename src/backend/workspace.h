// Per-thread workspace memory for generated code (TVMBackendAllocWorkspace / FreeWorkspace).
//
// Each thread owns a pool of 64-byte aligned blocks of the request plus at least 64 bytes of tail
// slack (base/tail_slack.h), rounded up to 4 KiB. Freed blocks are kept and
// reused best-fit, so a warm pool serves a model's allocations without calling malloc. Blocks are
// released when the thread exits. Not shared between threads: a block must be freed on the thread
// that allocated it.
#pragma once

#include <cstddef>
#include <cstdint>

namespace aotrt {

// nullptr (with a last error set) when the memory cannot be had.
void* WorkspaceAlloc(uint64_t nbytes);
// False (with a last error set) for a pointer this thread's pool did not hand out.
bool WorkspaceFree(void* ptr);
// Generated code that fails returns at once and never frees its workspace (TVM behaves so too).
// A caller marks the pool before calling into a model and, when the call fails, returns every
// block allocated since the mark to the pool, so failures do not leak.
extern __thread size_t t_workspace_blocks_in_use __attribute__((tls_model("initial-exec")));
inline size_t WorkspaceMark() { return t_workspace_blocks_in_use; }
void WorkspaceReleaseTo(size_t mark);
// Checking mode for the blocks of one model run (the executor's check_bounds): while an object
// of this class lives, blocks allocated on this thread get a canary in their slack, checked when
// freed. The first damaged block is recorded. Scoped to the thread that creates it; nests (the
// outer check resumes when an inner one ends). Blocks freed through WorkspaceReleaseTo are not
// checked.
struct WorkspaceOverrun {
  size_t bytes_past;   // 0: no overrun seen
  size_t block_bytes;  // the bytes the model asked for
};
class WorkspaceBoundsCheck {
 public:
  WorkspaceBoundsCheck();
  ~WorkspaceBoundsCheck();
  WorkspaceBoundsCheck(const WorkspaceBoundsCheck&) = delete;
  WorkspaceBoundsCheck& operator=(const WorkspaceBoundsCheck&) = delete;
  WorkspaceOverrun overrun() const;

 private:
  bool saved_active_;
  WorkspaceOverrun saved_first_;
};

// Bytes currently held by this thread's pool (in use + cached), for tests and benchmarks.
size_t WorkspacePoolBytes();
// The most bytes this thread held at once through WorkspaceAlloc since the last reset; behind the
// public WorkspaceRequestedPeak / WorkspaceResetPeak (aotrt/profiling.h).
size_t ThreadWorkspacePeak();
void ResetThreadWorkspacePeak();

}  // namespace aotrt
