// What a C-interface archive's text says (pure parsing; thread-safe). metadata.json (TVM's
// export_model_library_format, version 7 as TVM v0.14 writes it): the model's name, its inputs and
// outputs with dtype and byte size, and what aotrt refuses to run. The generated sources: the
// argument list of tvmgen_<name>___tvm_main__ as tvmgen_<name>_run passes it
// (codegen/host/src/*_lib0.c), the sizes of the workspace pools, and tensor shapes from
// src/<name>.relay.
#pragma once

#include <cstdint>
#include <map>
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
};

// Parse metadata.json (`text`; its pool sizes are checked, not kept: the sources state them);
// `what` names the file in messages ("model.tar: metadata.json"). Throws kFormatError (not JSON, nested over 64 levels, a field missing or of the wrong type, a dtype or
// size that is not one) and kNotImplemented, saying what to do, for what aotrt does not run: a
// version other than 7, a style other than "full-model", an executor other than "aot", more than
// one model, a target other than c/llvm (BYOC, external code generators), an external dependency
// other than TVM's standalone C runtime, memory on a device other than the CPU.
MlfMetadata ParseMlfMetadata(const std::string& text, const std::string& what);

struct MlfEntryArg {
  enum Kind {
    kInput,            // inputs->NAME
    kOutput,           // outputs->NAME
    kCallerPool,       // workspace_pools->NAME: a pool the caller provides (a user-named pool)
    kStaticWorkspace,  // &NAME, `static uint8_t NAME[bytes]` in the run file: a workspace pool
    kStaticConstants,  // &NAME, `static struct NAME {...} NAME = {...}` in the run file: constants
  };
  Kind kind;
  std::string name;  // the struct member or static variable
  uint64_t bytes = 0;  // pools: their size (constants: 0, unknown)
};

struct MlfEntry {
  std::string run_file;  // the source (archive path) defining tvmgen_<name>_run
  std::vector<MlfEntryArg> args;  // of tvmgen_<name>___tvm_main__, in order
};

// `sources`: archive path -> text of codegen/host/src/*.c; `header`: codegen/host/include/
// tvmgen_<name>.h; `symbol` the mangled name ("tvmgen_default"). Throws kFormatError (no run
// function, an argument or pool size it cannot read) and kNotImplemented for external devices
// (BYOC) and inputs/outputs placed inside a pool (tir.usmp.use_workspace_io), saying what to do.
MlfEntry ParseMlfEntry(const std::map<std::string, std::string>& sources, const std::string& header,
                       const std::string& symbol, const std::string& what);

// Names of the `void*` members of `struct <name> { ... };` in `header`, in order (empty when absent).
std::vector<std::string> StructMembers(const std::string& header, const std::string& name);

struct RelayTensorType {
  std::vector<int64_t> shape;
  std::string dtype;
};

// The types `def @main(...)` of a Relay text states: its parameters' (by name) and, when it has a
// return type, its outputs' (a tuple flattened, as TVM numbers outputs). Untyped or unreadable
// parts are left out; never throws.
struct RelaySignature {
  std::map<std::string, RelayTensorType> params;
  std::vector<RelayTensorType> outputs;  // empty: no return type given
};
RelaySignature ParseRelayMain(const std::string& text);

}  // namespace aotrt
