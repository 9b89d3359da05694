// Reading TVM's VM bytecode (src/runtime/vm/executable.cc, serialize_utils.h of v0.9-v0.19): dmlc
// encodings throughout, every count bounded by the bytes left, every index checked at load.
#include "vm/executable.h"

#include <algorithm>
#include <cstdlib>
#include <utility>

#include "base/byte_reader.h"
#include "base/device.h"
#include "ndarray/serialize.h"

namespace aotrt {
namespace vm {
namespace {

constexpr uint64_t kMagic = 0xD225DE2F4214151DULL;
constexpr const char* kAcceptedVersions = "the releases 0.9.0 to 0.19.0 and their dev builds (0.N.devM)";

const char* const kOpcodeNames[] = {
    "Move", "Ret", "Invoke", "InvokeClosure", "InvokePacked", "AllocTensor", "AllocTensorReg",
    "AllocADT", "AllocClosure", "GetField", "If", "LoadConst", "Goto", "GetTag", "LoadConsti", "Fatal",
    "AllocStorage", "ShapeOf", "ReshapeTensor", "DeviceCopy", "KillRegister"};

// The minor version of an accepted version string ("0.14.0", "0.15.dev12"), or -1.
int AcceptedMinor(const std::string& v) {
  if (v.compare(0, 2, "0.") != 0) return -1;
  size_t dot = v.find('.', 2);
  if (dot == std::string::npos || dot == 2 || dot > 4) return -1;
  if (v.find_first_not_of("0123456789", 2) != dot) return -1;
  int minor = std::atoi(v.substr(2, dot - 2).c_str());
  std::string rest = v.substr(dot + 1);
  bool dev = rest.compare(0, 3, "dev") == 0 && rest.size() > 3 &&
             rest.find_first_not_of("0123456789", 3) == std::string::npos;
  if (!(rest == "0" || dev) || minor < 9 || minor > 19 || (minor == 9 && dev)) return -1;
  return minor;
}

std::vector<int64_t> I64Vector(BoundedReader& r, const char* field) {
  std::vector<uint64_t> v = r.ReadU64Vector(field);
  return std::vector<int64_t>(v.begin(), v.end());
}

void ReadDevices(BoundedReader& r, Executable& exe, bool v14) {
  uint64_t n = r.ReadCount("virtual devices", 8);
  for (uint64_t i = 0; i < n; ++i) {
    int32_t type = r.Read<int32_t>("virtual device type");
    int32_t id = r.Read<int32_t>("virtual device id");
    // DLPack's device types from 1 (kDLCPU) to 15 (kDLWebGPU); anything else is corrupt or a device
    // (Hexagon, 16) aotrt has no driver for.
    if (type < kDLCPU || type > 15) {
      r.Fail(StrCat("virtual device ", i, " has device type ", type, ": not a device type aotrt knows (1 to 15)"));
    }
    VirtualDevice d{MakeDevice(type, id), std::string()};
    if (v14) d.memory_scope = r.ReadString("virtual device memory scope");
    exe.devices.push_back(std::move(d));
  }
  int32_t host = r.Read<int32_t>("host device index");  // checked; aotrt's VM does not use it
  if (host < 0 || static_cast<uint64_t>(host) >= n) {
    r.Fail(StrCat("host device index ", host, " is not one of the ", n, " virtual devices"));
  }
}

void ReadConstants(BoundedReader& r, Executable& exe) {
  exe.pool_begin = r.offset();
  uint64_t n = r.ReadCount("constant pool", 4);
  for (uint64_t i = 0; i < n; ++i) {
    uint32_t tag = r.Read<uint32_t>("constant tag");
    if (tag > 1) r.Fail(StrCat("constant ", i, " has tag ", tag, ", expected 0 (inline) or 1 (late-bound)"));
    exe.constants.push_back(tag ? NDArray() : ReadNDArray(r));
    exe.late_bound.push_back(tag ? r.ReadString("late-bound constant name") : std::string());
  }
  exe.pool_end = r.offset();
  exe.constant_devices = I64Vector(r, "constant devices");
  if (exe.constant_devices.size() != n) {
    r.Fail(StrCat(exe.constant_devices.size(), " constant devices for ", n, " constants"));
  }
  for (int64_t d : exe.constant_devices) {
    if (d < 0 || static_cast<size_t>(d) >= exe.devices.size()) r.Fail(StrCat("constant device ", d, " out of range"));
  }
}

// Rewrites the fields of an older layout (v0.9-v0.13) into v0.14's: LoadConst gains its
// constant's device, AllocStorage an empty shape.
void Upgrade(Opcode op, std::vector<int64_t>& f, const Executable& exe) {
  if (op == Opcode::kLoadConst && f.size() == 2) {
    int64_t dev = f[0] >= 0 && static_cast<size_t>(f[0]) < exe.constant_devices.size() ? exe.constant_devices[f[0]] : 0;
    f.insert(f.begin() + 1, dev);
  } else if (op == Opcode::kAllocStorage && f.size() == 7) {
    f.insert(f.begin() + 6, 0);
  }
}

uint64_t Hash(int64_t opcode, const std::vector<int64_t>& fields) {
  uint64_t key = static_cast<uint64_t>(opcode);
  for (int64_t v : fields) key ^= static_cast<uint64_t>(v) + 0x9e3779b9 + (key << 6) + (key >> 2);
  return key;
}

void ReadFunction(BoundedReader& r, Executable& exe, bool v14, std::vector<VMFunction>& out) {
  std::vector<std::string> info = r.ReadStringVector("function header");
  if (info.size() != 3) r.Fail(StrCat("function header has ", info.size(), " strings, expected 3"));
  VMFunction fn;
  fn.name = info[0];
  char* end = nullptr;
  fn.num_registers = std::strtoll(info[1].c_str(), &end, 10);
  uint64_t num_instr = std::strtoull(info[2].c_str(), nullptr, 10);
  if (info[1].empty() || *end || fn.num_registers < 0 || fn.num_registers > (1 << 24) || num_instr > r.remaining() / 24) {
    r.Fail(StrCat("function '", fn.name, "': bad register count '", info[1], "' or instruction count '", info[2], "'"));
  }
  fn.params = r.ReadStringVector("function parameters");
  fn.param_devices = I64Vector(r, "parameter devices");
  if (fn.param_devices.size() != fn.params.size()) r.Fail(StrCat("function '", fn.name, "': parameter devices do not match parameters"));
  for (uint64_t pc = 0; pc < num_instr; ++pc) {
    std::vector<int64_t> f = I64Vector(r, "instruction");
    if (f.size() < 2) r.Fail(StrCat("function '", fn.name, "' instruction ", pc, ": ", f.size(), " words, expected at least 2"));
    uint64_t hash = static_cast<uint64_t>(f[0]);
    int64_t opcode = f[1];
    f.erase(f.begin(), f.begin() + 2);
    if (Hash(opcode, f) != hash) r.Fail(StrCat("function '", fn.name, "' instruction ", pc, ": hash mismatch (corrupt bytecode)"));
    if (opcode < 0 || opcode >= static_cast<int64_t>(Opcode::kNumOpcodes)) {
      r.Fail(StrCat("function '", fn.name, "' instruction ", pc, ": unknown opcode ", opcode, " (0 to 20 exist)"));
    }
    Opcode op = static_cast<Opcode>(opcode);
    if (!v14) Upgrade(op, f, exe);
    fn.code.push_back(Instruction{op, static_cast<uint32_t>(f.size()), static_cast<uint32_t>(fn.fields.size())});
    fn.fields.insert(fn.fields.end(), f.begin(), f.end());
  }
  out.push_back(std::move(fn));
}

// Checks the fields of instruction `pc` of `fn` (of the executable `what`) against what its opcode
// needs and the executable holds.
class Checker {
 public:
  Checker(const Executable& exe, const std::string& what, const VMFunction& fn, size_t pc)
      : exe_(exe), what_(what), fn_(fn), pc_(pc), n_(fn.code[pc].num_fields), f_(fn.Fields(fn.code[pc])) {}

