// The measured per-operator profile (aotrt/profiling.h, OperatorProfile::measured) of an executor
// whose operators are calls of their own (PlannedExecutor::NumOps() > 0: a graph's nodes): each
// is timed on every run; nothing is sampled.
#pragma once

#include "aotrt/profiling.h"
#include "executor/executor_interface.h"

namespace aotrt {

// Runs `ex` warmup + profiled times with its current inputs. Throws kInvalidArgument (options) and
// what Run() throws.
OperatorProfile ProfileMeasured(PlannedExecutor& ex, const OperatorProfileOptions& options);

}  // namespace aotrt
