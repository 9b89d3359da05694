#include "module/context_pointers.h"

#include <tvm/runtime/c_backend_api.h>

#include "base/error_util.h"
#include "module/model_contract.h"

namespace aotrt {
namespace {

struct ContextPointer {
  const char* name;
  void* value;
};

// The `__TVM*` function pointers of llvm exports (ABI.md 2.1) and what aotrt writes into them.
const ContextPointer kContextPointers[] = {
    {"__TVMFuncCall", reinterpret_cast<void*>(&TVMFuncCall)},
    {"__TVMAPISetLastError", reinterpret_cast<void*>(&TVMAPISetLastError)},
    {"__TVMBackendGetFuncFromEnv", reinterpret_cast<void*>(&TVMBackendGetFuncFromEnv)},
    {"__TVMBackendParallelLaunch", reinterpret_cast<void*>(&TVMBackendParallelLaunch)},
    {"__TVMBackendParallelBarrier", reinterpret_cast<void*>(&TVMBackendParallelBarrier)},
    {"__TVMBackendAllocWorkspace", reinterpret_cast<void*>(&TVMBackendAllocWorkspace)},
    {"__TVMBackendFreeWorkspace", reinterpret_cast<void*>(&TVMBackendFreeWorkspace)},
};

}  // namespace

void CheckWritableSlots(const SymbolSource& lib) {
  AddressBounds bounds = lib.Segments();
  auto check = [&](const char* name) {
    if (void* slot = lib.Lookup(name)) {
      try {
        bounds.RequireWritable(slot, sizeof(void*), name);
      } catch (const Error& e) {
        AOTRT_THROW(kFormatError, lib.name(), ": ", e.what());
      }
    }
  };
  for (const ContextPointer& p : kContextPointers) check(p.name);
  check(contract::kModuleContext);
}

void FillContextPointers(const SymbolSource& lib) {
  for (const ContextPointer& p : kContextPointers) {
    if (auto* slot = static_cast<void**>(lib.Lookup(p.name))) *slot = p.value;
  }
}

}  // namespace aotrt
