#include "graph/graph_factory.h"

#include <dmlc/io.h>

#include "aotrt/container.h"
#include "base/byte_reader.h"
#include "base/device.h"
#include "executor/executor_module.h"
#include "ffi/registry.h"
#include "module/library_module.h"
#include "module/loader/load.h"
#include "module/loader/archive_reader.h"
#include "module/load_context.h"
#include "ndarray/serialize.h"

namespace aotrt {
namespace {

// A graph model over `library` (the module whose functions the graph names): what
// tvm.graph_executor.create and Model::LoadGraph build. Throws as ParseGraphJson and GraphModel.
std::shared_ptr<const GraphModel> MakeGraphModel(const std::string& name, const std::string& graph_json,
                                                 const Module& library, std::vector<NamedArray> params) {
  AOTRT_REQUIRE(library.defined(), kInvalidArgument, "graph '", name, "': no library module given");
  const LibraryModuleNode* lib = FindLibraryModule(library.node().get());  // its file names it in messages
  std::string what = lib ? lib->library().name() : StrCat("a '", library.type_key(), "' module");
  GraphDef graph = ParseGraphJson(graph_json, StrCat("graph JSON of ", what));
  return std::make_shared<const GraphModel>(name, std::move(graph), library, std::move(params), what);
}

// The factory's payload: graph JSON, params (u64 count, names, arrays), module name.
ObjectPtr<ModuleNode> LoadFactoryBinary(BoundedReader& r, const LoadContext& ctx) {
  std::string json = r.ReadString("graph JSON");
  std::vector<NamedArray> params = ReadFactoryParams(r);
  std::string module_name = r.ReadString("module name");
  if (module_name.empty()) r.Fail("module name is empty");
  return MakeObject<GraphExecutorFactoryNode>(std::move(json), std::move(params), std::move(module_name),
                                              ctx.options.executor);
}

// The device a graph's executor runs on, of the devices given (several for a heterogeneous graph,
// as TVM takes them): the one of the graph's device type, else the first (GraphModel::CheckDevice
// then says why it cannot). A heterogeneous graph's CPU entries stay on the host.
DLDevice PickDevice(const GraphModel& model, const std::vector<DLDevice>& given) {
  for (DLDevice d : given) {
    if (DeviceTypeOf(d) == model.graph().device_type) return d;
  }
  return given[0];
}

// tvm.graph_executor.create(graph_json, module, [lookup_linked_param,] device_type, device_id, ...)
template <bool kDebug>
void CreateGlobal(TVMArgs args, TVMRetValue* rv) {
  const char* fn = kDebug ? "tvm.graph_executor_debug.create" : "tvm.graph_executor.create";
  AOTRT_REQUIRE(args.size() >= 4, kInvalidArgument, "The expected number of arguments for ", fn,
                " is at least 4, but it has ", args.size());
  int first = args[2].type_code() == kTVMPackedFuncHandle ? 3 : 2;  // TVM's linked-param lookup: not needed
  AOTRT_REQUIRE((args.size() - first) % 2 == 0, kInvalidArgument, fn, " takes (graph_json, module, device_type, ",
                "device_id[, device_type, device_id ...]), got ", args.size(), " arguments");
  std::vector<DLDevice> devices;
  for (int i = first; i < args.size(); i += 2) {
    devices.push_back(MakeDevice(static_cast<int>(args[i].AsInt()), static_cast<int>(args[i + 1].AsInt())));
  }
  Module lib(args[1].AsModule());
  auto model = MakeGraphModel("default", args[0].AsString(), lib, {});
  rv->SetObject(MakeObject<ExecutorModuleNode>(model, PickDevice(*model, devices), ExecutorOptions(), ExecutorArena(), kDebug),
                kTVMModuleHandle);
}

// tvm.graph_executor_factory.create(graph_json, module, module_name, name0, array0, ...)
void CreateFactoryGlobal(TVMArgs args, TVMRetValue* rv) {
  AOTRT_REQUIRE(args.size() >= 3 && (args.size() - 3) % 2 == 0, kInvalidArgument,
                "tvm.graph_executor_factory.create takes (graph_json, module, module_name, name, array, ...), got ",
                args.size(), " arguments");
  auto factory = MakeObject<GraphExecutorFactoryNode>(args[0].AsString(), CopiedNamedArrays(args, 3), args[2].AsString(),
                                                      ExecutorDefaults());
  rv->SetObject(WithImport(factory, args[1].AsModule()), kTVMModuleHandle);
}

// A folder or tar holding mod.so, mod.json and mod.params: tvmc's package.
Module LoadGraphPackage(const std::string& path, ArchiveContents& c, const LoadContext& ctx) {
  // TVM's tvmc reads all three; params on zeros would run silently wrong.
  for (const char* member : {kGraphPackageLibrary, kGraphPackageJson, kGraphPackageParams}) {
    AOTRT_REQUIRE(c.files.count(member), kFormatError, path, ": a graph package (it holds ", kGraphPackageJson,
                  ") without ", member, ": expected ", kGraphPackageLibrary, ", ", kGraphPackageJson, " and ",
                  kGraphPackageParams);
    AOTRT_REQUIRE(!c.files[member].empty(), kFormatError, path, ": the graph package's ", member, " is empty",
                  member == kGraphPackageParams ? " (a params file, even of a model without params, has a header)" : "");
  }
  const std::string& so = c.files[kGraphPackageLibrary];
  LoadContext lib_ctx = ctx;
  lib_ctx.display_name = StrCat(path, "/", kGraphPackageLibrary);
  Module lib = LoadModuleBytes(so.data(), so.size(), lib_ctx);
  return MakeGraphFactory(lib, c.files[kGraphPackageJson], c.files[kGraphPackageParams], ctx.options.executor);
}

constexpr GlobalDef kDefs[] = {
    {"tvm.graph_executor.create", CreateGlobal<false>},
    {"tvm.graph_executor_debug.create", CreateGlobal<true>},
    {"tvm.graph_executor_factory.create", CreateFactoryGlobal},
};

// GraphRuntimeFactory: the type key of exports before TVM v0.8 renamed the graph runtime.
constexpr BinaryLoaderDef kLoaders[] = {
    {"GraphExecutorFactory", LoadFactoryBinary},
    {"GraphRuntimeFactory", LoadFactoryBinary},
};

constexpr FileLoaderDef kFileLoaders[] = {{"graph", [](const std::string& m) { return m == kGraphPackageJson; },
    [](const std::string& m) { return m == kGraphPackageLibrary || m == kGraphPackageJson || m == kGraphPackageParams; },
    LoadGraphPackage}};

}  // namespace

void GraphExecutorFactoryNode::OnImportsLinked() {
  AOTRT_REQUIRE(!imports().empty(), kNotFound, "GraphExecutorFactory '", module_name_, "' ", NoModelReason());
  model_ = MakeGraphModel(module_name_, graph_json_, Module(imports()[0]), params_);
}

PackedFunc GraphExecutorFactoryNode::GetFunction(const std::string& name, const ObjectPtr<ModuleNode>& self) {
  if (name == module_name_ || name == "debug_create") {
    bool debug = name == "debug_create";
    return PackedFunc([this, self, debug](TVMArgs args, TVMRetValue* rv) {
      int first = debug ? 1 : 0;
      AOTRT_REQUIRE(args.size() > first, kInvalidArgument, "Must supply at least one device argument to create an "
                    "executor of '", module_name_, "'");
      AOTRT_REQUIRE(!debug || args[0].AsString() == module_name_, kNotFound, "debug_create: the library's model is '",
                    module_name_, "', not '", args[0].AsString(), "'");
      std::vector<DLDevice> devices;
      for (int i = first; i < args.size(); ++i) {
        AOTRT_REQUIRE(args[i].type_code() == kDLDevice, kInvalidArgument, "creating an executor of '", module_name_,
                      "' takes devices; argument ", i, " is ", TypeCodeName(args[i].type_code()));
        devices.push_back(args[i].AsDevice());
      }
      rv->SetObject(MakeObject<ExecutorModuleNode>(model(), PickDevice(*model(), devices), WithDefaults(ExecutorOptions()),
                                                   ExecutorArena(), debug),
                    kTVMModuleHandle);
    });
  }
  if (name == "get_graph_json") {
    return PackedFunc([this, self](TVMArgs, TVMRetValue* rv) { rv->SetString(graph_json_); });
  }
  return FactoryFunction(name == "get_graph_params" ? "get_params" : name, self);
}

void GraphExecutorFactoryNode::SaveHead(dmlc::Stream* s) const { s->Write(graph_json_); }

Module MakeGraphFactory(const Module& library, const std::string& graph_json, const std::string& params,
                        const ExecutorDefaults& defaults) {
  std::vector<NamedArray> arrays = params.empty() ? std::vector<NamedArray>() : LoadParams(params.data(), params.size());
  auto factory = MakeObject<GraphExecutorFactoryNode>(graph_json, std::move(arrays), "default", defaults);
  return Module(WithImport(factory, library.node()));
}

extern const GlobalTable kGraphGlobals{kDefs};
extern const BinaryLoaderTable kGraphBinaryLoaders{kLoaders};
extern const FileLoaderTable kGraphFileLoaders{kFileLoaders};

}  // namespace aotrt
