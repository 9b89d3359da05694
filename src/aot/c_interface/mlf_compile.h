// Compiling a C-interface archive's generated sources into a shared library with the system C
// compiler, kept in a compile cache keyed by content, so that a second load compiles nothing.
//
// The library holds the archive's codegen/host/src files, codegen/host/lib objects, and one
// generated function, aotrt_c_interface_run(inputs, outputs, pools), which calls
// tvmgen_<name>___tvm_main__ as the archive's own tvmgen_<name>_run does, except that every
// workspace pool comes from the caller (the executor's own) instead of the archive's static ones;
// constant pools stay the library's (shared, read only). It #includes the file defining the run
// function (its statics are reachable only from there) instead of compiling it separately.
//
// Flags: -O2 -fPIC -shared -ffp-contract=off (no fused multiply-add: results as TVM's own builds,
// bit for bit), TVM's runtime headers as aotrt ships them. The cache file is
// <cache_dir>/mlf-<xxh3-128 of compiler, flags, headers, sources>.so; it is used only when it is a
// regular file owned by this user and writable by no one else (otherwise rebuilt). Builds write a
// private folder in the cache directory and rename the result into place: concurrent loads of one
// archive are safe. The directory must be trusted: whoever can write it can change the code run.
// An unusable cache directory (uncreatable, unwritable) falls back to a temporary build.
#pragma once

#include <map>
#include <memory>
#include <string>

#include "aot/c_interface/mlf_sources.h"
#include "module/symbol_source.h"

namespace aotrt {

struct MlfCompileOptions {
  std::string compiler = "cc";  // the C compiler, looked up in PATH unless it has a '/'
  std::string cache_dir;        // "" -> no cache: compiled into a temporary folder at every load
  std::string temp_dir = "/tmp";  // where a build without cache happens
  std::string library;  // mlf_loader: a library the caller compiled, used instead of compiling
};

struct MlfCompiled {
  std::shared_ptr<SymbolSource> library;
  std::string origin;  // "compile cache" (hit), "compiled into the compile cache", "compiled (no cache)"
  std::string path;    // the library file ("" once a temporary build is removed)
};

// `files`: archive path -> bytes of every codegen/host/{src,include,lib} member. `what` names the
// archive. Throws kNotFound when the compiler does not exist (saying how to get one), kIOError with the compiler's output when compiling fails, and
// what OpenSharedLibrary throws.
MlfCompiled CompileMlf(const std::map<std::string, std::string>& files, const MlfEntry& entry, const std::string& symbol,
                       const MlfCompileOptions& options, const std::string& what);

// The entry function aotrt_c_interface_run defines: pools are the entry's workspace pools
// (static and caller ones) in the entry's order.
constexpr const char* kMlfRunSymbol = "aotrt_c_interface_run";

}  // namespace aotrt
