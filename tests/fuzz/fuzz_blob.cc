// libFuzzer target: the module blob parser (__tvm_dev_mblob), with every loader it reaches
// (AotExecutorFactory payload, params NDArrays). Input: the blob's bytes, header included.
#include <cstddef>
#include <cstdint>

#include "aotrt/error.h"
#include "fuzz_blob_common.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  try {
    (void)fuzz::ProcessBlob(reinterpret_cast<const char*>(data), size)->SaveToBinary();
  } catch (const aotrt::Error&) {
  }
  return 0;
}
