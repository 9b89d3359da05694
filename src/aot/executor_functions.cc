// The packed-function interface of AotExecutor (ABI.md 8.2, plus what TVM leaves out).
#include "aot/executor_module.h"
#include "aotrt/container.h"
#include "base/error_util.h"

namespace aotrt {
namespace {

using Method = void (*)(AotExecutor* ex, TVMArgs args, TVMRetValue* rv);

void RequireArgs(const char* fn, TVMArgs args, int min, int max) {
  AOTRT_REQUIRE(args.size() >= min && args.size() <= max, kInvalidArgument, fn, " takes ",
                min == max ? std::to_string(min) : StrCat(min, " to ", max), " argument", max == 1 ? "" : "s", ", got ",
                args.size());
}

size_t InputArg(AotExecutor* ex, TVMArgValue a) {
  if (a.IsString()) return ex->InputIndex(a.AsString());
  int64_t i = a.AsInt();
  AOTRT_REQUIRE(i >= 0, kOutOfRange, "input index ", i, " is negative");
  return static_cast<size_t>(i);
}

size_t OutputArg(AotExecutor* ex, TVMArgValue a) {
  if (a.IsString()) return ex->OutputIndex(a.AsString());
  int64_t i = a.AsInt();
  AOTRT_REQUIRE(i >= 0, kOutOfRange, "output index ", i, " is negative");
  return static_cast<size_t>(i);
}

NDArray KeepAlive(TVMArgValue a) {
  NDArrayObj* obj = a.AsNDArrayObjOrNull();
  return obj ? NDArray(ObjectPtr<NDArrayObj>(obj)) : NDArray();
}

void SetNDArray(TVMRetValue* rv, const NDArray& a) { rv->SetObject(a.object(), kTVMNDArrayHandle); }

// GraphExecutor's get_input_info convention: {"shape": Map<String, ShapeTuple>, "dtype": Map<String, String>},
// in metadata order.
void SetTensorInfo(TVMRetValue* rv, const std::vector<TensorSpec>& specs) {
  std::vector<MapObj::Item> shapes, dtypes;
  for (const TensorSpec& s : specs) {
    auto name = MakeObject<StringObj>(s.name);
    shapes.emplace_back(name, MakeObject<ShapeTupleObj>(s.shape));
    dtypes.emplace_back(name, MakeObject<StringObj>(DataTypeToString(s.dtype)));
  }
  std::vector<MapObj::Item> info;
  info.emplace_back(MakeObject<StringObj>("shape"), MakeObject<MapObj>(std::move(shapes)));
  info.emplace_back(MakeObject<StringObj>("dtype"), MakeObject<MapObj>(std::move(dtypes)));
  rv->SetObject(MakeObject<MapObj>(std::move(info)));
}

const std::pair<const char*, Method> kMethods[] = {
    {"set_input", [](AotExecutor* ex, TVMArgs args, TVMRetValue*) {
       RequireArgs("set_input", args, 2, 2);
       ex->SetInput(InputArg(ex, args[0]), *args[1].AsDLTensor());
     }},
    {"set_input_zero_copy", [](AotExecutor* ex, TVMArgs args, TVMRetValue*) {
       RequireArgs("set_input_zero_copy", args, 2, 2);
       ex->SetInputZeroCopy(InputArg(ex, args[0]), *args[1].AsDLTensor(), KeepAlive(args[1]));
     }},
    {"set_output_zero_copy", [](AotExecutor* ex, TVMArgs args, TVMRetValue*) {
       RequireArgs("set_output_zero_copy", args, 2, 2);
       ex->SetOutputZeroCopy(OutputArg(ex, args[0]), *args[1].AsDLTensor(), KeepAlive(args[1]));
     }},
    {"get_input", [](AotExecutor* ex, TVMArgs args, TVMRetValue* rv) {
       RequireArgs("get_input", args, 1, 2);
       NDArray in = ex->GetInput(InputArg(ex, args[0]));
       if (args.size() == 2) {
         DLTensor* out = args[1].AsDLTensor();
         AOTRT_REQUIRE(TensorBytes(*out) == in.NumBytes() && DataTypeEqual(out->dtype, in.dtype()), kShapeMismatch,
                       "get_input(i, out): out must have the input's dtype ", DataTypeToString(in.dtype()), " and ",
                       in.NumBytes(), " bytes");
         in.CopyTo(out);
       } else {
         SetNDArray(rv, in);
       }
     }},
    {"get_output", [](AotExecutor* ex, TVMArgs args, TVMRetValue* rv) {
       AOTRT_REQUIRE(args.size() >= 1, kInvalidArgument, "get_output takes 1 or 2 arguments, got 0");
       size_t i = OutputArg(ex, args[0]);
       if (args.size() == 2) {
         ex->CopyOutputTo(i, args[1].AsDLTensor());
       } else {
         SetNDArray(rv, ex->GetOutput(i));
       }
     }},
    {"get_num_inputs", [](AotExecutor* ex, TVMArgs, TVMRetValue* rv) {
       rv->SetInt(static_cast<int64_t>(ex->metadata().inputs.size()));
     }},
    {"get_num_outputs", [](AotExecutor* ex, TVMArgs, TVMRetValue* rv) {
       rv->SetInt(static_cast<int64_t>(ex->metadata().outputs.size()));
     }},
    {"get_input_index", [](AotExecutor* ex, TVMArgs args, TVMRetValue* rv) {
       RequireArgs("get_input_index", args, 1, 1);
       AOTRT_REQUIRE(args[0].IsString(), kTypeMismatch, "Input key is not a string (got ",
                     TypeCodeName(args[0].type_code()), ")");
       rv->SetInt(static_cast<int64_t>(ex->InputIndex(args[0].AsString())));
     }},
    {"get_output_index", [](AotExecutor* ex, TVMArgs args, TVMRetValue* rv) {
       RequireArgs("get_output_index", args, 1, 1);
       AOTRT_REQUIRE(args[0].IsString(), kTypeMismatch, "Output key is not a string (got ",
                     TypeCodeName(args[0].type_code()), ")");
       rv->SetInt(static_cast<int64_t>(ex->OutputIndex(args[0].AsString())));
     }},
    {"get_input_name", [](AotExecutor* ex, TVMArgs args, TVMRetValue* rv) {
       RequireArgs("get_input_name", args, 1, 1);
       int64_t i = args[0].AsInt();
       const auto& in = ex->metadata().inputs;
       AOTRT_REQUIRE(i >= 0 && i < static_cast<int64_t>(in.size()), kOutOfRange, "Index out of range: input ", i,
                     " of ", in.size());
       rv->SetString(in[i].name);
     }},
    {"get_output_name", [](AotExecutor* ex, TVMArgs args, TVMRetValue* rv) {
       RequireArgs("get_output_name", args, 1, 1);
       int64_t i = args[0].AsInt();
       const auto& out = ex->metadata().outputs;
       AOTRT_REQUIRE(i >= 0 && i < static_cast<int64_t>(out.size()), kOutOfRange, "Index out of range: output ", i,
                     " of ", out.size());
       rv->SetString(out[i].name);
     }},
    {"get_input_info", [](AotExecutor* ex, TVMArgs, TVMRetValue* rv) {
       SetTensorInfo(rv, ex->metadata().inputs);
     }},
    {"get_output_info", [](AotExecutor* ex, TVMArgs, TVMRetValue* rv) {
       SetTensorInfo(rv, ex->metadata().outputs);
     }},
    {"get_workspace_size", [](AotExecutor* ex, TVMArgs, TVMRetValue* rv) {
       rv->SetInt(static_cast<int64_t>(ex->model().info().workspace_bytes));
     }},
    {"get_constant_size", [](AotExecutor* ex, TVMArgs, TVMRetValue* rv) {
       rv->SetInt(static_cast<int64_t>(ex->model().info().constant_bytes));
     }},
    {"get_params_size", [](AotExecutor* ex, TVMArgs, TVMRetValue* rv) {
       rv->SetInt(static_cast<int64_t>(ex->model().info().param_bytes));
     }},
};

}  // namespace

PackedFunc AotExecutorModuleNode::GetFunction(const std::string& name, const ObjectPtr<ModuleNode>& self) {
  if (name == "run") {  // the hot path: no std::function, no method table
    auto thunk = [](void* ctx, TVMArgs args, TVMRetValue*) {
      if (args.size() != 0) RequireArgs("run", args, 0, 0);
      static_cast<AotExecutor*>(ctx)->Run();
    };
    return PackedFunc(thunk, &executor_, self);
  }
  for (const auto& m : kMethods) {
    if (name == m.first) {
      Method method = m.second;
      return PackedFunc([this, self, method](TVMArgs args, TVMRetValue* rv) { method(&executor_, args, rv); });
    }
  }
  return PackedFunc();
}

}  // namespace aotrt
