// ProfileOperators for a graph executor: each node timed on every run (graph/graph_profile.cc).
#pragma once

#include "aotrt/profiling.h"
#include "graph/graph_executor.h"

namespace aotrt {

// Runs `ex` warmup + profiled times with its current inputs. Throws kInvalidArgument (options) and
// what Run() throws.
OperatorProfile ProfileGraph(GraphExecutor& ex, const OperatorProfileOptions& options);

}  // namespace aotrt
