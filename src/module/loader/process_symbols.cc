#include "module/loader/process_symbols.h"

#include <dlfcn.h>
#include <link.h>

#include <cstdint>

#include "aotrt/error.h"
#include "base/error_util.h"
#include "base/logging.h"
#include "base/mapped_file.h"
#include "module/loader/shared_library.h"

namespace aotrt {
namespace {

// The executable's load bias: 0 for a fixed-address executable, the base address of a PIE.
// dl_iterate_phdr visits the main program first.
uintptr_t ExecutableLoadBias() {
  uintptr_t bias = 0;
  ::dl_iterate_phdr(
      [](dl_phdr_info* info, size_t, void* out) {
        *static_cast<uintptr_t*>(out) = info->dlpi_addr;
        return 1;  // stop after the first object
      },
      &bias);
  return bias;
}

void* FindInExecutableSymbolTable(const std::string& name) {
  try {
    MappedFile exe("/proc/self/exe", "the executable");
    uint64_t value = FindElfStaticSymbol(exe.data(), exe.size(), "the executable", name);
    return value ? reinterpret_cast<void*>(ExecutableLoadBias() + value) : nullptr;
  } catch (const Error& e) {
    AOTRT_LOG_DEBUG("cannot read the executable's symbol table: ", e.what());
    return nullptr;
  }
}

}  // namespace

void* FindProcessSymbol(const std::string& name) {
  if (void* p = ::dlsym(RTLD_DEFAULT, name.c_str())) return p;
  return FindInExecutableSymbolTable(name);
}

std::string ProcessSymbolHint(const std::string& name) {
  return "TVM's system-lib objects define " + name +
         " without registering it, so aotrt looks for it among the process's symbols: link the application "
         "with -rdynamic (CMake: ENABLE_EXPORTS ON), or do not strip it";
}

}  // namespace aotrt
