// What a C-interface archive's generated sources say that metadata.json does not: the argument
// list of tvmgen_<name>___tvm_main__ as tvmgen_<name>_run passes it (codegen/host/src/*_lib0.c),
// the sizes of the workspace pools, and tensor shapes from src/<name>.relay. Pure parsing of TVM's
// fixed code templates; thread-safe.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

namespace aotrt {

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
