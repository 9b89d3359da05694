#include "run_scratch.h"

#include <algorithm>
#include <cstring>
#include <exception>
#include <vector>

#include <aotrt/ndarray.h>
#include <aotrt/profiling.h>

#include "model_info.h"

namespace aotrt_cli {

RunScratch MeasureRunScratch(const aotrt::Model& model) {
  RunScratch r;
  try {
    aotrt::Executor ex = model.CreateExecutor();
    std::vector<std::string> params = ParamNames(model);
    for (size_t i = 0; i < model.Inputs().size(); ++i) {
      const aotrt::TensorInfo& in = model.Inputs()[i];
      if (std::find(params.begin(), params.end(), in.name) != params.end()) continue;  // factory-filled
      aotrt::NDArray zeros = aotrt::NDArray::Empty(in.shape, in.dtype);
      if (zeros.NumBytes()) std::memset(zeros.data(), 0, zeros.NumBytes());
      ex.SetInput(i, zeros.tensor());
    }
    aotrt::WorkspaceResetPeak();
    ex.Run();
    r.peak_bytes = aotrt::WorkspaceRequestedPeak();
    r.measured = true;
  } catch (const std::exception& e) {
    r.error = std::string("not measured, the run on zeros failed: ") + e.what();
  }
  return r;
}

}  // namespace aotrt_cli
