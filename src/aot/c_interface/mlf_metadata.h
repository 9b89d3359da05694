// The metadata.json of a Model Library Format archive (TVM's export_model_library_format,
// version 7 as TVM v0.14 writes it): the model's name, its inputs and outputs with dtype and byte
// size, and what aotrt refuses to run. Pure parsing; thread-safe.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include <dlpack/dlpack.h>

namespace aotrt {

struct MlfTensor {
  std::string name;  // as in metadata.json (TVM's name_hint, unsanitized)
  DLDataType dtype;
  uint64_t bytes;
};

struct MlfMetadata {
  std::string model_name;  // TVM's mod_name, e.g. "default"
  std::vector<MlfTensor> inputs;   // in the file's order (sorted by name: the call order is the header's)
  std::vector<MlfTensor> outputs;
  uint64_t workspace_bytes = 0;
  uint64_t constant_bytes = 0;
};

// Parse `text`; `what` names the file in messages ("model.tar: metadata.json"). Throws
// kFormatError (not JSON, nested over 64 levels, a field missing or of the wrong type, a dtype or
// size that is not one) and kNotImplemented, saying what to do, for what aotrt does not run: a
// version other than 7, a style other than "full-model", an executor other than "aot", more than
// one model, a target other than c/llvm (BYOC, external code generators), an external dependency
// other than TVM's standalone C runtime, memory on a device other than the CPU.
MlfMetadata ParseMlfMetadata(const std::string& text, const std::string& what);

}  // namespace aotrt
