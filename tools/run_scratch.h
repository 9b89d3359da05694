// What a model without memory planning takes at run time: its scratch comes from
// TVMBackendAllocWorkspace inside each run, so no pool size in the library says how much.
#pragma once

#include <cstdint>
#include <string>

#include <aotrt/model.h>

namespace aotrt_cli {

struct RunScratch {
  bool measured = false;
  uint64_t peak_bytes = 0;  // most bytes held at once through TVMBackendAllocWorkspace, calling thread
  std::string error;        // why it was not measured
};

// Runs the model once on zeros (factory params kept) in a throwaway executor and reports the peak
// of its TVMBackendAllocWorkspace requests on this thread. Never throws: errors go in `error`.
RunScratch MeasureRunScratch(const aotrt::Model& model);

}  // namespace aotrt_cli
