// Relay VM exports (relay.vm.compile) through the C++ API: the executable module TVM's
// `Executable::Load(code, lib)` returns. The one-file form (`vm.so`, the blob's root a VMExecutable),
// tvmc's package and a folder holding code.ro beside lib.so load with Module::LoadFromFile; the
// two-file form with LoadVMExecutable below. All give a "VMExecutable" module whose functions are
// TVM's: vm_load_executable() makes a "VirtualMachine" module (init, set_input, invoke, get_output,
// set_outputs, profile, ...); save, late-bound constants (move_late_bound_consts, load_...).
// aotrt::Model runs a VM export's "main" too (Model::Load, or Model::FromModule of LoadVMExecutable).
// Ownership: the executable keeps its kernel library loaded; each VirtualMachine keeps the
// executable alive. Thread-safety: an executable may be shared by threads; one VirtualMachine is for
// one thread at a time (make one per thread).
#pragma once

#include <string>

#include "aotrt/export.h"
#include "aotrt/module.h"
#include "aotrt/options.h"
#include "aotrt/profiling.h"

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

// Each primitive's time in runs of `func` on `vm` (a VirtualMachine module, initialized, inputs
// set): options.warmup runs, then options.runs (or about options.duration_s), each kernel call timed
// to the end of its device work. A measured OperatorProfile: a line per primitive called (samples:
// its calls); `outside` the rest. The VM's profile(func) is this with 3 warmups and 1 run, as TVM's
// Report. Not while another thread uses `vm`. Throws kInvalidArgument (options, not a VM),
// kNotFound (no function `func`), and what invoke throws.
AOTRT_API OperatorProfile ProfileVM(const Module& vm, const std::string& func,
                                    const OperatorProfileOptions& options = OperatorProfileOptions());

}  // namespace aotrt
