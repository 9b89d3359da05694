// What a process's private memory (Private_Clean + Private_Dirty of /proc/PID/smaps) consists of,
// by kind of mapping, for bench/cold_start. Reads only /proc; returns zeros when it cannot.
#pragma once

#include <sys/types.h>

#include <string>
#include <vector>

namespace aotrt_bench {

struct PrivateBreakdown {
  double large_anonymous = 0;  // anonymous mappings of 64 KiB or more: workspace blocks and pools, I/O tensors
  double heap = 0;             // [heap] and small anonymous mappings (malloc, thread stacks' used pages, TLS)
  double stack = 0;            // the main thread's [stack]
  double model_file = 0;       // the model library's own pages (relocated data, GOT, pages a cache file COWs)
  double library_data = 0;     // other files' writable pages and .bss (libaotrt, libc, libstdc++ ...: .data, GOT)
  double library_text = 0;     // other files' read-only pages touched by this process alone
  double total() const { return large_anonymous + heap + stack + model_file + library_data + library_text; }
};

// MiB by kind for process `pid`; `model_path` names the model file (its mappings are counted apart).
PrivateBreakdown ReadPrivateBreakdown(pid_t pid, const std::string& model_path);

// Sum of the smaps_rollup fields (kB) named in `fields`, in MiB.
double SmapsRollupMiB(pid_t pid, const std::vector<std::string>& fields);

}  // namespace aotrt_bench
