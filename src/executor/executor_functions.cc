// The packed-function interface every executor shares (ABI.md 8.2, plus what TVM leaves out).
#include "executor/executor_functions.h"

#include "aotrt/container.h"
#include "base/device.h"
#include "base/error_util.h"
#include "ffi/registry.h"

namespace aotrt {
namespace {

using Method = void (*)(PlannedExecutor* ex, TVMArgs args, TVMRetValue* rv);


std::string SpecString(const TensorInfo& s) {
  return ShapeToString(s.shape.data(), static_cast<int>(s.shape.size())) + " " + DataTypeToString(s.dtype);
}

std::string TensorString(const DLTensor& t) {
  return (t.ndim == 0 || t.shape ? ShapeToString(t.shape, t.ndim) : std::string("[?]")) + " " + DataTypeToString(t.dtype);
}

bool SameShape(const TensorInfo& s, const DLTensor& t) {
  if (static_cast<size_t>(t.ndim) != s.shape.size()) return false;
  for (int d = 0; d < t.ndim; ++d) {
    if (t.shape[d] != s.shape[d]) return false;
  }
  return true;
}

}  // namespace

size_t InputIndexArg(PlannedExecutor* ex, TVMArgValue a) {
  if (a.IsString()) return ex->InputIndex(a.AsString());
  int64_t i = a.AsInt();
  AOTRT_REQUIRE(i >= 0, kOutOfRange, "input index ", i, " is negative");
  return static_cast<size_t>(i);
}

namespace {

size_t OutputArg(PlannedExecutor* ex, TVMArgValue a) {
  if (a.IsString()) return ex->OutputIndex(a.AsString());
  int64_t i = a.AsInt();
  AOTRT_REQUIRE(i >= 0, kOutOfRange, "output index ", i, " is negative");
  return static_cast<size_t>(i);
}

NDArray KeepAlive(TVMArgValue a) {
  NDArrayObj* obj = a.AsNDArrayObjOrNull();
  return obj ? NDArray(ObjectPtr<NDArrayObj>(obj)) : NDArray();
}

}  // namespace

void CheckTensorAgainstSpec(const char* kind, size_t i, const TensorInfo& spec, const DLTensor& t, bool convertible) {
  AOTRT_REQUIRE(IsAcceptedCpuDevice(t.device), kInvalidArgument, kind, " ", i, " ('",
                spec.name, "'): expected a tensor on CPU 0, got device type ", static_cast<int>(t.device.device_type),
                " id ", t.device.device_id);
  AOTRT_REQUIRE(t.ndim >= 0 && (t.ndim == 0 || t.shape), kInvalidArgument, kind, " ", i, " ('", spec.name,
                "'): invalid tensor (ndim ", t.ndim, ", shape pointer ", static_cast<const void*>(t.shape), ")");
  if (convertible) CheckConversion(t.dtype, spec.dtype, StrCat(kind, " ", i, " ('", spec.name, "')"));
  AOTRT_REQUIRE(convertible || DataTypeEqual(t.dtype, spec.dtype), kTypeMismatch, kind, " ", i, " ('", spec.name, "'): expected dtype ",
                DataTypeToString(spec.dtype), ", got ", DataTypeToString(t.dtype), " (expected ", SpecString(spec),
                ", got ", TensorString(t), ")");
  AOTRT_REQUIRE(SameShape(spec, t), kShapeMismatch, kind, " ", i, " ('", spec.name, "'): expected shape ",
                ShapeToString(spec.shape.data(), static_cast<int>(spec.shape.size())), ", got ",
                ShapeToString(t.shape, t.ndim), " (dtype ", DataTypeToString(t.dtype), ")");
  AOTRT_REQUIRE(IsContiguous(t), kInvalidArgument, kind, " ", i, " ('", spec.name, "'): tensor is not contiguous");
  AOTRT_REQUIRE(spec.bytes == 0 || t.data, kInvalidArgument, kind, " ", i, " ('", spec.name, "'): null data pointer");
}

std::vector<NamedArray> CopiedNamedArrays(TVMArgs args, int first) {
  std::vector<NamedArray> arrays;
  for (int i = first; i + 1 < args.size(); i += 2) {
    DLTensor* t = args[i + 1].AsDLTensor();
    NDArray copy = NDArray::Empty(std::vector<int64_t>(t->shape, t->shape + t->ndim), t->dtype);
    copy.CopyFrom(*t);
    arrays.push_back({args[i].AsString(), copy});
  }
  return arrays;
}

void CheckZeroCopyAlignment(const char* kind, size_t i, const std::string& name, const DLTensor& t) {
  auto addr = reinterpret_cast<uintptr_t>(t.data) + t.byte_offset;
  AOTRT_REQUIRE(addr % kAllocAlignment == 0, kInvalidArgument, kind, " ", i, " ('", name, "'): zero-copy tensor data at 0x",
                Hex{addr}, " is not ", kAllocAlignment, "-byte aligned");
}

void SetNDArrayResult(TVMRetValue* rv, const NDArray& a) { rv->SetObject(a.object(), kTVMNDArrayHandle); }

void SetTensorInfoResult(TVMRetValue* rv, const std::vector<TensorInfo>& specs) {
  std::vector<MapObj::Item> shapes, dtypes;
  for (const TensorInfo& s : specs) {
    auto name = MakeObject<StringObj>(s.name);
    shapes.emplace_back(name, MakeObject<ShapeTupleObj>(s.shape));
    dtypes.emplace_back(name, MakeObject<StringObj>(DataTypeToString(s.dtype)));
  }
  std::vector<MapObj::Item> info;
  info.emplace_back(MakeObject<StringObj>("shape"), MakeObject<MapObj>(std::move(shapes)));
  info.emplace_back(MakeObject<StringObj>("dtype"), MakeObject<MapObj>(std::move(dtypes)));
  rv->SetObject(MakeObject<MapObj>(std::move(info)));
}

namespace {

const std::pair<const char*, Method> kMethods[] = {
    {"set_input", [](PlannedExecutor* ex, TVMArgs args, TVMRetValue*) {
       RequireArgCount("set_input", args, 2, 2);
       ex->SetInput(InputIndexArg(ex, args[0]), *args[1].AsDLTensor());
     }},
    {"set_input_zero_copy", [](PlannedExecutor* ex, TVMArgs args, TVMRetValue*) {
       RequireArgCount("set_input_zero_copy", args, 2, 2);
       ex->SetInputZeroCopy(InputIndexArg(ex, args[0]), *args[1].AsDLTensor(), KeepAlive(args[1]));
     }},
    {"set_output_zero_copy", [](PlannedExecutor* ex, TVMArgs args, TVMRetValue*) {
       RequireArgCount("set_output_zero_copy", args, 2, 2);
       ex->SetOutputZeroCopy(OutputArg(ex, args[0]), *args[1].AsDLTensor(), KeepAlive(args[1]));
     }},
    {"get_input", [](PlannedExecutor* ex, TVMArgs args, TVMRetValue* rv) {
       RequireArgCount("get_input", args, 1, 2);
       NDArray in = ex->GetInput(InputIndexArg(ex, args[0]));
       if (args.size() == 2) {
         DLTensor* out = args[1].AsDLTensor();
         AOTRT_REQUIRE(TensorBytes(*out) == in.NumBytes() && DataTypeEqual(out->dtype, in.dtype()), kShapeMismatch,
                       "get_input(i, out): out must have the input's dtype ", DataTypeToString(in.dtype()), " and ",
                       in.NumBytes(), " bytes");
         in.CopyTo(out);
       } else {
         SetNDArrayResult(rv, in);
       }
     }},
    {"get_output", [](PlannedExecutor* ex, TVMArgs args, TVMRetValue* rv) {
       AOTRT_REQUIRE(args.size() >= 1, kInvalidArgument, "get_output takes 1 or 2 arguments, got 0");
       size_t i = OutputArg(ex, args[0]);
       if (args.size() == 2) {
         ex->CopyOutputTo(i, args[1].AsDLTensor());
       } else {
         SetNDArrayResult(rv, ex->GetOutput(i));
       }
     }},
    {"get_num_inputs", [](PlannedExecutor* ex, TVMArgs, TVMRetValue* rv) {
       rv->SetInt(static_cast<int64_t>(ex->Info().inputs.size()));
     }},
    {"get_num_outputs", [](PlannedExecutor* ex, TVMArgs, TVMRetValue* rv) {
       rv->SetInt(static_cast<int64_t>(ex->Info().outputs.size()));
     }},
    {"get_input_index", [](PlannedExecutor* ex, TVMArgs args, TVMRetValue* rv) {
       RequireArgCount("get_input_index", args, 1, 1);
       AOTRT_REQUIRE(args[0].IsString(), kTypeMismatch, "Input key is not a string (got ",
                     TypeCodeName(args[0].type_code()), ")");
       rv->SetInt(static_cast<int64_t>(ex->InputIndex(args[0].AsString())));
     }},
    {"get_output_index", [](PlannedExecutor* ex, TVMArgs args, TVMRetValue* rv) {
       RequireArgCount("get_output_index", args, 1, 1);
       AOTRT_REQUIRE(args[0].IsString(), kTypeMismatch, "Output key is not a string (got ",
                     TypeCodeName(args[0].type_code()), ")");
       rv->SetInt(static_cast<int64_t>(ex->OutputIndex(args[0].AsString())));
     }},
    {"get_input_name", [](PlannedExecutor* ex, TVMArgs args, TVMRetValue* rv) {
       RequireArgCount("get_input_name", args, 1, 1);
       int64_t i = args[0].AsInt();
       const auto& in = ex->Info().inputs;
       AOTRT_REQUIRE(i >= 0 && i < static_cast<int64_t>(in.size()), kOutOfRange, "Index out of range: input ", i,
                     " of ", in.size());
       rv->SetString(in[i].name);
     }},
    {"get_output_name", [](PlannedExecutor* ex, TVMArgs args, TVMRetValue* rv) {
       RequireArgCount("get_output_name", args, 1, 1);
       int64_t i = args[0].AsInt();
       const auto& out = ex->Info().outputs;
       AOTRT_REQUIRE(i >= 0 && i < static_cast<int64_t>(out.size()), kOutOfRange, "Index out of range: output ", i,
                     " of ", out.size());
       rv->SetString(out[i].name);
     }},
    {"get_input_info", [](PlannedExecutor* ex, TVMArgs, TVMRetValue* rv) {
       SetTensorInfoResult(rv, ex->Info().inputs);
     }},
    {"get_output_info", [](PlannedExecutor* ex, TVMArgs, TVMRetValue* rv) {
       SetTensorInfoResult(rv, ex->Info().outputs);
     }},
    {"get_workspace_size", [](PlannedExecutor* ex, TVMArgs, TVMRetValue* rv) {
       rv->SetInt(static_cast<int64_t>(ex->Info().workspace_bytes));
     }},
    {"get_constant_size", [](PlannedExecutor* ex, TVMArgs, TVMRetValue* rv) {
       rv->SetInt(static_cast<int64_t>(ex->Info().constant_bytes));
     }},
    {"get_params_size", [](PlannedExecutor* ex, TVMArgs, TVMRetValue* rv) {
       rv->SetInt(static_cast<int64_t>(ex->Info().param_bytes));
     }},
};

}  // namespace

PackedFunc ExecutorFunction(PlannedExecutor* ex, const std::string& name, const ObjectPtr<ModuleNode>& self) {
  if (name == "run") {  // the hot path: no std::function, no method table
    auto thunk = [](void* ctx, TVMArgs args, TVMRetValue*) {
      if (args.size() != 0) RequireArgCount("run", args, 0, 0);
      static_cast<PlannedExecutor*>(ctx)->Run();
    };
    return PackedFunc(thunk, ex, self);
  }
  for (const auto& m : kMethods) {
    if (name == m.first) {
      Method method = m.second;
      return PackedFunc([ex, self, method](TVMArgs args, TVMRetValue* rv) { method(ex, args, rv); });
    }
  }
  return PackedFunc();
}

PackedFunc ExecutorModuleNode::GetFunction(const std::string& name, const ObjectPtr<ModuleNode>& self) {
  if (PackedFunc f = model_->ExecutorModuleFunction(&executor_, name, self, debug_)) return f;
  return ExecutorFunction(&executor_, name, self);
}

PackedFunc ExecutorFactoryNode::FactoryFunction(const std::string& name, const ObjectPtr<ModuleNode>& self) {
  if (name == "list_module_names") {
    return PackedFunc([this, self](TVMArgs, TVMRetValue* rv) {
      std::vector<ObjectPtr<Object>> items{MakeObject<StringObj>(module_name_)};
      rv->SetObject(MakeObject<ArrayObj>(std::move(items)), kTVMObjectHandle);
    });
  }
  if (name == "get_params") {
    return PackedFunc([this, self](TVMArgs, TVMRetValue* rv) {
      std::vector<MapObj::Item> items;
      for (const NamedArray& p : params()) items.emplace_back(MakeObject<StringObj>(p.name), p.array.object());
      rv->SetObject(MakeObject<MapObj>(std::move(items)));
    });
  }
  if (name == "remove_params") {
    return PackedFunc([this, self](TVMArgs, TVMRetValue* rv) {
      ObjectPtr<ExecutorFactoryNode> copy = WithoutParams();
      if (!imports().empty()) {
        copy->Import(imports()[0]);
        copy->OnImportsLinked();
      }
      rv->SetObject(copy, kTVMModuleHandle);
    });
  }
  return PackedFunc();
}

}  // namespace aotrt
