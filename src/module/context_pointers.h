// The variables a model library lets the runtime write (ABI.md 2.1): the `__TVM*` function
// pointers of llvm exports and `__tvm_module_ctx`.
#pragma once

#include "module/symbol_source.h"

namespace aotrt {

// Every such variable `lib` defines must be a writable pointer slot inside the library: a symbol
// placed in read-only data or outside the library would fault when written. Throws kFormatError
// naming the library and the symbol. Checked before anything is written.
void CheckWritableSlots(const SymbolSource& lib);

// Write aotrt's backend functions into the library's `__TVM*` context pointers that exist.
void FillContextPointers(const SymbolSource& lib);

}  // namespace aotrt
