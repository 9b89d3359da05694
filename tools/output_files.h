// Where `aotrt run -o` writes the outputs: DIR/output<i>.npy, or one FILE.npz keyed by output name.
#pragma once

#include <ostream>
#include <string>

#include <aotrt/model.h>

namespace aotrt_cli {

struct OutputTarget {
  std::string path;
  bool npz = false;
};

// Called before the model is loaded, so that a bad -o fails before any work: creates a missing
// DIR (and its parents); checks that DIR, or FILE.npz's folder, is a writable directory.
// Throws aotrt::Error(kIOError) naming the path and the reason.
OutputTarget PrepareOutputTarget(const std::string& arg);

// Write every output of `ex` to `target`, one "wrote PATH" line per file on `log`. kIOError.
void WriteOutputs(const OutputTarget& target, const aotrt::Executor& ex, std::ostream& log);

}  // namespace aotrt_cli
