// The names a TVM AOT model library and the runtime agree on (ABI.md sections 2.1, 4, 5 and 7), in
// one place: every reserved symbol, and the metadata version this runtime accepts.
#pragma once

#include <cstdint>

namespace aotrt {
namespace contract {

// The packed import tree (ABI.md 5): `const unsigned char[]`, alignment 1.
inline constexpr char kModuleBlob[] = "__tvm_dev_mblob";
// `void*` the runtime fills with the library module, used by TVMBackendGetFuncFromEnv.
inline constexpr char kModuleContext[] = "__tvm_module_ctx";
// A C string naming the default entry; absent in AOT exports.
inline constexpr char kMainAlias[] = "__tvm_main__";
// TVMBackendPackedCFunc returning the `TVMMetadata*`. Not prefixed; in system-lib exports defined
// but never registered (ABI.md 4, system-lib correction).
inline constexpr char kGetCMetadata[] = "get_c_metadata";
// The AOT runner is `<metadata mod_name><kEntrySuffix>`, e.g. tvmgen_default___tvm_main__.
inline constexpr char kEntrySuffix[] = "___tvm_main__";
// Function-pointer variables of `llvm` exports, filled at load (ABI.md 2.1), all begin so.
inline constexpr char kContextPointerPrefix[] = "__TVM";
// `TVMMetadata::version` accepted (TVM_METADATA_VERSION of TVM v0.14).
inline constexpr int64_t kMetadataVersion = 1;

}  // namespace contract
}  // namespace aotrt
