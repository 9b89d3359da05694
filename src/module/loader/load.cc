// Loading model libraries, whatever their format (told by extension or content), and the module
// tree read from a library's packed blob `__tvm_dev_mblob` (ABI.md 5.2, 5.3). The front doors that
// read the environment and call these are in module/module_load.cc.
#include "module/loader/load.h"

#include <elf.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <functional>
#include <memory>
#include <utility>
#include <vector>

#include "aotrt/module.h"
#include "base/byte_reader.h"
#include "base/error_util.h"
#include "base/temp_dir.h"
#include "base/unique_fd.h"
#include "ffi/registry.h"
#include "module/library_module.h"
#include "module/load_context.h"
#include "module/loader/archive_reader.h"
#include "module/loader/object_linker.h"
#include "module/loader/shared_library.h"
#include "module/model_contract.h"
#include "module/visited_modules.h"

namespace aotrt {
namespace {

// The first entry of `tables`, in order, for which `pred` holds, or nullptr.
template <typename Def, typename Pred>
const Def* FindInTables(const LoaderTable<Def>* const* tables, size_t count, Pred pred) {
  for (size_t t = 0; t < count; ++t) {
    for (size_t i = 0; i < tables[t]->size; ++i) {
      if (pred(tables[t]->defs[i])) return &tables[t]->defs[i];
    }
  }
  return nullptr;
}

template <typename Pred>
const FileLoaderDef* FindFileLoader(Pred pred) {
  return FindInTables(kBuiltinFileLoaderTables, kNumBuiltinFileLoaderTables, pred);
}

const FileLoaderDef* FindBuiltinFileLoader(const std::string& format) {
  return FindFileLoader([&](const FileLoaderDef& d) { return format == d.format; });
}

const BinaryLoaderDef* FindBuiltinBinaryLoader(const std::string& type_key) {
  return FindInTables(kBuiltinBinaryLoaderTables, kNumBuiltinBinaryLoaderTables,
                      [&](const BinaryLoaderDef& d) { return type_key == d.type_key; });
}

std::string Extension(const std::string& path) {
  size_t dot = path.find_last_of("./");  // a dot before the last slash is a folder's
  return dot != std::string::npos && path[dot] == '.' ? path.substr(dot + 1) : "";
}

// Writes bytes into an anonymous in-memory file; closes it on destruction.
class MemFile {
 public:
  MemFile(const void* data, size_t size) : fd_(::memfd_create("aotrt-model", MFD_CLOEXEC)) {
    if (fd_.fd < 0) AOTRT_THROW(kIOError, "LoadFromMemory: memfd_create failed: ", std::strerror(errno));
    AOTRT_REQUIRE(AllAt(::pwrite, fd_.fd, static_cast<const char*>(data), size, 0), kIOError, "LoadFromMemory: writing ",
                  size, " bytes failed: ", std::strerror(errno));
  }
  // Names the file for this process and for the tools it starts (tar, cc).
  std::string path() const { return "/proc/" + std::to_string(::getpid()) + "/fd/" + std::to_string(fd_.fd); }

