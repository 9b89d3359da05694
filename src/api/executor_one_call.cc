// One-call inference on the public Executor: every input checked, then copied in, one run, and
// every output copied out into a new array (include/aotrt/model.h says why copies).
#include <algorithm>

#include "executor/executor_interface.h"
#include "executor/executor_functions.h"
#include "aotrt/model.h"
#include "base/error_util.h"

namespace aotrt {
namespace {

// Copies of every output, in output order.
std::vector<NDArray> CopyOutputs(const Executor& ex) {
  std::vector<NDArray> out;
  out.reserve(ex.NumOutputs());
  for (size_t i = 0; i < ex.NumOutputs(); ++i) {
    const TensorInfo& info = ex.Output(i);
    out.push_back(NDArray::Empty(info.shape, info.dtype));
    ex.CopyOutputTo(i, out.back().handle());
  }
  return out;
}

}  // namespace

std::vector<NDArray> Executor::Run(const std::vector<DLTensor>& inputs) {
  PlannedExecutor& ex = impl();
  const std::vector<TensorInfo>& specs = ex.Info().inputs;
  AOTRT_REQUIRE(inputs.size() == specs.size(), kInvalidArgument, "Run(inputs): the model has ", specs.size(),
                " input", specs.size() == 1 ? "" : "s", ", got ", inputs.size(),
                " (by position every input is needed; name them to give only some)");
  for (size_t i = 0; i < inputs.size(); ++i) CheckTensorAgainstSpec("input", i, specs[i], inputs[i]);
  for (size_t i = 0; i < inputs.size(); ++i) ex.SetInput(i, inputs[i]);
  ex.Run();
  return CopyOutputs(*this);
}

std::vector<NDArray> Executor::Run(const std::vector<std::pair<std::string, DLTensor>>& inputs) {
  PlannedExecutor& ex = impl();
  const std::vector<TensorInfo>& specs = ex.Info().inputs;
  std::vector<size_t> index(inputs.size());
  for (size_t k = 0; k < inputs.size(); ++k) {
    index[k] = ex.InputIndex(inputs[k].first);
    AOTRT_REQUIRE(std::find(index.begin(), index.begin() + k, index[k]) == index.begin() + k, kInvalidArgument,
                  "Run(inputs): input ", index[k], " ('", specs[index[k]].name, "') is given twice (as '",
                  inputs[k].first, "')");
    CheckTensorAgainstSpec("input", index[k], specs[index[k]], inputs[k].second);
  }
  for (size_t k = 0; k < inputs.size(); ++k) ex.SetInput(index[k], inputs[k].second);
  ex.Run();
  return CopyOutputs(*this);
}

}  // namespace aotrt
