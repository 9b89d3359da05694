// What the blob fuzz targets share: the module tree of a blob's bytes, read as a library without
// symbols would have it, with no cache directory (nothing fuzzed is written to disk).
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>

#include "module/library_module.h"
#include "module/loader/load.h"

namespace fuzz {

class NoSymbols : public aotrt::SymbolSource {
 public:
  void* Lookup(const std::string&) const override { return nullptr; }
  uint64_t SymbolSize(const std::string&) const override { return 0; }
  const std::string& name() const override { return name_; }

 private:
  std::string name_ = "fuzz";
};

// ProcessModuleBlob over `blob` (header included); throws aotrt::Error.
inline aotrt::ObjectPtr<aotrt::ModuleNode> ProcessBlob(const char* blob, size_t size) {
  auto symbols = std::make_shared<NoSymbols>();
  auto lib = aotrt::MakeObject<aotrt::LibraryModuleNode>(symbols);
  aotrt::LoadContext ctx;
  ctx.display_name = "fuzz";
  return aotrt::ProcessModuleBlob(blob, size, lib, ctx);
}

}  // namespace fuzz
