// `aotrt run --expect FILE.npz`: reference outputs, read before the run, compared after it.
#pragma once

#include <ostream>
#include <string>
#include <vector>

#include <aotrt/model.h>

#include "compare.h"

namespace aotrt_cli {

struct ExpectedOutput {
  size_t index;        // the model output
  std::string key;     // the .npz key it came from
  aotrt::NDArray array;
};

// How the CLI names output i (labels, .npz keys): its name, or "name:i" when other outputs share that
// name (as a graph's tuple outputs do), which the graph executor also answers to.
std::string OutputKey(const aotrt::Executor& ex, size_t i);

// Keys are output names (a name several outputs share: "name:i"), or TVM's arr_0, arr_1, ... for outputs 0, 1, ... Throws aotrt::Error
// for an unreadable file, a key that is no output (listing the outputs), or an output given twice.
std::vector<ExpectedOutput> ReadExpected(const std::string& path, const aotrt::Executor& ex);

// Print one line per expected output (largest difference, its index, the two values, how many
// elements are outside the tolerance). Returns whether every output matches.
bool ReportComparison(const aotrt::Executor& ex, const std::vector<ExpectedOutput>& expected, const Tolerance& tol,
                      std::ostream& os);

}  // namespace aotrt_cli
