// The system library: model code linked into the executable registers its symbols at start-up
// through TVMBackendRegisterSystemLibSymbol; runtime.SystemLib(prefix) turns them into modules.
#pragma once

#include <string>

#include "aotrt/module.h"
#include "module/load_context.h"
#include "module/symbol_source.h"

namespace aotrt {

// Record a system-library symbol (TVMBackendRegisterSystemLibSymbol): process-wide, thread-safe;
// a second address for a name replaces the first, with a warning. Throws kInvalidArgument (null name).
void RegisterSystemLibSymbol(const char* name, void* ptr);

// True while aotrt dlopens a library as a module on this thread: system-library registrations
// from that thread are then ignored, because the static constructors of objects linked into that
// library (a system-lib `.tar` loaded as a library) must not overwrite the process's real system
// library.
extern thread_local bool t_ignore_system_lib_registrations;

// The system library's module tree for `prefix`, made once per prefix (the first call's `ctx`
// applies) and shared by every later call. Thread-safe.
Module LoadSystemLib(const std::string& prefix, const LoadContext& ctx);

}  // namespace aotrt
