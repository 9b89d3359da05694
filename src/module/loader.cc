// Loading model libraries: from a file, from memory, or the system library.
#include <elf.h>
#include <sys/mman.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <fstream>
#include <memory>

#include "base/error_util.h"
#include "module/loader/archive_reader.h"
#include "ffi/registry.h"
#include "module/blob.h"
#include "module/library_module.h"
#include "module/load_context.h"
#include "module/loader/object_linker.h"
#include "module/model_contract.h"

namespace aotrt {
namespace {

std::string Extension(const std::string& path) {
  size_t dot = path.find_last_of('.');
  size_t slash = path.find_last_of('/');
  if (dot == std::string::npos || (slash != std::string::npos && dot < slash)) return "";
  return path.substr(dot + 1);
}

// Writes bytes into an anonymous in-memory file; closes it on destruction.
class MemFile {
 public:
  MemFile(const void* data, size_t size) {
    fd_ = ::memfd_create("aotrt-model", MFD_CLOEXEC);
    if (fd_ < 0) AOTRT_THROW(kIOError, "LoadFromMemory: memfd_create failed: ", std::strerror(errno));
    const char* p = static_cast<const char*>(data);
    size_t left = size;
    while (left > 0) {
      ssize_t n = ::write(fd_, p, left);
      if (n < 0 && errno == EINTR) continue;
      if (n <= 0) {
        int err = errno;
        ::close(fd_);
        AOTRT_THROW(kIOError, "LoadFromMemory: writing ", size, " bytes failed: ", std::strerror(err));
      }
      p += n;
      left -= static_cast<size_t>(n);
    }
  }
  ~MemFile() { ::close(fd_); }
  // Names the file for this process and for the tools it starts (tar, cc).
  std::string path() const { return "/proc/" + std::to_string(::getpid()) + "/fd/" + std::to_string(fd_); }

 private:
  int fd_ = -1;
};

// A library loaded from a MemFile, which stays open as long as the library is loaded: dlopen
// returns an already-loaded library whose path string matches, and /proc/PID/fd/N names another
// model's bytes once N is closed and reused (two models from memory would otherwise be one).
class MemFileLibrary final : public SymbolSource {
 public:
  MemFileLibrary(std::unique_ptr<MemFile> file, std::shared_ptr<SymbolSource> lib)
      : file_(std::move(file)), lib_(std::move(lib)) {}
  void* Lookup(const std::string& n) const override { return lib_->Lookup(n); }
  uint64_t SymbolSize(const std::string& n) const override { return lib_->SymbolSize(n); }
  AddressBounds Segments() const override { return lib_->Segments(); }
  const std::string& name() const override { return lib_->name(); }
  const void* identity() const override { return lib_->identity(); }
  std::string MissingSymbolHint(const std::string& n) const override { return lib_->MissingSymbolHint(n); }
  const ElfDynamicSymbols* dynamic_symbols() const override { return lib_->dynamic_symbols(); }

