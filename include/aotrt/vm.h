// Relay VM exports (relay.vm.compile) through the C++ API: the executable module TVM's
// `Executable::Load(code, lib)` returns. The one-file form (`vm.so`, the blob's root a VMExecutable)
// loads with Module::LoadFromFile; both give a "VMExecutable" module whose functions are TVM's:
// vm_load_executable() makes a "VirtualMachine" module (init, set_input, invoke, get_output, ...).
// Ownership: the executable keeps its kernel library loaded; each VirtualMachine keeps the
// executable alive. Thread-safety: an executable may be shared by threads; one VirtualMachine is for
// one thread at a time (make one per thread).
#pragma once

#include <string>

#include "aotrt/export.h"
#include "aotrt/module.h"
#include "aotrt/options.h"

namespace aotrt {

// The executable of the two-file form: the bytecode (`code.ro`, `exe.save()[0]`) read from
// `bytecode_path`, its kernels in `lib` (the loaded `lib.so`). The whole program is validated and
// every primitive resolved here. Throws kIOError (unreadable file), kFormatError (not VM bytecode,
// a version of no accepted release, corrupt or out-of-range fields: the message names the section,
// function and instruction), kNotFound (a primitive `lib` lacks).
AOTRT_API Module LoadVMExecutable(const std::string& bytecode_path, const Module& lib);
// The same with the kernel library loaded from `lib_path` with `options` (as Module::LoadFromFile).
AOTRT_API Module LoadVMExecutable(const std::string& bytecode_path, const std::string& lib_path,
                                  const LoadOptions& options = LoadOptions());

}  // namespace aotrt
