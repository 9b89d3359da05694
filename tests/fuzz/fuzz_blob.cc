// libFuzzer target: the module blob parser (__tvm_dev_mblob), with every loader it reaches
// (AotExecutorFactory payload, params NDArrays). Input: the blob's bytes, header included.
#include <cstddef>
#include <cstdint>

#include "aotrt/error.h"
#include "module/loader/load.h"
#include "module/library_module.h"

namespace {
class NoSymbols : public aotrt::SymbolSource {
 public:
  void* Lookup(const std::string&) const override { return nullptr; }
  uint64_t SymbolSize(const std::string&) const override { return 0; }
  const std::string& name() const override { return name_; }

 private:
  std::string name_ = "fuzz";
};

aotrt::LoadContext FuzzContext() {
  aotrt::LoadContext ctx;
  ctx.display_name = "fuzz";
  return ctx;  // the cache off (no directory): a fuzzed constant pool is never written to disk
}
}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  auto symbols = std::make_shared<NoSymbols>();
  auto lib = aotrt::MakeObject<aotrt::LibraryModuleNode>(symbols);
  auto legacy = aotrt::MakeObject<aotrt::LibraryModuleNode>(symbols);
  try {
    aotrt::ObjectPtr<aotrt::ModuleNode> root =
        aotrt::ProcessModuleBlob(reinterpret_cast<const char*>(data), size, lib, legacy, FuzzContext());
    (void)root->SaveToBinary();
  } catch (const aotrt::Error&) {
  }
  return 0;
}