 private:
  UniqueFd fd_;
};

// Whether the first `size` bytes of a file are a tar (ustar magic) or a gzip, xz, bzip2 or zstd
// stream (TVM's export_library writes a gzip-compressed tar).
bool HasArchiveMagic(const void* head, size_t size) {
  const char* bytes = static_cast<const char*>(head);
  if (size >= 262 && std::memcmp(bytes + 257, "ustar", 5) == 0) return true;
  static const char* const kMagics[] = {"\x1f\x8b", "\xfd" "7zXZ", "BZh", "\x28\xb5\x2f\xfd"};
  for (const char* magic : kMagics) {
    if (size >= std::strlen(magic) && std::memcmp(bytes, magic, std::strlen(magic)) == 0) return true;
  }
  return false;
}

// Whether `path` is a folder, or a regular file whose first bytes are an archive's.
bool IsFolderOrArchive(const std::string& path) {
  struct stat st;
  if (::stat(path.c_str(), &st) != 0) return false;
  std::string head = S_ISREG(st.st_mode) ? ReadFileBytes(path, 512) : std::string();
  return S_ISDIR(st.st_mode) || HasArchiveMagic(head.data(), head.size());
}

// A model exported as files (load_context.h), read once: by the loader of `format`, or when that is
// "" by the one the members mark (none: an undefined Module); a marker named inside a folder (its
// metadata.json) stands for the folder. Throws what ReadArchive and the loader throw.
Module LoadModelFiles(const std::string& path, const std::string& format, const LoadContext& ctx) {
  const FileLoaderDef* loader = format.empty() ? nullptr : FindBuiltinFileLoader(format);
  std::string root = path;
  size_t slash = path.find_last_of('/');
  if (loader && loader->marks(path.substr(slash + 1))) {
    root = slash == std::string::npos ? "." : path.substr(0, slash == 0 ? 1 : slash);
  } else if (!loader && !IsFolderOrArchive(path)) {
    return Module();  // anything else (a shared library above all) is not opened with libarchive at all
  }
  ArchiveContents members = ReadArchive(root, [](const std::string& m) {
    return FindFileLoader([&m](const FileLoaderDef& d) { return d.wants(m); }) != nullptr;
  });
  if (!loader) {
    loader = FindFileLoader([&members](const FileLoaderDef& d) {
      return std::any_of(members.names.begin(), members.names.end(), d.marks);
    });
  }
  return loader ? loader->load(root, members, ctx) : Module();
}

// A model's format told by its first bytes: "tar" for a tar archive (compressed or not), "o" for
// an ELF relocatable object, "so" for any other ELF file (dlopen says whether it is a shared
// library), nullptr for anything else.
const char* SniffFormat(const void* data, size_t size) {
  if (HasArchiveMagic(data, size)) return "tar";
  Elf64_Ehdr eh;
  if (size >= sizeof(eh) && std::memcmp(data, ELFMAG, SELFMAG) == 0) {
    std::memcpy(&eh, data, sizeof(eh));
    return eh.e_type == ET_REL ? "o" : "so";
  }
  return nullptr;
}

}  // namespace

Module LoadFromSymbolSource(std::shared_ptr<SymbolSource> lib, const LoadContext& ctx) {
  ObjectPtr<LibraryModuleNode> lib_node = AcquireLibraryModule(std::move(lib));
  const SymbolSource& symbols = lib_node->library();
  ObjectPtr<ModuleNode> root = lib_node;
  if (const auto* blob = static_cast<const char*>(symbols.Lookup(contract::kModuleBlob))) {
    // The blob is read only within its segment; a .dynsym size (0 when unknown: a system library)
    // may narrow that, never widen it.
    uint64_t readable = symbols.Segments().Readable(blob);
    uint64_t size = symbols.SymbolSize(contract::kModuleBlob);
    AOTRT_REQUIRE(readable > 0, kFormatError, symbols.name(), ": ", contract::kModuleBlob,
                  " is outside the library's mapped segments");
    AOTRT_REQUIRE(size <= readable, kFormatError, symbols.name(), ": the .dynsym size of ", contract::kModuleBlob, " (",
                  size, " bytes) runs past the end of its mapped segment (", readable, " bytes)");
    LoadContext blob_ctx = ctx;
    blob_ctx.display_name = symbols.name();
    root = ProcessModuleBlob(blob, size ? size : readable, lib_node, blob_ctx);
  }
  return Module(root);
}

Module LoadModuleFile(const std::string& path, const std::string& format, const LoadContext& ctx) {
  std::string fmt = format.empty() ? Extension(path) : format;
  if (fmt == "dll" || fmt == "dylib" || fmt == "dso") fmt = "so";
  // Archives and folders are told by content: a Model Library Format archive (a library the caller
  // compiled from one is loaded with the archive's metadata), a graph export as files (tvmc's
  // package, a folder of the classic triple), a Relay VM export as files (code.ro beside lib.so).
  if (format.empty() && fmt != "so" && fmt != "o") {
    if (Module m = LoadModelFiles(path, ctx.options.c_library.empty() ? "" : "mlf", ctx); m.defined()) return m;
  }
  if (FindBuiltinFileLoader(fmt)) return LoadModelFiles(path, fmt, ctx);
  if (fmt != "so" && fmt != "tar" && fmt != "o") {
    // A host may register a loader for its own format (TVM's runtime.module.loadfile_<fmt>).
    if (PackedFunc host = Registry::Global().GetRegistered("runtime.module.loadfile_" + fmt)) {
      TVMRetValue rv = host(path, fmt);
      AOTRT_REQUIRE(rv.type_code() == kTVMModuleHandle && rv.object(), kInternal, "loader for .", fmt,
                    " returned no module");
      return Module(ObjectPtr<ModuleNode>(static_cast<ModuleNode*>(rv.object())));
    }
    // An unknown extension (model.bin): tell the format by content.
    AOTRT_REQUIRE(::access(path.c_str(), R_OK) == 0, kNotFound, "Loader for `.", fmt, "` files is not registered and ",
                  path, " cannot be read to tell its format: ", std::strerror(errno));
    std::string head = ReadFileBytes(path, 512);
    const char* sniffed = SniffFormat(head.data(), head.size());
    AOTRT_REQUIRE(sniffed != nullptr, kNotFound, "Loader for `.", fmt, "` files is not registered (loading ", path,
                  ") and the file's content is neither a shared library (ELF) nor an object archive (tar, compressed "
                  "or not); aotrt loads shared libraries (.so) and object exports (.tar, .o)");
    fmt = sniffed;
  }
  if (fmt == "so") return LoadFromSymbolSource(OpenSharedLibrary(path, path, /*is_source_file=*/true), ctx);
  return LoadFromSymbolSource(OpenObjectFiles(path, fmt, ctx.tools), ctx);
}

Module LoadModuleBytes(const void* data, size_t size, const LoadContext& ctx) {
  AOTRT_REQUIRE(data != nullptr || size == 0, kInvalidArgument, "LoadFromMemory: null data");
  auto file = std::make_unique<MemFile>(data, size);
  const char* format = SniffFormat(data, size);
  if (format && std::strcmp(format, "so") != 0) {
    // An archive its members mark (a Model Library Format archive, a graph or VM package) is read
    // from the in-memory file as from its own.
    if (Module m = LoadModelFiles(file->path(), "", ctx); m.defined()) return m;
    return LoadFromSymbolSource(OpenObjectFiles(file->path(), format, ctx.tools), ctx);  // linked to a new file
  }
  // The file stays open while the library is loaded, and is closed after it (pair members die in
  // reverse): dlopen returns an already-loaded library whose path string matches, and
  // /proc/PID/fd/N names another model's bytes once N is closed and reused.
  using Kept = std::pair<std::unique_ptr<MemFile>, std::shared_ptr<SymbolSource>>;
  std::shared_ptr<SymbolSource> lib = OpenSharedLibrary(file->path(), ctx.display_name);
  auto kept = std::make_shared<Kept>(std::move(file), std::move(lib));
  return LoadFromSymbolSource(std::shared_ptr<SymbolSource>(kept, kept->second.get()), ctx);
}

namespace {

// The global that loads modules of type <key> from a blob is runtime.module.loadbinary_<key>.
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

ObjectPtr<ModuleNode> LoadEntry(const std::string& key, SpanStream* stream, BoundedReader& r, const LoadContext& ctx) {
  ObjectPtr<ModuleNode> m;
  if (PackedFunc host = Registry::Global().GetRegistered(kLoaderPrefix + key)) {
    // A host-registered loader (TVM's convention): it reads its payload from the stream handle.
    size_t start = stream->Tell();
    TVMRetValue rv = host(static_cast<void*>(static_cast<dmlc::Stream*>(stream)), static_cast<int64_t>(r.remaining()));
    r.Advance(stream->Tell() - start, key.c_str());
    if (rv.type_code() == kTVMModuleHandle) m = ObjectPtr<ModuleNode>(static_cast<ModuleNode*>(rv.object()));
  } else {
    const BinaryLoaderDef* builtin = FindBuiltinBinaryLoader(key);
    if (!builtin) {
      r.Fail(StrCat("Binary was created using {", key, "} but a loader of that name is not registered. "
                    "Available loaders are ", KnownLoaders(), ", _lib, _import_tree"));
    }
    BoundedReader payload(stream, r.remaining(), StrCat(key, " payload in ", r.what()));
    m = builtin->load(payload, ctx);
    r.Advance(payload.offset(), key.c_str());
  }
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

ObjectPtr<ModuleNode> ProcessModuleBlob(const char* blob, uint64_t avail, const ObjectPtr<LibraryModuleNode>& lib,
                                        const LoadContext& ctx) {
  std::string where = "module blob (__tvm_dev_mblob) of " + ctx.display_name;
  if (avail < 8) AOTRT_THROW(kFormatError, where, ": only ", avail, " bytes, need at least an 8-byte header");
  uint64_t nbytes = 0;
  for (int i = 0; i < 8; ++i) nbytes |= static_cast<uint64_t>(static_cast<unsigned char>(blob[i])) << (8 * i);
  AOTRT_REQUIRE(nbytes <= avail - 8, kFormatError, where, ": header claims ", nbytes, " payload bytes but the symbol holds ",
                avail - 8);
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
  auto legacy_root = MakeObject<LibraryModuleNode>(lib->shared_library());
  for (const auto& m : modules) {
    if (m != lib) legacy_root->Import(m);
  }
  NotifyImportsLinked(legacy_root.get());
  return legacy_root;
}

}  // namespace aotrt
