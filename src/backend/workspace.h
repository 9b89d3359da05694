// Per-thread workspace memory for generated code (TVMBackendAllocWorkspace / FreeWorkspace).
//
// Each thread owns a pool of 64-byte aligned blocks with room after the request, at least as large
// as the request, for the model's own bugs (memory/reserve.h): 64 KiB or more gets a mapping of its
// own with a reserve and a PROT_NONE guard, less a heap block. Freed blocks are reused best-fit and a
// miss replaces the largest free block too small for it (as TVM's WorkspacePool; bench/README.md
// "Memory without planning"), so a warm pool serves a run without a system call. Blocks are released
// when the thread exits; a block must be freed on the thread that allocated it.
#pragma once

#include <cstddef>
#include <cstdint>

#include "memory/reserve.h"

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
// of this class lives, blocks allocated on this thread are armed (a canary after the request; for
// mapped blocks, the reserve given back, memory/reserve.h) and checked when freed; the first damaged
// block is recorded. Scoped to the creating thread; nests. WorkspaceReleaseTo does not check.
struct WorkspaceOverrun : Overrun {  // past the request
  size_t block_bytes = 0;              // the bytes the model asked for
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
