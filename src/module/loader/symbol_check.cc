// Checking at load that every symbol a model library needs resolves (see symbol_check.h).
#include "module/loader/symbol_check.h"

#include <dlfcn.h>

#include "aotrt/half.h"
#include "base/error_util.h"
#include "module/loader/symbol_hints.h"

namespace aotrt {
namespace {

// Models call the float16 helpers, aotrt never does: this reference pulls backend/half.o out of the
// static library into every application that loads models (its loader runs this check); linked
// with -rdynamic, the application then exports them.
__attribute__((used)) void* const kHalfHelpers[] = {reinterpret_cast<void*>(&__gnu_f2h_ieee),
                                                    reinterpret_cast<void*>(&__gnu_h2f_ieee),
                                                    reinterpret_cast<void*>(&__truncdfhf2)};

// Whether aotrt itself defines `name` (then a failure to resolve it is a visibility problem).
bool DefinedByAotrt(const std::string& name) {
  Dl_info info{};
  if (!::dladdr(reinterpret_cast<void*>(&SymbolProviderHint), &info) || !info.dli_fname) return false;
  void* self = ::dlopen(info.dli_fname, RTLD_LAZY | RTLD_NOLOAD);
  if (!self) return false;
  bool found = ::dlsym(self, name.c_str()) != nullptr;
  ::dlclose(self);
  return found;
}

}  // namespace

// Each symbol is looked up in the scope the dynamic linker will use for it: the global scope (the
// handle of the main program searches the executable, its libraries and every RTLD_GLOBAL load,
// without the bias of dlsym(RTLD_DEFAULT), which also searches the caller's own dependencies), then
// the library's own dependency tree (dlsym on its handle, which does not search the global scope).
void* GlobalScopeHandle() {
  static void* const global = ::dlopen(nullptr, RTLD_LAZY);
  return global;
}

void CheckUndefinedSymbolsResolve(void* handle, const ElfDynamicSymbols& syms, const std::string& what) {
  void* global = GlobalScopeHandle();
  std::string missing;
  size_t count = 0;
  for (std::string_view name : syms.undefined) {
    const char* s = name.data();  // NUL-terminated in place (elf_symbols.h)
    if ((global && ::dlsym(global, s)) || ::dlsym(handle, s)) continue;
    std::string hint = DefinedByAotrt(s)
                           ? "defined by aotrt but not visible in the process's global scope: link the application "
                             "against libaotrt (with -rdynamic when linking the static library) or dlopen "
                             "libaotrt.so with RTLD_GLOBAL"
                           : SymbolProviderHint(s);
    missing += StrCat(count ? "; " : "", s, " (", hint, ")");
    ++count;
  }
  ::dlerror();  // the failed lookups leave messages behind
  if (count == 0) return;
  AOTRT_THROW(kNotFound, what, " needs ", count == 1 ? "a symbol" : StrCat(count, " symbols"),
              " that nothing in the process provides, so it cannot run (its first call would end the process): ",
              missing);
}

}  // namespace aotrt
