// A Relay VM executable (TVM's `code.ro`, `exe.save()[0]`): the bytecode of relay.vm.compile, read
// and validated whole at load. Immutable after parsing: shared by every VM over it, on any thread.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "aotrt/ndarray.h"

namespace aotrt {
namespace vm {

// TVM's opcodes (include/tvm/runtime/vm/bytecode.h), numbered as serialized.
enum class Opcode : uint8_t {
  kMove = 0, kRet, kInvoke, kInvokeClosure, kInvokePacked, kAllocTensor, kAllocTensorReg, kAllocADT,
  kAllocClosure, kGetField, kIf, kLoadConst, kGoto, kGetTag, kLoadConsti, kFatal, kAllocStorage, kShapeOf,
  kReshapeTensor, kDeviceCopy, kKillRegister, kNumOpcodes
};
const char* OpcodeName(Opcode op);

// One instruction: its fields in the v0.14 layout (older layouts are rewritten into it at load),
// `first` indexing VMFunction::fields. Field meanings per opcode: executable.cc, Checker.
struct Instruction {
  Opcode op;
  uint32_t num_fields;
  uint32_t first;
};

struct VMFunction {
  std::string name;
  int64_t num_registers = 0;
  std::vector<std::string> params;
  std::vector<int64_t> param_devices;
  std::vector<Instruction> code;
  std::vector<int64_t> fields;
  const int64_t* Fields(const Instruction& i) const { return fields.data() + i.first; }
};

struct VirtualDevice {
  DLDevice device;
  std::string memory_scope;
};

struct Executable {
  std::vector<VirtualDevice> devices;
  std::vector<NDArray> constants;           // undefined where late-bound
  std::vector<std::string> late_bound;      // per constant: its name, "" when inline
  std::vector<int64_t> constant_devices;
  std::vector<std::string> primitives;
  std::vector<VMFunction> functions;        // in global order
  std::string code;                         // the bytes read (what `save` returns)
  size_t pool_begin = 0, pool_end = 0;      // where the constant pool lies in `code`

  // The index of the global `name`, or -1.
  int64_t FunctionIndex(const std::string& name) const;
};

// Reads and validates a whole executable (`what` names it in messages): magic, a version of a
// release from v0.9.0 to v0.19.0 (or its dev build), every section, every instruction's fields,
// registers, constant, function, primitive, device and jump target. Throws kFormatError naming the
// section, function and instruction at fault and what was expected.
Executable ParseExecutable(std::string code, const std::string& what);

// Writes the constant pool into `code` as it is now (late-bound names or arrays), as TVM's save does.
void RewriteConstantPool(Executable& exe);

// The executable as text (TVM's get_bytecode, one line per instruction).
std::string BytecodeText(const Executable& exe);

}  // namespace vm
}  // namespace aotrt