  void Check() {
    const int64_t* f = f_;
    switch (fn_.code[pc_].op) {
      case Opcode::kMove: Count(2), Reg(0), Reg(1); break;
      case Opcode::kRet: Count(1), Reg(0); break;
      case Opcode::kFatal: break;
      case Opcode::kInvokePacked:
        List(1, 3), Index(0, exe_.primitives.size(), "primitive"), Regs(3, f[1]);
        if (f[2] < 0 || f[2] > f[1]) Fail(StrCat("output count ", f[2], " exceeds arity ", f[1]));
        break;
      case Opcode::kAllocTensor: List(5, 7), Reg(0), Reg(1), Reg(6), Dtype(2), Shape(7, f[5]); break;
      case Opcode::kAllocTensorReg: Count(7), Reg(0), Reg(1), Reg(2), Dtype(3), Reg(6); break;
      case Opcode::kAllocADT: List(1, 3), Reg(2), Regs(3, f[1]); break;
      case Opcode::kAllocClosure:
      case Opcode::kInvoke: List(1, 3), Index(0, exe_.functions.size(), "function"), Reg(2), Regs(3, f[1]); break;
      case Opcode::kGetField: Count(3), Reg(0), Reg(2); if (f[1] < 0) Fail("negative field index"); break;
      case Opcode::kIf: Count(4), Reg(0), Reg(1), Jump(f[2]), Jump(f[3]); break;
      case Opcode::kInvokeClosure: List(1, 3), Reg(0), Reg(2), Regs(3, f[1]); break;
      case Opcode::kLoadConst:
        Count(3), Index(0, exe_.constants.size(), "constant"), Index(1, exe_.devices.size(), "device"), Reg(2);
        break;
      case Opcode::kLoadConsti: Count(2), Reg(1); break;
      case Opcode::kGetTag: Count(2), Reg(0), Reg(1); break;
      case Opcode::kGoto: Count(1), Jump(f[0]); break;
      case Opcode::kAllocStorage:
        // With a shape (v0.14+), the size field is unused (TVM leaves it uninitialised).
        List(6, 8), Index(5, exe_.devices.size(), "device"), Reg(7), Dtype(2), Shape(8, f[6]);
        if (f[6] == 0) Reg(0);
        if (f[1] <= 0 || (f[1] & (f[1] - 1)) || f[1] > 4096) Fail(StrCat("alignment ", f[1], " is not a power of two up to 4096"));
        break;
      case Opcode::kShapeOf: Count(2), Reg(0), Reg(1); break;
      case Opcode::kReshapeTensor: Count(3), Reg(0), Reg(1), Reg(2); break;
      case Opcode::kDeviceCopy:
        Count(4), Reg(0), Index(1, exe_.devices.size(), "device"), Index(2, exe_.devices.size(), "device"), Reg(3);
        break;
      case Opcode::kKillRegister: Count(1), Reg(0); break;
      default: Fail("unknown opcode");
    }
  }

