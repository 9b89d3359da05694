#include "module/loader/system_lib.h"

#include <dlfcn.h>
#include <link.h>

#include <cstdint>
#include <map>
#include <mutex>

#include "base/error_util.h"
#include "base/logging.h"
#include "base/mapped_file.h"
#include "module/loader/load.h"
#include "module/loader/shared_library.h"
#include "module/model_contract.h"

namespace aotrt {
namespace {

struct SymbolTable {
  std::mutex mu;
  std::map<std::string, void*> symbols;
  std::map<std::string, Module> modules;  // one module tree per prefix, as TVM keeps it
};

SymbolTable& Table() {
  static SymbolTable* table = new SymbolTable();  // registration runs from static constructors
  return *table;
}

// Address of the function or object `name` defined by the process, for the one symbol TVM's
// system-lib exports define but do not register (`get_c_metadata`, ABI.md 4): first the global
// scope (dlsym(RTLD_DEFAULT): the executable when linked with -rdynamic, its DT_NEEDED libraries
// and libraries loaded RTLD_GLOBAL), then the executable's static symbol table (.symtab of
// /proc/self/exe, unless stripped), relocated by its load address. nullptr when neither has it.
void* FindProcessSymbol(const std::string& name) {
  if (void* p = ::dlsym(RTLD_DEFAULT, name.c_str())) return p;
  try {
    MappedFile exe("/proc/self/exe", "the executable");
    uint64_t value = FindElfStaticSymbol(exe.data(), exe.size(), "the executable", name);
    // The load bias: 0 for a fixed-address executable, the base address of a PIE (the first object
    // of the dynamic linker's list is the main program).
    uintptr_t bias = _r_debug.r_map ? _r_debug.r_map->l_addr : 0;
    return value ? reinterpret_cast<void*>(bias + value) : nullptr;
  } catch (const Error& e) {
    AOTRT_LOG_DEBUG("cannot read the executable's symbol table: ", e.what());
    return nullptr;
  }
}

class SystemLibrary : public SymbolSource {
 public:
  explicit SystemLibrary(std::string prefix) : prefix_(std::move(prefix)), name_("system library") {
    if (!prefix_.empty()) name_ += " '" + prefix_ + "'";
  }
  void* Lookup(const std::string& name) const override {
    {
      SymbolTable& t = Table();
      std::lock_guard<std::mutex> lock(t.mu);
      auto it = t.symbols.find(prefix_ + name);
      if (it == t.symbols.end()) it = t.symbols.find(name);
      if (it != t.symbols.end() && it->second) return it->second;
    }
    // TVM defines the metadata function in the executable but never registers it (ABI.md 4).
    return name == contract::kGetCMetadata ? FindProcessSymbol(name) : nullptr;
  }
  uint64_t SymbolSize(const std::string&) const override { return 0; }  // unknown
  // Registered symbols may live in the executable or in any library linking system-lib objects.
  AddressBounds Segments() const override { return AddressBounds::AnyLoadedObject(); }
  const std::string& name() const override { return name_; }
  std::string source_file() const override { return "/proc/self/exe"; }  // registered code is linked into the process
  std::string MissingSymbolHint(const std::string& name) const override {
    if (name != contract::kGetCMetadata) return std::string();
    return "TVM's system-lib objects define " + name + " without registering it, so aotrt looks for it among "
           "the process's symbols: link the application with -rdynamic (CMake: ENABLE_EXPORTS ON), or do not strip it";
  }

 private:
  std::string prefix_;
  std::string name_;
};

}  // namespace

thread_local bool t_ignore_system_lib_registrations = false;

void RegisterSystemLibSymbol(const char* name, void* ptr) {
  AOTRT_REQUIRE(name != nullptr, kInvalidArgument, "TVMBackendRegisterSystemLibSymbol: null name");
  if (t_ignore_system_lib_registrations) {
    AOTRT_LOG_DEBUG("system library symbol ", name, " of a library loaded as a module: not registered");
    return;
  }
  SymbolTable& t = Table();
  std::lock_guard<std::mutex> lock(t.mu);
  auto it = t.symbols.find(name);
  if (it != t.symbols.end() && it->second != ptr) {
    AOTRT_LOG_WARN("system library symbol ", name, " registered again with another address; using the new one");
  }
  t.symbols[name] = ptr;
}

Module LoadSystemLib(const std::string& prefix, const LoadContext& ctx) {
  SymbolTable& t = Table();
  {
    std::lock_guard<std::mutex> lock(t.mu);
    auto it = t.modules.find(prefix);
    if (it != t.modules.end()) return it->second;
  }
  Module m = LoadFromSymbolSource(std::make_shared<SystemLibrary>(prefix), ctx);
  std::lock_guard<std::mutex> lock(t.mu);
  return t.modules.emplace(prefix, m).first->second;
}

}  // namespace aotrt
