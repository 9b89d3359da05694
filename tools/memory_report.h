// What a model costs in memory (per executor, and shared by its executors), as `inspect` and
// `bench` report it, and the page-fault counter `bench` reads around each start-up phase.
#pragma once

#include <ostream>

#include <aotrt/model_info.h>
#include <nlohmann/json.hpp>

namespace aotrt_cli {

// `run_scratch_bytes`: the TVMBackendAllocWorkspace peak of one run (models without memory
// planning take their scratch that way; 0 when not measured or not used), counted per executor:
// each executor running at the same time on its own thread holds that much.
nlohmann::ordered_json MemoryJson(const aotrt::ModelInfo& info, uint64_t run_scratch_bytes = 0);
// Two lines: "memory per executor: ..." and "memory shared by all executors: ...".
void PrintMemory(std::ostream& out, const aotrt::ModelInfo& info, uint64_t run_scratch_bytes = 0);
// Minor + major page faults of the calling thread so far.
long ThreadPageFaults();

}  // namespace aotrt_cli
