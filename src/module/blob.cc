#include "module/blob.h"

#include <cstring>
#include <functional>
#include <vector>

#include "base/byte_reader.h"
#include "ffi/registry.h"
#include "module/visited_modules.h"

namespace aotrt {
namespace {

constexpr const char* kLoaderPrefix = "runtime.module.loadbinary_";

std::string KnownLoaders() {
  std::string known;
  for (size_t t = 0; t < kNumBuiltinBinaryLoaderTables; ++t) {
    const BinaryLoaderTable* table = kBuiltinBinaryLoaderTables[t];
    for (size_t i = 0; i < table->size; ++i) known += (known.empty() ? "" : ", ") + std::string(table->defs[i].type_key);
  }
  for (const std::string& n : Registry::Global().ListNames()) {
    if (n.rfind(kLoaderPrefix, 0) != 0) continue;
    std::string key = n.substr(std::strlen(kLoaderPrefix));
    if (!FindBuiltinBinaryLoader(key)) known += (known.empty() ? "" : ", ") + key;
  }
  return known;
}

// A host-registered loader (TVM's convention): it reads its payload from the stream handle.
ObjectPtr<ModuleNode> LoadEntryPacked(const PackedFunc& loader, const std::string& key, SpanStream* stream,
                                      BoundedReader& r) {
  size_t start = stream->Tell();
  TVMValue args[2];
  int codes[2] = {kTVMOpaqueHandle, kTVMArgInt};
  args[0].v_handle = static_cast<dmlc::Stream*>(stream);
  args[1].v_int64 = static_cast<int64_t>(r.remaining());
  TVMRetValue rv;
  loader.CallPacked(TVMArgs(args, codes, 2), &rv);
  r.Advance(stream->Tell() - start, key.c_str());
  Object* obj = rv.object();
  if (rv.type_code() != kTVMModuleHandle || !obj) r.Fail(StrCat("loader for '", key, "' returned no module"));
  return ObjectPtr<ModuleNode>(static_cast<ModuleNode*>(obj));
}

ObjectPtr<ModuleNode> LoadEntry(const std::string& key, SpanStream* stream, BoundedReader& r, const LoadContext& ctx) {
  if (PackedFunc host = Registry::Global().GetRegistered(BinaryLoaderName(key))) {
    return LoadEntryPacked(host, key, stream, r);
  }
  const BinaryLoaderDef* builtin = FindBuiltinBinaryLoader(key);
  if (!builtin) {
    r.Fail(StrCat("Binary was created using {", key, "} but a loader of that name is not registered. "
                  "Available loaders are ", KnownLoaders(), ", _lib, _import_tree"));
  }
  BoundedReader payload(stream, r.remaining(), StrCat(key, " payload in ", r.what()));
  ObjectPtr<ModuleNode> m = builtin->load(payload, ctx);
  r.Advance(payload.offset(), key.c_str());
  if (!m) r.Fail(StrCat("loader for '", key, "' returned no module"));
  return m;
}

void LinkImportTree(const std::vector<ObjectPtr<ModuleNode>>& modules, const std::vector<uint64_t>& row_ptr,
                    const std::vector<uint64_t>& children, BoundedReader& r) {
  if (row_ptr.size() != modules.size() + 1) {
    r.Fail(StrCat("import tree has ", row_ptr.size(), " row pointers for ", modules.size(), " modules (expected ",
                  modules.size() + 1, ")"));
  }
  if (row_ptr[0] != 0 || row_ptr.back() != children.size()) {
    r.Fail(StrCat("import tree row pointers must run from 0 to ", children.size(), ", got ", row_ptr[0], " to ",
                  row_ptr.back()));
  }
  // Validate every row before following any: a later row may be what makes an earlier one wrong.
  for (size_t i = 0; i < modules.size(); ++i) {
    if (row_ptr[i] > row_ptr[i + 1]) r.Fail("import tree row pointers decrease");
  }
  for (size_t i = 0; i < modules.size(); ++i) {
    for (uint64_t j = row_ptr[i]; j < row_ptr[i + 1]; ++j) {
      uint64_t c = children[j];
      if (c >= modules.size()) {
        r.Fail(StrCat("import tree: module ", i, " imports index ", c, ", out of range [0, ", modules.size(), ")"));
      }
      try {
        modules[i]->Import(modules[c]);
      } catch (const Error& e) {
        r.Fail(StrCat("import tree: module ", i, " imports module ", c, ": ", e.what()));
      }
    }
  }
}

// OnImportsLinked on every module under `root`, imports first, each once.
void NotifyImportsLinked(ModuleNode* root) {
  VisitedModules done;
  std::function<void(ModuleNode*)> visit = [&](ModuleNode* m) {
    if (!done.Insert(m)) return;
    for (const auto& dep : m->imports()) visit(dep.get());
    m->OnImportsLinked();
  };
  visit(root);
}

}  // namespace

std::string BinaryLoaderName(const std::string& type_key) { return kLoaderPrefix + type_key; }

namespace {

// The entry of `tables` whose `key` member is `name`, or nullptr.
template <typename Def>
const Def* FindInTables(const LoaderTable<Def>* const* tables, size_t count, const char* Def::*key,
                        const std::string& name) {
  for (size_t t = 0; t < count; ++t) {
    for (size_t i = 0; i < tables[t]->size; ++i) {
      if (name == tables[t]->defs[i].*key) return &tables[t]->defs[i];
    }
  }
  return nullptr;
}

}  // namespace

const FileLoaderDef* FindBuiltinFileLoader(const std::string& format) {
  return FindInTables(kBuiltinFileLoaderTables, kNumBuiltinFileLoaderTables, &FileLoaderDef::format, format);
}

const BinaryLoaderDef* FindBuiltinBinaryLoader(const std::string& type_key) {
  return FindInTables(kBuiltinBinaryLoaderTables, kNumBuiltinBinaryLoaderTables, &BinaryLoaderDef::type_key,
                      type_key);
}

ObjectPtr<ModuleNode> ProcessModuleBlob(const char* blob, uint64_t avail, const ObjectPtr<ModuleNode>& lib,
                                        const ObjectPtr<ModuleNode>& legacy_root, const LoadContext& ctx) {
  std::string where = "module blob (__tvm_dev_mblob) of " + ctx.display_name;
  if (avail < 8) AOTRT_THROW(kFormatError, where, ": only ", avail, " bytes, need at least an 8-byte header");
  uint64_t nbytes = 0;
  for (int i = 0; i < 8; ++i) nbytes |= static_cast<uint64_t>(static_cast<unsigned char>(blob[i])) << (8 * i);
  if (nbytes > avail - 8) {
    AOTRT_THROW(kFormatError, where, ": header claims ", nbytes, " payload bytes but the symbol holds ", avail - 8);
  }
  SpanStream stream(blob + 8, nbytes);
  BoundedReader r(&stream, nbytes, where);
  uint64_t count = r.ReadCount("entry count", 8);
  std::vector<ObjectPtr<ModuleNode>> modules;
  std::vector<uint64_t> row_ptr, children;
  bool has_tree = false, has_lib = false;
  for (uint64_t i = 0; i < count; ++i) {
    std::string key = r.ReadString("entry type key");
    if (key == "_lib") {
      if (has_lib) r.Fail("Multiple dso module detected: `_lib` appears twice");
      has_lib = true;
      modules.push_back(lib);
    } else if (key == "_import_tree") {
      if (has_tree) r.Fail("`_import_tree` appears twice");
      has_tree = true;
      row_ptr = r.ReadU64Vector("import tree row_ptr");
      children = r.ReadU64Vector("import tree child_indices");
    } else {
      modules.push_back(LoadEntry(key, &stream, r, ctx));
    }
  }
  if (r.remaining() != 0) r.Fail(StrCat(r.remaining(), " bytes of unexpected data after the last entry"));
  if (has_tree) {
    if (modules.empty()) r.Fail("import tree without modules");
    LinkImportTree(modules, row_ptr, children, r);
    NotifyImportsLinked(modules[0].get());
    return modules[0];
  }
  // Legacy blob: a library module imports every other module.
  for (const auto& m : modules) {
    if (m != lib) legacy_root->Import(m);
  }
  NotifyImportsLinked(legacy_root.get());
  return legacy_root;
}

}  // namespace aotrt
