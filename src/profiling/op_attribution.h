// Turns sampled program counters into the lines of an operator profile (pure: no clock, no
// signal), so that the rules are testable on their own:
//   - a sample taken inside a parallel launch goes to the function that launched it;
//   - else one in a symbol of the model library goes to that symbol; `<prefix>_` and a trailing
//     `_compute_` are stripped, so an operator and its compute body share one line, and the
//     entry (`__tvm_main__`) counts as the outside's glue;
//   - a sample in the library's PLT stubs is outside (they jump into the runtime);
//   - else one in the library's code but in no symbol goes to "[unnamed code ...]" by address
//     range (the gap between the symbols around it, or its 4 KiB page when there are none);
//   - else (the runtime, libc, ...) it is outside.
#pragma once

#include <string>
#include <vector>

#include "aotrt/profiling.h"
#include "profiling/code_map.h"
#include "profiling/pc_sampler.h"

namespace aotrt {
namespace profiling_internal {

// Fills samples, operators (by cost), outside and glue_samples of `profile`, with percent and
// ci95; mean_ms from profile->run_ms.
void AttributeSamples(const CodeMap& code, const std::vector<PcSample>& samples, const std::string& symbol_prefix,
                      OperatorProfile* profile);

// The operator name of symbol `symbol`: without "<prefix>_" and a trailing "_compute_".
std::string OperatorName(const std::string& symbol, const std::string& symbol_prefix);

// 95% Wilson score half-width, in percentage points, of k successes in n trials (0 when n == 0).
double WilsonHalfWidth95(uint64_t k, uint64_t n);

}  // namespace profiling_internal
}  // namespace aotrt
