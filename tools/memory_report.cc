#include "memory_report.h"

#include <sys/resource.h>

#include "table.h"

namespace aotrt_cli {

nlohmann::ordered_json MemoryJson(const aotrt::ModelInfo& i, uint64_t scratch) {
  return {{"per_executor", {{"workspace_bytes", i.workspace_bytes},
                            {"slack_bytes", i.slack_bytes},
                            {"io_bytes", i.io_bytes},
                            {"run_scratch_bytes", scratch},
                            {"total_bytes", i.workspace_bytes + i.io_bytes + scratch}}},
          {"shared", {{"constant_bytes", i.constant_bytes},
                      {"constant_source", aotrt::ConstantSourceName(i.constant_source)},
                      {"constant_cache_path", i.constant_cache_path},
                      {"param_bytes", i.param_bytes}}}};
}

void PrintMemory(std::ostream& out, const aotrt::ModelInfo& i, uint64_t scratch) {
  out << "memory per executor: " << Bytes(i.workspace_bytes + i.io_bytes + scratch) << " (workspace "
      << Bytes(i.workspace_bytes) << ", inputs and outputs " << Bytes(i.io_bytes);
  if (scratch) out << ", run-time scratch " << Bytes(scratch);
  out << "; plus " << Bytes(i.slack_bytes)
      << " of address space reserved after the workspace pools, resident only where a model writes past them)\n"
      << "memory shared by all executors: " << Bytes(i.constant_bytes + i.param_bytes) << " (constants "
      << Bytes(i.constant_bytes) << ", " << aotrt::ConstantSourceName(i.constant_source);
  if (!i.constant_cache_path.empty()) out << " " << i.constant_cache_path;
  out << "; params " << Bytes(i.param_bytes) << ")\n";
}

long ThreadPageFaults() {
  struct rusage u {};
  if (::getrusage(RUSAGE_THREAD, &u) != 0) return 0;
  return u.ru_minflt + u.ru_majflt;
}

}  // namespace aotrt_cli