 private:
  [[noreturn]] void Fail(const std::string& m) const {
    AOTRT_THROW(kFormatError, what_, ": function '", fn_.name, "' instruction ", pc_, " (", OpcodeName(fn_.code[pc_].op),
                "): ", m);
  }
  void Count(uint32_t n) const {
    if (n_ != n) Fail(StrCat(n_, " fields, expected ", n));
  }
  // A list whose length is field `count_at`, starting at field `start`.
  void List(uint32_t count_at, uint32_t start) const {
    if (n_ < start || f_[count_at] < 0 || static_cast<uint64_t>(f_[count_at]) != n_ - start) {
      Fail(StrCat(n_, " fields, expected ", start, " plus the ", n_ > count_at ? f_[count_at] : -1, " its count field says"));
    }
  }
  void Reg(uint32_t i) const {
    if (f_[i] < 0 || f_[i] >= fn_.num_registers) {
      Fail(StrCat("register ", f_[i], " out of range: the function has ", fn_.num_registers, " registers"));
    }
  }
  void Regs(uint32_t start, int64_t n) const {
    for (int64_t i = 0; i < n; ++i) Reg(start + static_cast<uint32_t>(i));
  }
  void Index(uint32_t i, size_t size, const char* what) const {
    if (f_[i] < 0 || static_cast<uint64_t>(f_[i]) >= size) Fail(StrCat(what, " index ", f_[i], " out of range: ", size, " exist"));
  }
  void Jump(int64_t offset) const {
    int64_t t = static_cast<int64_t>(pc_) + offset;
    if (offset == 0 || t < 0 || t >= static_cast<int64_t>(fn_.code.size())) Fail(StrCat("jump by ", offset, " leaves the function"));
  }
  void Dtype(uint32_t i) const {
    if (f_[i] < 0 || f_[i] > 255 || f_[i + 1] <= 0 || f_[i + 1] > 255 || f_[i + 2] != 1) {
      Fail(StrCat("bad dtype (code ", f_[i], ", bits ", f_[i + 1], ", lanes ", f_[i + 2], ")"));
    }
  }
  void Shape(uint32_t start, int64_t n) const {
    for (int64_t i = 0; i < n; ++i) {
      if (f_[start + i] < 0) Fail(StrCat("negative dimension ", f_[start + i]));
    }
  }
  const Executable& exe_;
  const std::string& what_;
  const VMFunction& fn_;
  const size_t pc_;
  const uint32_t n_;
  const int64_t* const f_;
};

void Validate(const Executable& exe, const std::string& what) {
  for (const VMFunction& fn : exe.functions) {
    if (fn.code.empty()) AOTRT_THROW(kFormatError, what, ": function '", fn.name, "' has no instructions");
    AOTRT_REQUIRE(static_cast<int64_t>(fn.params.size()) <= fn.num_registers, kFormatError, what, ": function '",
                  fn.name, "' has more parameters than registers");
    for (int64_t d : fn.param_devices) {
      AOTRT_REQUIRE(d >= 0 && static_cast<size_t>(d) < exe.devices.size(), kFormatError, what, ": function '",
                    fn.name, "': parameter device ", d, " out of range");
    }
    for (size_t pc = 0; pc < fn.code.size(); ++pc) Checker(exe, what, fn, pc).Check();
    Opcode last = fn.code.back().op;
    AOTRT_REQUIRE(last == Opcode::kRet || last == Opcode::kGoto || last == Opcode::kFatal || last == Opcode::kIf,
                  kFormatError, what, ": function '", fn.name, "' runs off its end (last instruction ", OpcodeName(last), ")");
  }
}

}  // namespace

const char* OpcodeName(Opcode op) {
  return op < Opcode::kNumOpcodes ? kOpcodeNames[static_cast<int>(op)] : "unknown";
}

int64_t Executable::FunctionIndex(const std::string& name) const {
  auto it = std::find_if(functions.begin(), functions.end(), [&](const VMFunction& f) { return f.name == name; });
  return it == functions.end() ? -1 : it - functions.begin();
}

Executable ParseExecutable(std::string code, const std::string& what) {
  Executable exe;
  {
    SpanStream stream(code.data(), code.size());
    BoundedReader r(&stream, code.size(), what);
    uint64_t magic = r.Read<uint64_t>("magic");
    if (magic != kMagic) {
      r.Fail(StrCat("not a TVM VM executable: magic 0x", Hex{magic, 16}, ", expected 0x", Hex{kMagic, 16}));
    }
    std::string version = r.ReadString("version");
    int minor = AcceptedMinor(version);
    if (minor < 0) r.Fail(StrCat("bytecode of TVM version '", version, "': aotrt reads ", kAcceptedVersions));
    bool v14 = minor >= 14;
    ReadDevices(r, exe, v14);
    std::vector<std::string> globals = r.ReadStringVector("globals");
    ReadConstants(r, exe);
    exe.primitives = r.ReadStringVector("primitive names");
    uint64_t attrs = r.ReadCount("primitive attributes", 16);  // read past: nothing aotrt uses
    for (uint64_t i = 0; i < attrs; ++i) {
      r.Read<uint64_t>("primitive attribute key");
      uint64_t m = r.ReadCount("primitive attribute map", 16);
      for (uint64_t j = 0; j < m; ++j) r.ReadString("attribute name"), r.ReadString("attribute value");
    }
    uint64_t n = r.ReadCount("functions", 24);
    if (n != globals.size()) r.Fail(StrCat(n, " functions for ", globals.size(), " globals"));
    std::vector<VMFunction> read;
    for (uint64_t i = 0; i < n; ++i) ReadFunction(r, exe, v14, read);
    if (r.remaining() != 0) r.Fail(StrCat(r.remaining(), " bytes after the last function"));
    exe.functions.resize(n);
    std::vector<bool> seen(n);
    for (VMFunction& fn : read) {
      size_t g = 0;
      while (g < n && globals[g] != fn.name) ++g;
      if (g == n || seen[g]) r.Fail(StrCat("function '", fn.name, "' is not a global or appears twice"));
      seen[g] = true;
      exe.functions[g] = std::move(fn);
    }
  }
  Validate(exe, what);
  exe.code = std::move(code);
  return exe;
}

void RewriteConstantPool(Executable& exe) {
  std::string pool;
  auto put = [&pool](const void* p, size_t n) { pool.append(static_cast<const char*>(p), n); };
  uint64_t n = exe.constants.size();
  put(&n, 8);
  for (size_t i = 0; i < n; ++i) {
    uint32_t tag = exe.late_bound[i].empty() ? 0 : 1;
    uint64_t len = exe.late_bound[i].size();
    put(&tag, 4);
    pool += tag ? std::string(reinterpret_cast<const char*>(&len), 8) + exe.late_bound[i] : SaveNDArray(exe.constants[i].tensor());
  }
  exe.code.replace(exe.pool_begin, exe.pool_end - exe.pool_begin, pool);
  exe.pool_end = exe.pool_begin + pool.size();
}

std::string BytecodeText(const Executable& exe) {
  std::string s;
  for (const VMFunction& fn : exe.functions) {
    StrAppend(s, "VM Function[", exe.FunctionIndex(fn.name), "]: ", fn.name, "(");
    for (size_t i = 0; i < fn.params.size(); ++i) StrAppend(s, i ? ", " : "", fn.params[i]);
    StrAppend(s, ")\n# reg file size = ", fn.num_registers, "\n# instruction count = ", fn.code.size(), "\n");
    for (size_t pc = 0; pc < fn.code.size(); ++pc) {
      const Instruction& in = fn.code[pc];
      StrAppend(s, pc, ": ", OpcodeName(in.op));
      for (uint32_t i = 0; i < in.num_fields; ++i) StrAppend(s, " ", fn.Fields(in)[i]);
      s += "\n";
    }
    s += "\n";
  }
  return s;
}

}  // namespace vm
}  // namespace aotrt