 private:
  std::unique_ptr<MemFile> file_;       // declared first: closed after lib_ is released (dlclose)
  std::shared_ptr<SymbolSource> lib_;
};

// A model's format told by its first bytes: "tar" for a tar archive (TVM's export_library writes
// it gzip-compressed), "o" for an ELF relocatable object, "so" for any other ELF file (dlopen says
// whether it is a shared library), nullptr for anything else.
const char* SniffFormat(const void* data, size_t size) {
  const char* bytes = static_cast<const char*>(data);
  if (size >= 262 && std::memcmp(bytes + 257, "ustar", 5) == 0) return "tar";
  if (size >= 2 && static_cast<unsigned char>(bytes[0]) == 0x1f && static_cast<unsigned char>(bytes[1]) == 0x8b) {
    return "tar";
  }
  Elf64_Ehdr eh;
  if (size >= sizeof(eh) && std::memcmp(bytes, ELFMAG, SELFMAG) == 0) {
    std::memcpy(&eh, bytes, sizeof(eh));
    return eh.e_type == ET_REL ? "o" : "so";
  }
  return nullptr;
}

// SniffFormat of the file at `path`; nullptr when it cannot be read.
const char* SniffFileFormat(const std::string& path) {
  char head[512];
  std::ifstream in(path, std::ios::binary);
  in.read(head, sizeof(head));
  return SniffFormat(head, static_cast<size_t>(in.gcount()));
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
    uint64_t avail = size ? size : readable;
    auto legacy_root = MakeObject<LibraryModuleNode>(lib_node->shared_library());
    LoadContext blob_ctx = ctx;
    blob_ctx.display_name = symbols.name();
    blob_ctx.library = &symbols;
    root = ProcessModuleBlob(blob, avail, lib_node, legacy_root, blob_ctx);
  }
  return Module(root);
}

Module LoadModuleFile(const std::string& path, const std::string& format, const LoadContext& ctx) {
  std::string fmt = format.empty() ? Extension(path) : format;
  if (fmt == "dll" || fmt == "dylib" || fmt == "dso") fmt = "so";
  // A Model Library Format archive (a folder, or a tar that may be compressed) is told by content;
  // a library the caller compiled from one is loaded with the archive's metadata.
  if (format.empty() && fmt != "so" && fmt != "o" && (IsModelLibraryFormat(path) || !ctx.options.c_library.empty())) {
    fmt = "mlf";
  }
  // A graph export as files (tvmc's package, or a folder of the classic triple) likewise.
  if (format.empty() && fmt != "so" && fmt != "o" && fmt != "mlf" && IsGraphPackage(path)) fmt = "graph";
  if (const FileLoaderDef* typed = FindBuiltinFileLoader(fmt)) return typed->load(path, ctx);
  bool builtin = fmt == "so" || fmt == "tar" || fmt == "o";
  if (!builtin) {
    // A host may register a loader for its own format (TVM's runtime.module.loadfile_<fmt>).
    if (PackedFunc host = Registry::Global().GetRegistered("runtime.module.loadfile_" + fmt)) {
      TVMValue args[2];
      int codes[2] = {kTVMStr, kTVMStr};
      args[0].v_str = path.c_str();
      args[1].v_str = fmt.c_str();
      TVMRetValue rv;
      host.CallPacked(TVMArgs(args, codes, 2), &rv);
      AOTRT_REQUIRE(rv.type_code() == kTVMModuleHandle && rv.object(), kInternal, "loader for .", fmt,
                    " returned no module");
      return Module(ObjectPtr<ModuleNode>(static_cast<ModuleNode*>(rv.object())));
    }
    // An unknown extension (model.bin): tell the format by content.
    AOTRT_REQUIRE(::access(path.c_str(), R_OK) == 0, kNotFound, "Loader for `.", fmt, "` files is not registered and ",
                  path, " cannot be read to tell its format: ", std::strerror(errno));
    const char* sniffed = SniffFileFormat(path);
    AOTRT_REQUIRE(sniffed != nullptr, kNotFound, "Loader for `.", fmt, "` files is not registered (loading ", path,
                  ") and the file's content is neither a shared library (ELF) nor an object archive (tar, gzip); "
                  "aotrt loads shared libraries (.so) and object exports (.tar, .o)");
    fmt = sniffed;
  }
  if (fmt == "so") return LoadFromSymbolSource(OpenSharedLibrary(path, path, /*is_source_file=*/true), ctx);
  return LoadFromSymbolSource(OpenObjectFiles(path, fmt, ctx.tools), ctx);
}

std::string InMemoryName(size_t size) { return StrCat("<in-memory library of ", size, " bytes>"); }

Module LoadModuleBytes(const void* data, size_t size, const LoadContext& ctx) {
  AOTRT_REQUIRE(data != nullptr || size == 0, kInvalidArgument, "LoadFromMemory: null data");
  auto file = std::make_unique<MemFile>(data, size);
  const char* format = SniffFormat(data, size);
  if (format && std::strcmp(format, "so") != 0) {
    // A Model Library Format archive (C interface) is read from the in-memory file as from its own.
    if (IsModelLibraryFormat(file->path())) {
      if (const FileLoaderDef* mlf = FindBuiltinFileLoader("mlf")) return mlf->load(file->path(), ctx);
    }
    if (IsGraphPackage(file->path())) return FindBuiltinFileLoader("graph")->load(file->path(), ctx);
    return LoadFromSymbolSource(OpenObjectFiles(file->path(), format, ctx.tools), ctx);  // linked to a new file
  }
  std::shared_ptr<SymbolSource> lib = OpenSharedLibrary(file->path(), ctx.display_name);
  return LoadFromSymbolSource(std::make_shared<MemFileLibrary>(std::move(file), std::move(lib)), ctx);
}

}  // namespace aotrt
