// Finding a symbol among the running process's own, for the one symbol TVM's system-lib exports
// define but do not register with TVMBackendRegisterSystemLibSymbol (`get_c_metadata`, ABI.md 4).
#pragma once

#include <string>

namespace aotrt {

// Address of the function or object `name` defined by the process: first the global scope
// (dlsym(RTLD_DEFAULT): the executable when linked with -rdynamic, its DT_NEEDED libraries and
// libraries loaded RTLD_GLOBAL), then the executable's static symbol table (.symtab of
// /proc/self/exe, present unless the executable was stripped), relocated by its load address.
// Returns nullptr when neither has it; never throws (an unreadable executable counts as stripped).
// Thread-safe.
void* FindProcessSymbol(const std::string& name);

// What to do so that FindProcessSymbol finds `name`: for error messages.
std::string ProcessSymbolHint(const std::string& name);

}  // namespace aotrt
