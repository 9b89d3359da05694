// What a model costs in memory (per executor, and shared by its executors), as `inspect` and
// `bench` report it, and the page-fault counter `bench` reads around each start-up phase.
#pragma once

#include <ostream>

#include <aotrt/model_info.h>
#include <nlohmann/json.hpp>

namespace aotrt_cli {

nlohmann::ordered_json MemoryJson(const aotrt::ModelInfo& info);
// Two lines: "memory per executor: ..." and "memory shared by all executors: ...".
void PrintMemory(std::ostream& out, const aotrt::ModelInfo& info);
// Minor + major page faults of the calling thread so far.
long ThreadPageFaults();

}  // namespace aotrt_cli
