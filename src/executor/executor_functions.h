// The packed functions every executor module offers (set_input, run, get_output, ...: ABI.md 8.2,
// plus what TVM leaves out), over PlannedExecutor, and the helpers the executor modules' own
// functions share.
#pragma once

#include <string>
#include <vector>

#include "executor/executor_interface.h"

namespace aotrt {

// A packed function of an executor module, over its executor.
struct ExecutorMethod {
  const char* name;
  void (*fn)(PlannedExecutor* ex, TVMArgs args, TVMRetValue* rv);
};
// The method `name` of [m, end) bound to `ex`, which `self` (its module) keeps alive; empty when none.
PackedFunc MethodFunction(const ExecutorMethod* m, const ExecutorMethod* end, PlannedExecutor* ex,
                          const std::string& name, const ObjectPtr<ModuleNode>& self);
// The function `name` every executor has; empty for another name.
PackedFunc ExecutorFunction(PlannedExecutor* ex, const std::string& name, const ObjectPtr<ModuleNode>& self);

// The index an argument names: an input (`output`: output) name, as InputIndex / OutputIndex
// read it, or a non-negative index (kOutOfRange otherwise).
size_t IndexArg(PlannedExecutor* ex, TVMArgValue a, bool output = false);
void SetNDArrayResult(TVMRetValue* rv, const NDArray& a);
// The (name, array) pairs from args[first] on (a factory's create global), each array copied.
std::vector<NamedArray> CopiedNamedArrays(TVMArgs args, int first);
// Check `t` against the tensor `spec` of the model: CPU 0 (kInvalidArgument), dtype
// (kTypeMismatch: the same dtype, or with `convertible` one the conversion rule may accept,
// CheckConversion in aotrt/ndarray.h), shape (kShapeMismatch), contiguous and with data
// (kInvalidArgument). Messages begin with "<kind> <index> ('<name>')".
void CheckTensorAgainstSpec(const char* kind, size_t index, const TensorInfo& spec, const DLTensor& t,
                            bool convertible = false);

// GraphExecutor's get_input_info convention: {"shape": Map<String, ShapeTuple>, "dtype": Map<String, String>}.
void SetTensorInfoResult(TVMRetValue* rv, const std::vector<TensorInfo>& specs);

}  // namespace aotrt
