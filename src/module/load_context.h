// What one load carries besides the bytes, passed as a parameter from the front door (Model::Load,
// Module::LoadFromFile/LoadFromMemory, TVMModLoadFromFile, the loader globals) down to the binary
// loaders of the module blob; and the typed table of those built-in loaders.
#pragma once

#include <cstddef>
#include <string>

#include "aotrt/module.h"
#include "aotrt/options.h"

namespace aotrt {

struct ArchiveContents;
class BoundedReader;

// The tools a load may start (linking a `.tar` of objects, compiling a C source), from the
// environment's CC and TMPDIR at the front door.
struct ToolConfig {
  std::string c_compiler = "cc";  // the program run to link or compile
  std::string temp_dir = "/tmp";  // where private temporary directories are made
};

struct LoadContext {
  // The caller's options with the environment's additions, the cache directory resolved ("" when
  // no directory applies: the constant cache is then off).
  LoadOptions options;
  ToolConfig tools;
  // Names the model in messages: the path given, or "<in-memory library of N bytes>".
  std::string display_name;
};

// `node` with `dep` imported, then linked (OnImportsLinked): a module tree built outside a blob,
// whose import tree ProcessModuleBlob links. Throws what OnImportsLinked throws.
template <typename T>
ObjectPtr<T> WithImport(ObjectPtr<T> node, ObjectPtr<ModuleNode> dep) {
  node->Import(std::move(dep));
  node->OnImportsLinked();
  return node;
}

// A built-in loader of one module type from its blob payload (ABI.md 5.2): reads exactly its
// payload from `payload` (which bounds every read and fails with kFormatError) and returns the
// module. Throws kFormatError for a corrupt payload.
using BinaryLoaderFn = ObjectPtr<ModuleNode> (*)(BoundedReader& payload, const LoadContext& ctx);
struct BinaryLoaderDef {
  const char* type_key;  // e.g. "AotExecutorFactory"
  BinaryLoaderFn load;
};
// A compile-time table of built-in loaders (the top layer lists every table of each kind).
template <typename Def>
struct LoaderTable {
  template <size_t N>
  constexpr LoaderTable(const Def (&table)[N]) : defs(table), size(N) {}
  const Def* defs;
  size_t size;
};
using BinaryLoaderTable = LoaderTable<BinaryLoaderDef>;

// Defined by the top layer, beside the tables of built-in globals: every table of built-in
// binary loaders. A host may still register `runtime.module.loadbinary_<key>` as a packed
// function: that takes precedence over a built-in of the same key (TVM's override semantics).
extern const BinaryLoaderTable* const kBuiltinBinaryLoaderTables[];
extern const size_t kNumBuiltinBinaryLoaderTables;

// A built-in loader of a model exported as files (a folder or tar) the module layer cannot read
// itself ("mlf": compiled by the aot layer; "graph"; "vm"), listed at the top like the binary
// loaders. The archive is read once, and `load` given the `members` any loader `wants`; told by
// content, it is the first loader's (the tables' order) that one of its members `marks`.
using FileLoaderFn = Module (*)(const std::string& path, ArchiveContents& members, const LoadContext& ctx);
struct FileLoaderDef {
  const char* format;  // e.g. "mlf"
  bool (*marks)(const std::string& member);
  bool (*wants)(const std::string& member);
  FileLoaderFn load;
};
using FileLoaderTable = LoaderTable<FileLoaderDef>;
extern const FileLoaderTable* const kBuiltinFileLoaderTables[];
extern const size_t kNumBuiltinFileLoaderTables;

}  // namespace aotrt
