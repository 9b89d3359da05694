// Relay VM exports in `aotrt inspect` and `aotrt run`: the executable's functions, parameters,
// constants and primitives; one run of `main` on .npy/.npz inputs, its outputs (a tuple flattened
// depth first) summarised, saved and compared.
#pragma once

#include <string>

#include <aotrt/model.h>
#include <aotrt/module.h>
#include <aotrt/profiling.h>

#include "compare.h"
#include "model_io.h"

namespace aotrt_cli {

// The Relay VM executable `src` names (code.ro with lib.so beside it; vm.so; tvmc's VM package; a
// folder of code.ro and lib.so), or an undefined module with `*model` loaded as LoadModel does.
// Throws aotrt::Error, UsageError.
aotrt::Module LoadModelOrVM(const ModelSource& src, aotrt::Model* model);
// Prints what `aotrt inspect` shows of a VM executable (as JSON with `json`).
void PrintVMInspect(const aotrt::Module& exe, const std::string& path, bool json);
// Runs `main` once on the inputs `in` names (every input given: a VM's shapes may be dynamic),
// writes the outputs to `output` (DIR/output<i>.npy or FILE.npz of arr_<i>) when set, compares them
// with `expect` (arr_<i>) when set. Returns the exit status (3: the outputs differ).
// Whether `src` names a VM export `aotrt bench` times without loading it first: code.ro, or a folder
// holding code.ro.
bool IsVMBytecodeSource(const ModelSource& src);
// A VM over `exe` on every device it names (the CPU always), `main`'s inputs set from `in`; the
// device types in `device_types` when given.
aotrt::Module MakeVM(const aotrt::Module& exe, const InputOptions& in, std::vector<int>* device_types = nullptr);
// Waits for the work queued on each device of `device_types` but the CPU. Throws UsageError.
void SynchronizeVM(const std::vector<int>& device_types);
// Times `main` (invoke_stateful) on the inputs `in` names; prints the statistics (JSON with `json`).
// Returns the exit status (130 when interrupted).
int BenchVM(const aotrt::Module& exe, const InputOptions& in, const aotrt::BenchmarkOptions& options, bool json);
int RunVM(const aotrt::Module& exe, const InputOptions& in, const std::string& output, const std::string& expect,
          const Tolerance& tol);

}  // namespace aotrt_cli
