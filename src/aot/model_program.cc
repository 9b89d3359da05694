#include "aot/model_program.h"

#include <algorithm>

#include "base/error_util.h"
#include "module/loader/shared_library.h"
#include "module/library_module.h"
#include "module/model_contract.h"

namespace aotrt {
namespace {

// The shared constant pool, from the per-machine cache when it can be used (constant_cache.h). Its
// size lies between the furthest constant's offset and the furthest end of a serialized constant
// (its header included); only a miss parses the constants (PlanConstantPool) for the exact size.
ConstantPoolMemory LoadConstantPool(const ModelMetadata& md, LibraryModuleNode* lib, const ConstantCacheOptions& cache,
                                    const std::string& what) {
  ConstantPoolPlan plan;
  ConstantPoolSource source;
  for (const ConstantSpec& c : md.constants) {
    source.bytes_min = std::max(source.bytes_min, static_cast<size_t>(c.byte_offset));
    source.bytes_max = std::max(source.bytes_max, static_cast<size_t>(c.byte_offset + c.data_len));
  }
  source.key = [&] { return ConstantPoolKey(md, lib ? &lib->library() : nullptr); };
  source.plan = [&] {
    plan = PlanConstantPool(md, what);
    return plan.bytes;
  };
  source.fill = [&plan](uint8_t* pool) { plan.Fill(pool); };
  return GetConstantPool(source, cache, what);
}

}  // namespace

std::string ConstantPoolKey(const ModelMetadata& md, const SymbolSource* lib) {
  std::string file = lib ? lib->source_file() : std::string();
  std::string identity = file.empty() ? std::string() : FileIdentityKey(file);
  if (identity.empty()) {
    std::vector<std::pair<const void*, size_t>> ranges;
    ranges.reserve(md.constants.size());
    for (const ConstantSpec& c : md.constants) ranges.emplace_back(c.data, static_cast<size_t>(c.data_len));
    identity = ContentKey(ranges);
  }
  // One allocation for the whole key: "|<name>@<offset>+<length>" per constant (numbers of at most
  // 20 digits), and room for the suffix GetConstantPool appends.
  size_t bytes = identity.size() + 1 + md.mod_name.size() + kConstantPoolKeySuffixBytes;
  for (const ConstantSpec& c : md.constants) bytes += 3 + c.name.size() + 40;
  std::string key;
  key.reserve(bytes);
  StrAppend(key, identity, "|", md.mod_name);
  for (const ConstantSpec& c : md.constants) StrAppend(key, "|", c.name, "@", c.byte_offset, "+", c.data_len);
  return key;
}

void CollectRuntimeSymbols(ModuleNode* tree, ModelInfo* p) {
  const LibraryModuleNode* lib = FindLibraryModule(tree);
  const ElfDynamicSymbols* syms = lib ? lib->library().dynamic_symbols() : nullptr;
  if (!syms) return;
  auto starts = [](std::string_view s, const char* prefix) { return s.rfind(prefix, 0) == 0; };
  for (std::string_view s : syms->undefined) {
    // TVM's C ABI, and the float16 helpers LLVM <= 14 exports expect from the runtime (ABI.md 10.2)
    bool half_helper = s == "__gnu_f2h_ieee" || s == "__gnu_h2f_ieee" || s == "__truncdfhf2";
    if (starts(s, "TVM") || half_helper) p->runtime_imports.emplace_back(s);
  }
  for (const ElfSymbol& s : syms->defined) {
    if (starts(s.name, contract::kContextPointerPrefix)) p->context_pointers.emplace_back(s.name);
  }
  p->defines_module_context = syms->FindDefined(contract::kModuleContext) != nullptr;
  std::sort(p->runtime_imports.begin(), p->runtime_imports.end());
  std::sort(p->context_pointers.begin(), p->context_pointers.end());
}

PackedFunc MetadataModuleNode::GetFunction(const std::string& name, const ObjectPtr<ModuleNode>& self) {
  if (name == "get_metadata") {
    return PackedFunc([this, self](TVMArgs, TVMRetValue* rv) { rv->SetHandle(const_cast<TVMMetadata*>(program()->raw)); });
  }
  return PackedFunc();
}

const std::shared_ptr<const ModelProgram>& MetadataModuleNode::program() const {
  AOTRT_REQUIRE(program_ != nullptr, kNotFound, "metadata_module has no model: it imports no library with get_c_metadata");
  return program_;
}

void MetadataModuleNode::OnImportsLinked() {
  if (imports().empty() || program_) return;  // a legacy blob's (pre-import-tree): no model to build, as TVM
  auto p = std::make_shared<ModelProgram>();
  LibraryModuleNode* first = FindLibraryModule(this);
  p->library_name = first && !first->library().name().empty() ? first->library().name() : "model";
  Module self{ObjectPtr<ModuleNode>(this)};
  PackedFunc get = self.GetFunction(contract::kGetCMetadata, true);
  if (!get) {
    std::string hint = first ? first->library().MissingSymbolHint(contract::kGetCMetadata) : std::string();
    AOTRT_THROW(kNotFound, p->library_name, ": Unable to locate get_c_metadata PackedFunc", hint.empty() ? "" : ": ",
                hint);
  }
  TVMRetValue rv = get();
  AOTRT_REQUIRE(rv.type_code() == kTVMOpaqueHandle, kFormatError, p->library_name,
                ": get_c_metadata: Expected kOpaqueHandle returned; got ", rv.type_code());
  p->raw = static_cast<const TVMMetadata*>(rv.value().v_handle);
  // Every pointer of the metadata must lie in the library that returned it.
  LibraryModuleNode* md_lib = FindLibraryModule(this, contract::kGetCMetadata);
  if (!md_lib) md_lib = first;
  p->md = ReadMetadata(p->raw, md_lib ? md_lib->library().Segments() : AddressBounds(), p->library_name);
  if (!p->md.constants.empty()) p->constant_pool = LoadConstantPool(p->md, md_lib, cache_, p->library_name);
  std::string entry = p->md.EntryName();
  if (LibraryModuleNode* lib = FindLibraryModule(this, entry)) {
    p->entry = reinterpret_cast<TVMBackendPackedCFunc>(lib->library().Lookup(entry));
  } else {
    p->entry_packed = self.GetFunction(entry, true);
    AOTRT_REQUIRE(static_cast<bool>(p->entry_packed), kNotFound, p->library_name,
                  ": Module entrypoint is not defined: no function ", entry);
  }
  program_ = std::move(p);
}

}  // namespace aotrt
