// The packed functions every executor module offers (set_input, run, get_output, ...: ABI.md 8.2,
// plus what TVM leaves out), over PlannedExecutor, and the helpers the executor modules' own
// functions share.
#pragma once

#include <string>
#include <vector>

#include "executor/executor_interface.h"

namespace aotrt {

// The function `name` of executor `ex`, which `self` (its module) keeps alive; empty when `name`
// is not one of the shared functions.
PackedFunc ExecutorFunction(PlannedExecutor* ex, const std::string& name, const ObjectPtr<ModuleNode>& self);

// The index an argument names: an input name (InputIndex's rules) or a non-negative index.
size_t InputIndexArg(PlannedExecutor* ex, TVMArgValue a);
void SetNDArrayResult(TVMRetValue* rv, const NDArray& a);
// The (name, array) pairs from args[first] on (a factory's create global), each array copied.
std::vector<NamedArray> CopiedNamedArrays(TVMArgs args, int first);
// Zero-copy memory must be 64-byte aligned: kInvalidArgument naming `kind` `i` ('name') otherwise.
void CheckZeroCopyAlignment(const char* kind, size_t i, const std::string& name, const DLTensor& t);
// Check `t` against the tensor `spec` of the model: CPU 0 (kInvalidArgument), dtype
// (kTypeMismatch: the same dtype, or with `convertible` one the conversion rule may accept,
// CheckConversion in aotrt/ndarray.h), shape (kShapeMismatch), contiguous and with data
// (kInvalidArgument). Messages begin with "<kind> <index> ('<name>')".
void CheckTensorAgainstSpec(const char* kind, size_t index, const TensorInfo& spec, const DLTensor& t,
                            bool convertible = false);

// GraphExecutor's get_input_info convention: {"shape": Map<String, ShapeTuple>, "dtype": Map<String, String>}.
void SetTensorInfoResult(TVMRetValue* rv, const std::vector<TensorInfo>& specs);

}  // namespace aotrt
