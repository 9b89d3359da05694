// Loading TVM exports that are object files rather than a shared library: a `.o`, or a `.tar` of
// objects and C sources (`export_library("x.tar")`). As TVM's Python `load_module` does, they are
// linked into a shared library with the system C compiler (ToolConfig::c_compiler), which is then
// loaded like any model library; the temporary files are removed once it is loaded.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "module/load_context.h"
#include "module/symbol_source.h"

namespace aotrt {

// `format` is "tar" or "o". Throws kNotFound (no such file, or neither objects nor C sources in the
// archive), kFormatError (a damaged or unsafe archive: archive_reader.h; an object made for another
// processor: CheckElfObjectFile), kIOError (compiling a source as C and as C++, or linking failed:
// the message carries the command and its output), or what OpenSharedLibrary throws for the linked
// library. Temporary files go in a private directory under `tools.temp_dir`.
std::shared_ptr<SymbolSource> OpenObjectFiles(const std::string& path, const std::string& format,
                                              const ToolConfig& tools);

// Runs argv (looked up in PATH, no shell) with stdout and stderr into the file `log`; throws
// kIOError with the command and its output unless it exits 0, naming `why`. When argv[0] does not
// exist and `missing_hint` is not empty, throws kNotFound ending with that hint instead.
void RunTool(const std::vector<std::string>& argv, const std::string& log, const std::string& why,
             const std::string& missing_hint = std::string());

}  // namespace aotrt
