// The executor and factory modules' functions: those every executor shares (ABI.md 8.2, plus what
// TVM leaves out) and those every factory shares.
#include "executor/executor_module.h"

#include "device/device_api.h"

#include <dmlc/memory_io.h>

#include <algorithm>

#include "aotrt/container.h"
#include "base/device.h"
#include "base/error_util.h"
#include "ffi/registry.h"
#include "module/load_context.h"
#include "ndarray/serialize.h"

namespace aotrt {
namespace {

std::string SpecShape(const TensorInfo& s) { return ShapeToString(s.shape.data(), static_cast<int>(s.shape.size())); }

// The functions that come in an input and an output form.
template <bool kOutput>
const std::vector<TensorInfo>& Specs(PlannedExecutor* ex) {
  return kOutput ? ex->Info().outputs : ex->Info().inputs;
}

template <bool kOutput>
void SetZeroCopy(PlannedExecutor* ex, TVMArgs args, TVMRetValue*) {
  RequireArgCount(kOutput ? "set_output_zero_copy" : "set_input_zero_copy", args, 2, 2);
  NDArray keep(ObjectPtr<NDArrayObj>(args[1].AsNDArrayObjOrNull()));  // undefined for a DLTensor*
  ex->SetZeroCopy(kOutput, IndexArg(ex, args[0], kOutput), *args[1].AsDLTensor(), std::move(keep));
}

template <bool kOutput>
void GetIndex(PlannedExecutor* ex, TVMArgs args, TVMRetValue* rv) {
  RequireArgCount(kOutput ? "get_output_index" : "get_input_index", args, 1, 1);
  AOTRT_REQUIRE(args[0].IsString(), kTypeMismatch, kOutput ? "Output" : "Input", " key is not a string (got ",
                TypeCodeName(args[0].type_code()), ")");
  rv->SetInt(static_cast<int64_t>(IndexArg(ex, args[0], kOutput)));
}

template <bool kOutput>
void GetName(PlannedExecutor* ex, TVMArgs args, TVMRetValue* rv) {
  RequireArgCount(kOutput ? "get_output_name" : "get_input_name", args, 1, 1);
  int64_t i = args[0].AsInt();
  const std::vector<TensorInfo>& specs = Specs<kOutput>(ex);
  AOTRT_REQUIRE(i >= 0 && i < static_cast<int64_t>(specs.size()), kOutOfRange, "Index out of range: ",
                kOutput ? "output " : "input ", i, " of ", specs.size());
  rv->SetString(specs[i].name);
}

template <bool kOutput>
void GetNum(PlannedExecutor* ex, TVMArgs, TVMRetValue* rv) {
  rv->SetInt(static_cast<int64_t>(Specs<kOutput>(ex).size()));
}

template <bool kOutput>
void GetInfo(PlannedExecutor* ex, TVMArgs, TVMRetValue* rv) {
  SetTensorInfoResult(rv, Specs<kOutput>(ex));
}

template <size_t ModelInfo::*kBytes>
void GetSize(PlannedExecutor* ex, TVMArgs, TVMRetValue* rv) {
  rv->SetInt(static_cast<int64_t>(ex->Info().*kBytes));
}

const ExecutorMethod kMethods[] = {
    {"set_input", [](PlannedExecutor* ex, TVMArgs args, TVMRetValue*) {
       RequireArgCount("set_input", args, 2, 2);
       ex->SetInput(IndexArg(ex, args[0]), *args[1].AsDLTensor());
     }},
    {"set_input_zero_copy", SetZeroCopy<false>},
    {"set_output_zero_copy", SetZeroCopy<true>},
    {"get_input", [](PlannedExecutor* ex, TVMArgs args, TVMRetValue* rv) {
       RequireArgCount("get_input", args, 1, 2);
       NDArray in = ex->GetInput(IndexArg(ex, args[0]));
       if (args.size() == 1) return rv->SetObject(in.object());
       DLTensor* out = args[1].AsDLTensor();
       AOTRT_REQUIRE(TensorBytes(*out) == in.NumBytes() && DataTypeEqual(out->dtype, in.dtype()), kShapeMismatch,
                     "get_input(i, out): out must have the input's dtype ", DataTypeToString(in.dtype()), " and ",
                     in.NumBytes(), " bytes");
       in.CopyTo(out);
     }},
    {"get_output", [](PlannedExecutor* ex, TVMArgs args, TVMRetValue* rv) {
       AOTRT_REQUIRE(args.size() >= 1, kInvalidArgument, "get_output takes 1 or 2 arguments, got 0");
       size_t i = IndexArg(ex, args[0], /*output=*/true);
       if (args.size() == 2) return ex->CopyOutputTo(i, args[1].AsDLTensor());
       rv->SetObject(ex->GetOutput(i).object());
     }},
    {"get_num_inputs", GetNum<false>},
    {"get_num_outputs", GetNum<true>},
    {"get_input_index", GetIndex<false>},
    {"get_output_index", GetIndex<true>},
    {"get_input_name", GetName<false>},
    {"get_output_name", GetName<true>},
    {"get_input_info", GetInfo<false>},
    {"get_output_info", GetInfo<true>},
    {"get_workspace_size", GetSize<&ModelInfo::workspace_bytes>},
    {"get_constant_size", GetSize<&ModelInfo::constant_bytes>},
    {"get_params_size", GetSize<&ModelInfo::param_bytes>},
};

}  // namespace

size_t IndexArg(PlannedExecutor* ex, TVMArgValue a, bool output) {
  if (a.IsString()) return output ? ex->OutputIndex(a.AsString()) : ex->InputIndex(a.AsString());
  int64_t i = a.AsInt();
  AOTRT_REQUIRE(i >= 0, kOutOfRange, output ? "output" : "input", " index ", i, " is negative");
  return static_cast<size_t>(i);
}

void CheckTensorAgainstSpec(const char* kind, size_t i, const TensorInfo& spec, const DLTensor& t, bool convertible) {
  const std::string who = StrCat(kind, " ", i, " ('", spec.name, "')");
  if (!IsAcceptedCpuDevice(t.device)) RequireDevice(t.device, who);
  AOTRT_REQUIRE(t.ndim >= 0 && (t.ndim == 0 || t.shape), kInvalidArgument, who, ": invalid tensor (ndim ", t.ndim,
                ", shape pointer ", static_cast<const void*>(t.shape), ")");
  if (convertible && !spec.dynamic) CheckConversion(t.dtype, spec.dtype, who);
  AOTRT_REQUIRE(convertible || spec.dynamic || DataTypeEqual(t.dtype, spec.dtype), kTypeMismatch, who, ": expected dtype ",
                DataTypeToString(spec.dtype), ", got ", DataTypeToString(t.dtype), " (expected ", SpecShape(spec), " ",
                DataTypeToString(spec.dtype), ", got ", ShapeToString(t.shape, t.ndim), " ", DataTypeToString(t.dtype), ")");
  AOTRT_REQUIRE(spec.dynamic || std::equal(t.shape, t.shape + t.ndim, spec.shape.begin(), spec.shape.end()), kShapeMismatch, who,
                ": expected shape ", SpecShape(spec), ", got ", ShapeToString(t.shape, t.ndim), " (dtype ",
                DataTypeToString(t.dtype), ")");
  AOTRT_REQUIRE(IsContiguous(t), kInvalidArgument, who, ": tensor is not contiguous");
  AOTRT_REQUIRE(t.data || (spec.dynamic ? ShapeElements(t.shape, t.ndim) : spec.bytes) == 0, kInvalidArgument, who,
                ": null data pointer");
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

void SetTensorInfoResult(TVMRetValue* rv, const std::vector<TensorInfo>& specs) {
  std::vector<MapObj::Item> shapes, dtypes;
  for (const TensorInfo& s : specs) {
    auto name = MakeObject<StringObj>(s.name);
    shapes.emplace_back(name, MakeObject<ShapeTupleObj>(s.shape));
    dtypes.emplace_back(name, MakeObject<StringObj>(DataTypeToString(s.dtype)));
  }
  std::vector<MapObj::Item> info{{MakeObject<StringObj>("shape"), MakeObject<MapObj>(std::move(shapes))},
                                 {MakeObject<StringObj>("dtype"), MakeObject<MapObj>(std::move(dtypes))}};
  rv->SetObject(MakeObject<MapObj>(std::move(info)));
}

PackedFunc MethodFunction(const ExecutorMethod* m, const ExecutorMethod* end, PlannedExecutor* ex,
                          const std::string& name, const ObjectPtr<ModuleNode>& self) {
  for (; m != end; ++m) {
    if (name != m->name) continue;
    auto fn = m->fn;
    return PackedFunc([ex, self, fn](TVMArgs args, TVMRetValue* rv) { fn(ex, args, rv); });
  }
  return PackedFunc();
}

PackedFunc ExecutorFunction(PlannedExecutor* ex, const std::string& name, const ObjectPtr<ModuleNode>& self) {
  if (name == "run") {  // the hot path: no std::function, no method table
    auto thunk = [](void* ctx, TVMArgs args, TVMRetValue*) {
      if (args.size() != 0) RequireArgCount("run", args, 0, 0);
      static_cast<PlannedExecutor*>(ctx)->WarnUnsetInputsOnce();
      static_cast<PlannedExecutor*>(ctx)->Run();
    };
    return PackedFunc(thunk, ex, self);
  }
  return MethodFunction(kMethods, std::end(kMethods), ex, name, self);
}

PackedFunc ExecutorModuleNode::GetFunction(const std::string& name, const ObjectPtr<ModuleNode>& self) {
  if (PackedFunc f = model().ExecutorModuleFunction(&executor_, name, self, debug_)) return f;
  return ExecutorFunction(&executor_, name, self);
}

ExecutorOptions ExecutorFactoryNode::WithDefaults(ExecutorOptions options) const {
  if (auto* heap = std::get_if<ExecutorOptions::Heap>(&options.memory)) {
    heap->check_bounds = heap->check_bounds || defaults_.check_bounds;
    heap->huge_pages = heap->huge_pages || defaults_.huge_pages;
  }
  if (options.num_threads == 0) options.num_threads = defaults_.num_threads;
  return options;
}

std::string ExecutorFactoryNode::SaveToBinary() const {
  std::string out;
  dmlc::MemoryStringStream mem(&out);
  dmlc::Stream* s = &mem;  // the base class declares the typed Write overloads
  SaveHead(s);
  WriteFactoryParams(s, params());
  s->Write(module_name_);
  return out;
}

PackedFunc ExecutorFactoryNode::FactoryFunction(const std::string& name, const ObjectPtr<ModuleNode>& self) {
  if (name == "list_module_names") {
    return PackedFunc([this, self](TVMArgs, TVMRetValue* rv) {
      rv->SetObject(MakeObject<ArrayObj>(std::vector<ObjectPtr<Object>>{MakeObject<StringObj>(module_name_)}));
    });
  }
  if (name == "get_params") {
    return PackedFunc([this, self](TVMArgs, TVMRetValue* rv) { rv->SetObject(ParamsToMap(params())); });
  }
  if (name == "remove_params") {
    return PackedFunc([this, self](TVMArgs, TVMRetValue* rv) {
      ObjectPtr<ExecutorFactoryNode> copy = WithoutParams();
      rv->SetObject(imports().empty() ? copy : WithImport(copy, imports()[0]), kTVMModuleHandle);
    });
  }
  return PackedFunc();
}

}  // namespace aotrt
