// Loading a Model Library Format archive of TVM's C interface (Executor("aot", {"interface-api":
// "c", "unpacked-api": True}), Runtime("crt"), export_model_library_format): a .tar (plain or
// compressed) or its unpacked folder. The result is the same AotExecutorFactory as for packed
// exports; its executors call the compiled tvmgen_<name>___tvm_main__ with their own workspace
// pools (mlf_compile.h), the archive's constants shared.
//
// Names and dtypes come from metadata.json, the order of the run function's arguments and the
// pools from the generated sources, shapes from src/<name>.relay (an input or output it gives no
// type for is flat, TensorInfo::shape_known false); a relay shape whose size differs from
// metadata.json's is a kFormatError naming both. Thread-safe (no shared state but the cache files).
#include <memory>
#include <string>

#include "aot/c_interface/mlf_compile.h"
#include "aot/c_interface/mlf_metadata.h"
#include "aot/factory.h"
#include "aot/model_program.h"
#include "aotrt/dtype.h"
#include "base/error_util.h"
#include "constant_cache/constant_cache.h"
#include "ffi/registry.h"
#include "module/library_module.h"
#include "module/load_context.h"
#include "module/loader/archive_reader.h"
#include "module/loader/shared_library.h"

namespace aotrt {
namespace {

bool Wanted(const std::string& path) {
  return path == "metadata.json" || path.rfind("codegen/host/", 0) == 0 || path.rfind("src/", 0) == 0 ||
         path.rfind("parameters/", 0) == 0;
}

const std::string& Member(const ArchiveContents& a, const std::string& path, const std::string& what, const char* why) {
  auto it = a.files.find(path);
  AOTRT_REQUIRE(it != a.files.end(), kNotFound, what, ": no ", path, " in the archive (", why,
                "): not a Model Library Format archive of TVM's C interface");
  return it->second;
}

// Every member under codegen/ other than codegen/host: code for another device or generator.
void RefuseOtherCodegen(const ArchiveContents& a, const std::string& what) {
  for (const std::string& n : a.names) {
    if (n.rfind("codegen/", 0) != 0) continue;
    std::string dir = n.substr(8, n.find('/', 8) - 8);
    AOTRT_REQUIRE(dir == "host", kNotImplemented, what, ": codegen/", dir,
                  " holds code for another device or external code generator (BYOC): aotrt compiles host code "
                  "(codegen/host) only; run the archive on its device");
  }
}

std::string C(const std::string& name) { return SanitizeName(name); }

// The tensor `arg` names (a struct member: the sanitized name) among metadata.json's, with its
// shape from the relay signature when it gives one.
TensorSpec Tensor(const MlfEntryArg& arg, const std::vector<MlfTensor>& listed, const RelayTensorType* typed,
                  const std::string& kind, const std::string& what) {
  const MlfTensor* t = nullptr;
  for (const MlfTensor& m : listed) {
    if (C(m.name) == arg.name) t = &m;
  }
  AOTRT_REQUIRE(t != nullptr, kFormatError, what, ": the run function passes ", kind, " '", arg.name,
                "', which metadata.json does not list");
  TensorSpec s;
  s.name = arg.name;
  s.dtype = t->dtype;
  s.bytes = static_cast<size_t>(t->bytes);
  size_t elem = DataTypeBytes(t->dtype);
  if (typed) {
    int64_t n = 1;  // elements; a product past 2^40 (over any size metadata.json may state) stays there
    for (int64_t d : typed->shape) n = d != 0 && n > (int64_t{1} << 40) / d ? (int64_t{1} << 40) + 1 : n * d;
    std::string shape = ShapeToString(typed->shape.data(), static_cast<int>(typed->shape.size()));
    AOTRT_REQUIRE(typed->dtype == DataTypeToString(t->dtype) && static_cast<uint64_t>(n) * elem == t->bytes, kFormatError,
                  what, ": ", kind, " '", t->name, "' is ", shape, " ", typed->dtype, " in src/*.relay (",
                  static_cast<uint64_t>(n) * elem, " bytes) but ", DataTypeToString(t->dtype), " of ", t->bytes,
                  " bytes in metadata.json");
    s.shape = typed->shape;
  } else {
    AOTRT_REQUIRE(elem > 0 && t->bytes % elem == 0, kFormatError, what, ": ", kind, " '", t->name, "' has ", t->bytes,
                  " bytes in metadata.json, not a whole number of ", DataTypeToString(t->dtype));
    s.shape = {static_cast<int64_t>(t->bytes / elem)};
    s.shape_known = false;
  }
  return s;
}

ModelMetadata BuildMetadata(const MlfMetadata& mlf, const MlfEntry& entry, const RelaySignature& relay,
                            const std::string& symbol, const std::string& what) {
  ModelMetadata md;
  md.mod_name = symbol;
  for (const MlfEntryArg& a : entry.args) {
    if (a.kind == MlfEntryArg::kInput) {
      const RelayTensorType* typed = nullptr;
      for (const auto& [name, type] : relay.params) {
        if (C(name) == a.name) typed = &type;
      }
      md.inputs.push_back(Tensor(a, mlf.inputs, typed, "input", what));
      AOTRT_REQUIRE(md.input_index.Insert(a.name, md.inputs.size() - 1) == nullptr, kFormatError, what, ": input '", a.name,
                    "' is passed twice");
    } else if (a.kind == MlfEntryArg::kOutput) {
      size_t i = md.outputs.size();
      bool typed = relay.outputs.size() == mlf.outputs.size() && i < relay.outputs.size();
      md.outputs.push_back(Tensor(a, mlf.outputs, typed ? &relay.outputs[i] : nullptr, "output", what));
      AOTRT_REQUIRE(md.output_index.Insert(a.name, i) == nullptr, kFormatError, what, ": output '", a.name, "' is passed twice");
    } else if (a.kind != MlfEntryArg::kStaticConstants) {
      md.pool_args.push_back({false, md.workspace_pools.size()});
      TensorSpec pool;
      pool.name = a.name;
      pool.dtype = DLDataType{kDLUInt, 8, 1};
      pool.bytes = static_cast<size_t>(a.bytes);
      pool.shape = {static_cast<int64_t>(a.bytes)};
      md.workspace_pools.push_back(pool);
    }
  }
  AOTRT_REQUIRE(md.inputs.size() == mlf.inputs.size() && md.outputs.size() == mlf.outputs.size(), kFormatError, what,
                ": metadata.json lists ", mlf.inputs.size(), " inputs and ", mlf.outputs.size(),
                " outputs, the run function passes ", md.inputs.size(), " and ", md.outputs.size());
  return md;
}

std::shared_ptr<const ParamList> ReadParams(const ArchiveContents& a, const std::string& name, const std::string& what) {
  auto params = std::make_shared<ParamList>();
  auto it = a.files.find("parameters/" + name + ".params");
  if (it == a.files.end()) return params;
  try {
    for (NamedArray& p : LoadParams(it->second.data(), it->second.size())) params->push_back(std::move(p));
  } catch (const Error& e) {
    AOTRT_THROW(kFormatError, what, ": parameters/", name, ".params: ", e.what());
  }
  return params;
}

// The entry as tvmgen_<name>_run of a library the caller compiled takes it: inputs, outputs and
// caller pools in the header's struct order. Its static workspace would be every executor's.
MlfEntry UserLibraryEntry(const MlfEntry& entry, const std::string& header, const std::string& symbol,
                          const std::string& what) {
  MlfEntry out;
  out.run_file = entry.run_file;
  for (const MlfEntryArg& a : entry.args) {
    AOTRT_REQUIRE(a.kind != MlfEntryArg::kStaticWorkspace, kNotImplemented, what, ": ", symbol,
                  "_run passes the library's own static workspace '", a.name,
                  "', which every executor would share: load the archive without c_library (aotrt then compiles it "
                  "with a workspace per executor), or build with a user-named pool (WorkspacePoolInfo)");
  }
  const std::pair<const char*, MlfEntryArg::Kind> kStructs[] = {
      {"_inputs", MlfEntryArg::kInput}, {"_outputs", MlfEntryArg::kOutput}, {"_workspace_pools", MlfEntryArg::kCallerPool}};
  for (const auto& [suffix, kind] : kStructs) {
    for (const std::string& member : StructMembers(header, symbol + suffix)) {
      const MlfEntryArg* found = nullptr;
      for (const MlfEntryArg& a : entry.args) {
        if (a.kind == kind && a.name == member) found = &a;
      }
      AOTRT_REQUIRE(found != nullptr, kFormatError, what, ": struct ", symbol, suffix, " member '", member,
                    "' is not passed by ", symbol, "_run");
      out.args.push_back(*found);
    }
  }
  return out;
}

// Where the archive is: `path`, or the folder of `path` when it names a metadata.json.
std::string ArchiveRoot(const std::string& path) {
  const std::string md = "metadata.json";
  bool is_md = path.size() >= md.size() && path.compare(path.size() - md.size(), md.size(), md) == 0 &&
               (path.size() == md.size() || path[path.size() - md.size() - 1] == '/');
  if (!is_md) return path;
  size_t slash = path.find_last_of('/');
  return slash == std::string::npos ? "." : path.substr(0, slash == 0 ? 1 : slash);
}

// Loads `path` (IsModelLibraryFormat, or a metadata.json inside an unpacked archive); with
// options.library, that library (compiled by the caller) instead of compiling. Every executor of
// the model gets at least `executor_floor` (the load's LoadOptions::executor). Throws kNotFound (no such path, no metadata.json or header
// in it, no C compiler), kFormatError (a damaged or hostile archive: archive_reader.h; metadata,
// sources or relay that contradict each other), kNotImplemented (what mlf_metadata.h and
// mlf_sources.h refuse), kIOError (compiling failed: the compiler's output), kOutOfMemory.
Module LoadModelLibraryFormat(const std::string& given_path, const MlfCompileOptions& options,
                              const ExecutorOptions& executor_floor) {
  const std::string path = ArchiveRoot(given_path);
  ArchiveContents a = ReadArchive(path, Wanted);
  MlfMetadata mlf = ParseMlfMetadata(Member(a, "metadata.json", path, "names, dtypes and sizes"), path + ": metadata.json");
  RefuseOtherCodegen(a, path);
  std::string symbol = "tvmgen_" + C(mlf.model_name);
  std::string header = Member(a, "codegen/host/include/" + symbol + ".h", path, "the C interface's header");
  std::map<std::string, std::string> code;
  for (const auto& [member, bytes] : a.files) {
    if (member.rfind("codegen/host/", 0) == 0) code[member] = bytes;
  }
  std::map<std::string, std::string> sources;
  for (const auto& [member, bytes] : code) {
    if (member.rfind("codegen/host/src/", 0) == 0) sources[member] = bytes;
  }
  MlfEntry entry = ParseMlfEntry(sources, header, symbol, path);
  auto relay_it = a.files.find("src/" + mlf.model_name + ".relay");
  RelaySignature relay = relay_it == a.files.end() ? RelaySignature() : ParseRelayMain(relay_it->second);

  auto program = std::make_shared<ModelProgram>();
  program->library_name = path;
  MlfCompiled compiled;
  std::string run_symbol = kMlfRunSymbol;
  if (options.library.empty()) {
    program->md = BuildMetadata(mlf, entry, relay, symbol, path);
    compiled = CompileMlf(code, entry, symbol, options, path);
  } else {
    program->md = BuildMetadata(mlf, UserLibraryEntry(entry, header, symbol, path), relay, symbol, path);
    compiled = {OpenSharedLibrary(options.library, options.library, /*is_source_file=*/true), "given (c_library)",
                options.library};
    run_symbol = symbol + "_run";
  }
  program->c_origin = compiled.origin;
  CollectRuntimeSymbols(*compiled.library, program.get());
  // tvmgen_<name>_run takes (inputs*, outputs*[, workspace_pools*]): structs of void*, laid out as
  // the executor's pointer arrays; without a pools struct the third argument is ignored.
  program->c_run = reinterpret_cast<ModelProgram::CRunFunc>(compiled.library->Lookup(run_symbol));
  AOTRT_REQUIRE(program->c_run != nullptr, kNotFound, compiled.path, " does not define ", run_symbol,
                options.library.empty() ? "" : ": compile the archive's codegen/host/src/*.c into it");
  program->constant_pool_shape = {0};

  auto metadata = MakeObject<MetadataModuleNode>(program);
  metadata->Import(AcquireLibraryModule(compiled.library));  // keeps the library loaded
  auto factory =
      MakeObject<AotExecutorFactoryNode>(mlf.model_name, ReadParams(a, mlf.model_name, path), executor_floor);
  factory->Import(metadata);
  factory->OnImportsLinked();
  return Module(factory);
}

// The typed file loader (module/load_context.h): the load's options and tools decide the compiler,
// the compile cache and a library the caller compiled.
Module LoadMlfFile(const std::string& path, const LoadContext& ctx) {
  MlfCompileOptions options;
  options.compiler = ctx.tools.c_compiler;
  options.temp_dir = ctx.tools.temp_dir;
  options.library = ctx.options.c_library;
  if (ctx.options.compile_cache) options.cache_dir = ctx.options.cache_dir;
  return LoadModelLibraryFormat(path, options, ctx.options.executor);
}

constexpr FileLoaderDef kLoaders[] = {
    {"mlf", LoadMlfFile},
};

}  // namespace

extern const FileLoaderTable kCInterfaceFileLoaders{kLoaders};

}  // namespace aotrt
