#include "aot/factory.h"

#include "aot/metadata.h"
#include "base/byte_reader.h"
#include "base/error_util.h"
#include "executor/executor_module.h"
#include "ffi/registry.h"
#include "module/load_context.h"
#include "ndarray/serialize.h"

namespace aotrt {
namespace {

std::string DeviceString(DLDevice d) { return StrCat("(type ", static_cast<int>(d.device_type), ", id ", d.device_id, ")"); }

// The factory's payload (ABI.md 6.3); its executors get at least the load's executor options.
ObjectPtr<ModuleNode> LoadFactoryBinary(BoundedReader& r, const LoadContext& ctx) {
  auto params = std::make_shared<ParamList>(ReadFactoryParams(r));
  std::string module_name = r.ReadString("module name");
  if (module_name.empty()) r.Fail("module name is empty");
  return MakeObject<AotExecutorFactoryNode>(module_name, params, ctx.options.executor);
}

// The metadata module has an empty payload; its constant pool follows the load's cache options.
ObjectPtr<ModuleNode> LoadMetadataBinary(BoundedReader&, const LoadContext& ctx) {
  return MakeObject<MetadataModuleNode>(ConstantCacheOptions::From(ctx.options));
}

}  // namespace

void AotExecutorFactoryNode::OnImportsLinked() {
  AOTRT_REQUIRE(!imports().empty(), kNotFound, "AotExecutorFactory '", module_name_, "' ", NoModelReason());
  const ObjectPtr<ModuleNode>& import = imports()[0];
  auto* md = dynamic_cast<MetadataModuleNode*>(import.get());
  AOTRT_REQUIRE(md != nullptr, kNotFound, "AotExecutorFactory '", module_name_, "': import 0 is a '",
                import->type_key(), "' module: Expected a module with PackedFunc get_metadata");
  model_ = std::make_shared<const LoadedModel>(module_name_, ObjectPtr<MetadataModuleNode>(md), params_);
}

PackedFunc AotExecutorFactoryNode::GetFunction(const std::string& name, const ObjectPtr<ModuleNode>& self) {
  if (name == module_name_) {
    return PackedFunc([this, self](TVMArgs args, TVMRetValue* rv) {
      AOTRT_REQUIRE(args.size() >= 1, kInvalidArgument, "Must supply at least one device argument to create an "
                    "executor of '", module_name_, "'");
      std::string passed;
      for (int i = 0; i < args.size(); ++i) {
        passed += (i ? ", " : "") + (args[i].type_code() == kDLDevice ? DeviceString(args[i].AsDevice())
                                                                       : std::string(TypeCodeName(args[i].type_code())));
      }
      AOTRT_REQUIRE(args.size() == 1, kInvalidArgument, "Expect exactly 1 device passed to create an executor of '",
                    module_name_, "', got ", args.size(), ": ", passed);
      rv->SetObject(CreateExecutor(args[0].AsDevice(), ExecutorOptions()), kTVMModuleHandle);
    });
  }
  return FactoryFunction(name, self);
}

namespace {

// The built-in loaders as globals, for hosts that list or call them: the payload as bytes (a
// stream handle is what the blob parser would pass to a host's loader; aotrt's own loaders are
// called typed, so an opaque handle here is refused rather than dereferenced).
template <BinaryLoaderFn kLoad>
void LoadBinaryGlobal(TVMArgs args, TVMRetValue* rv) {
  AOTRT_REQUIRE(args.size() >= 1 && args[0].type_code() == kTVMBytes, kInvalidArgument,
                "runtime.module.loadbinary_*: expected the module's payload as bytes (argument 0), got ",
                args.size() ? TypeCodeName(args[0].type_code()) : "no argument",
                "; the blob parser calls aotrt's own loaders directly");
  std::string bytes = args[0].AsString();
  SpanStream stream(bytes.data(), bytes.size());
  BoundedReader r(&stream, bytes.size(), "module payload passed to runtime.module.loadbinary_*");
  ObjectPtr<ModuleNode> m = kLoad(r, LoadContext{});
  if (r.remaining() != 0) r.Fail(StrCat(r.remaining(), " bytes of unexpected data after the payload"));
  rv->SetObject(m);
}

void SanitizeNameGlobal(TVMArgs args, TVMRetValue* rv) { rv->SetString(SanitizeName(args[0].AsString())); }

// (module, name, name/NDArray pairs...): a factory over a code or metadata module.
void CreateFactory(TVMArgs args, TVMRetValue* rv) {
  AOTRT_REQUIRE(args.size() >= 2 && args.size() % 2 == 0, kInvalidArgument,
                "tvm.aot_executor_factory.create needs a module, a name and name/NDArray pairs; got ", args.size(),
                " arguments");
  ObjectPtr<ModuleNode> lib = args[0].AsModule();
  auto params = std::make_shared<ParamList>(CopiedNamedArrays(args, 2));
  auto factory = MakeObject<AotExecutorFactoryNode>(args[1].AsString(), params, ExecutorDefaults());
  if (dynamic_cast<MetadataModuleNode*>(lib.get()) == nullptr) {
    // Given the code module itself: put the metadata module TVM expects in between. Made outside
    // a load, it has no cache options: its constants are a private copy.
    ConstantCacheOptions private_copy;
    private_copy.enabled = false;
    lib = WithImport(MakeObject<MetadataModuleNode>(private_copy), lib);
  }
  rv->SetObject(WithImport(factory, lib), kTVMModuleHandle);
}

constexpr GlobalDef kDefs[] = {
    {"runtime.module.loadbinary_AotExecutorFactory", LoadBinaryGlobal<LoadFactoryBinary>},
    {"runtime.module.loadbinary_metadata_module", LoadBinaryGlobal<LoadMetadataBinary>},
    {"tvm.aot_executor_factory.create", CreateFactory},
    {"runtime.SanitizeName", SanitizeNameGlobal},
};

constexpr BinaryLoaderDef kLoaders[] = {
    {"AotExecutorFactory", LoadFactoryBinary},
    {"metadata_module", LoadMetadataBinary},
};

}  // namespace

extern const GlobalTable kAotGlobals{kDefs};
extern const BinaryLoaderTable kAotBinaryLoaders{kLoaders};

}  // namespace aotrt
