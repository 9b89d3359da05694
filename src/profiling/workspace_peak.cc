// The public view (aotrt/profiling.h) of the backend's per-thread workspace peak.
#include "aotrt/profiling.h"
#include "backend/workspace.h"

namespace aotrt {

size_t WorkspaceRequestedPeak() { return ThreadWorkspacePeak(); }
void WorkspaceResetPeak() { ResetThreadWorkspacePeak(); }

}  // namespace aotrt
