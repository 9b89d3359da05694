#include "module/loader/system_lib.h"

#include <map>
#include <mutex>

#include "base/error_util.h"
#include "base/logging.h"
#include "module/library_module.h"
#include "module/loader/load.h"
#include "module/loader/process_symbols.h"
#include "module/model_contract.h"
#include "module/symbol_source.h"

namespace aotrt {
namespace {

struct SymbolTable {
  std::mutex mu;
  std::map<std::string, void*> symbols;
  std::map<std::string, Module> modules;  // one module tree per prefix, as TVM keeps it
};

thread_local bool ignore_registrations = false;

SymbolTable& Table() {
  static SymbolTable* table = new SymbolTable();  // registration runs from static constructors
  return *table;
}

class SystemLibrary : public SymbolSource {
 public:
  explicit SystemLibrary(std::string prefix) : prefix_(std::move(prefix)), name_("system library") {
    if (!prefix_.empty()) name_ += " '" + prefix_ + "'";
  }
  void* Lookup(const std::string& name) const override {
    if (void* p = LookupRegistered(name)) return p;
    // TVM defines the metadata function in the executable but never registers it (ABI.md 4).
    return name == contract::kGetCMetadata ? FindProcessSymbol(name) : nullptr;
  }
  uint64_t SymbolSize(const std::string&) const override { return 0; }
  // Registered symbols may live in the executable or in any library linking system-lib objects.
  AddressBounds Segments() const override { return AddressBounds::AnyLoadedObject(); }
  const std::string& name() const override { return name_; }
  std::string source_file() const override { return "/proc/self/exe"; }  // registered code is linked into the process
  std::string MissingSymbolHint(const std::string& name) const override {
    return name == contract::kGetCMetadata ? ProcessSymbolHint(name) : std::string();
  }

 private:
  void* LookupRegistered(const std::string& name) const {
    SymbolTable& t = Table();
    std::lock_guard<std::mutex> lock(t.mu);
    auto it = t.symbols.find(prefix_ + name);
    if (it == t.symbols.end()) it = t.symbols.find(name);
    return it == t.symbols.end() ? nullptr : it->second;
  }

  std::string prefix_;
  std::string name_;
};

}  // namespace

IgnoreSystemLibRegistrations::IgnoreSystemLibRegistrations() : previous_(ignore_registrations) {
  ignore_registrations = true;
}

IgnoreSystemLibRegistrations::~IgnoreSystemLibRegistrations() { ignore_registrations = previous_; }

void RegisterSystemLibSymbol(const char* name, void* ptr) {
  AOTRT_REQUIRE(name != nullptr, kInvalidArgument, "TVMBackendRegisterSystemLibSymbol: null name");
  if (ignore_registrations) {
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

std::shared_ptr<SymbolSource> SystemLibrarySymbols(const std::string& prefix) {
  return std::make_shared<SystemLibrary>(prefix);
}

Module LoadSystemLib(const std::string& prefix, const LoadContext& ctx) {
  SymbolTable& t = Table();
  {
    std::lock_guard<std::mutex> lock(t.mu);
    auto it = t.modules.find(prefix);
    if (it != t.modules.end()) return it->second;
  }
  Module m = LoadFromSymbolSource(SystemLibrarySymbols(prefix), ctx);
  std::lock_guard<std::mutex> lock(t.mu);
  return t.modules.emplace(prefix, m).first->second;
}

}  // namespace aotrt
