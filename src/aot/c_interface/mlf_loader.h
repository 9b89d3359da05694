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
#pragma once

#include <string>

#include "aot/c_interface/mlf_compile.h"
#include "aotrt/module.h"

namespace aotrt {

// Loads `path` (IsModelLibraryFormat, or a metadata.json inside an unpacked archive); with
// options.library, that library (compiled by the caller) instead of compiling. Every executor of
// the model gets at least `executor_floor` (the load's LoadOptions::executor). Throws kNotFound (no such path, no metadata.json or header
// in it, no C compiler), kFormatError (a damaged or hostile archive: archive_reader.h; metadata,
// sources or relay that contradict each other), kNotImplemented (what mlf_metadata.h and
// mlf_sources.h refuse), kIOError (compiling failed: the compiler's output), kOutOfMemory.
Module LoadModelLibraryFormat(const std::string& path, const MlfCompileOptions& options,
                              const ExecutorOptions& executor_floor);

}  // namespace aotrt
