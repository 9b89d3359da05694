// The Relay VM executable as TVM's module (`VMExecutable`: the blob entry of `vm.so`, what
// runtime.Load_Executable returns), its loaders (blob entry, tvmc package, two files) and globals.
#include <algorithm>

#include "aotrt/container.h"
#include "aotrt/vm.h"
#include "base/byte_reader.h"
#include "ffi/registry.h"
#include "module/loader/archive_reader.h"
#include "module/loader/load.h"
#include "module/load_context.h"
#include "ndarray/serialize.h"
#include "vm/interpreter.h"
#include "vm/vm_module.h"

namespace aotrt {
namespace vm {
namespace {

class VMExecutableNode : public ModuleNode {
 public:
  VMExecutableNode(std::string code, const std::string& what)
      : what_(what), exe_(std::make_shared<LoadedExecutable>()) {
    exe_->exe = ParseExecutable(std::move(code), what);
  }
  const char* type_key() const override { return "VMExecutable"; }
  int GetPropertyMask() const override { return kModuleBinarySerializable; }
  std::string SaveToBinary() const override {  // the bytecode as a dmlc string
    std::string out;
    WriteString(exe_->exe.code, &out);
    return out;
  }
  // Resolves every primitive in the kernel library (import 0), once.
  void OnImportsLinked() override {
    const Executable& exe = exe_->exe;
    AOTRT_REQUIRE(imports().size() == 1 || exe.primitives.empty(), kNotFound, what_, ": the executable calls ",
                  exe.primitives.size(), " primitives but has ", imports().size(), " kernel libraries, expected 1");
    exe_->primitives.clear();
    for (size_t i = 0; i < exe.primitives.size(); ++i) {
      PackedFunc f = Module(imports()[0]).GetFunction(exe.primitives[i], true);
      AOTRT_REQUIRE(f.defined(), kNotFound, what_, ": primitive ", i, " '", exe.primitives[i],
                    "' is not in the kernel library");
      exe_->primitives.push_back(std::move(f));
    }
    linked_ = true;
  }
  PackedFunc GetFunction(const std::string& name, const ObjectPtr<ModuleNode>& self) override;
  const Executable& executable() const { return exe_->exe; }

 private:
  std::string Stats() const;
  // Binds every late-bound constant to the array of its name in `named` (TVM's
  // load_late_bound_consts): all of them, and nothing else. Not to race with VMs running.
  void BindLateBound(std::vector<NamedArray> named, const std::string& from) {
    Executable& e = exe_->exe;
    std::vector<NDArray> found(e.constants.size());
    size_t bound = 0;
    for (size_t i = 0; i < e.constants.size(); ++i) {
      if (e.late_bound[i].empty()) continue;
      auto it = std::find_if(named.begin(), named.end(), [&](const NamedArray& a) { return a.name == e.late_bound[i]; });
      AOTRT_REQUIRE(it != named.end(), kNotFound, what_, ": no binding for late-bound constant ", i, " '",
                    e.late_bound[i], "' in ", from);
      found[i] = it->array, ++bound;
    }
    AOTRT_REQUIRE(bound == named.size(), kInvalidArgument, what_, ": ", from, " has ", named.size() - bound,
                  " arrays that are no late-bound constant of the executable");
    for (size_t i = 0; i < e.constants.size(); ++i) {
      if (found[i].defined()) e.constants[i] = found[i], e.late_bound[i].clear();
    }
    RewriteConstantPool(e);
  }
  // Moves every constant of `byte_limit` bytes or more out of the executable (TVM's
  // get_late_bound_consts), named const_<index>, into the file `path` unless empty.
  std::vector<NamedArray> MoveLateBound(int64_t byte_limit, const std::string& path) {
    Executable& e = exe_->exe;
    AOTRT_REQUIRE(byte_limit >= 0, kInvalidArgument, what_, ": byte_limit must be >= 0, got ", byte_limit);
    std::vector<NamedArray> moved;
    std::vector<size_t> at;
    for (size_t i = 0; i < e.constants.size(); ++i) {
      AOTRT_REQUIRE(e.late_bound[i].empty(), kInvalidArgument, what_, ": constant ", i, " is late-bound already ('",
                    e.late_bound[i], "'): load_late_bound_consts first");
      if (e.constants[i].NumBytes() >= static_cast<uint64_t>(byte_limit)) moved.push_back({StrCat("const_", i), e.constants[i]}), at.push_back(i);
    }
    if (!path.empty()) WriteFile(path, SaveParams(moved), "move_late_bound_consts");
    for (size_t k = 0; k < at.size(); ++k) e.late_bound[at[k]] = moved[k].name, e.constants[at[k]] = NDArray();
    RewriteConstantPool(e);
    return moved;
  }
  static const NodeMethod<VMExecutableNode> kMethods[];
  std::string what_;
  std::shared_ptr<LoadedExecutable> exe_;
  bool linked_ = false;
};

std::string VMExecutableNode::Stats() const {
  const Executable& e = exe_->exe;
  std::string s = StrCat("Relay VM executable statistics:\n  Constant pool (# ", e.constants.size(), "): [");
  for (size_t i = 0; i < e.constants.size(); ++i) {
    const NDArray& c = e.constants[i];
    s += i ? ", " : "";
    s += c.defined() ? ShapeToString(c.tensor().shape, c.tensor().ndim) : StrCat("late-bound '", e.late_bound[i], "'");
  }
  StrAppend(s, "]\n  Globals (#", e.functions.size(), "): [");
  for (size_t i = 0; i < e.functions.size(); ++i) StrAppend(s, i ? ", " : "", "(\"", e.functions[i].name, "\", ", i, ")");
  StrAppend(s, "]\n  Primitive ops (#", e.primitives.size(), "): [");
  for (size_t i = 0; i < e.primitives.size(); ++i) StrAppend(s, i ? ", " : "", e.primitives[i]);
  return s + "]\n";
}

using Exe = VMExecutableNode;
const NodeMethod<Exe> VMExecutableNode::kMethods[] = {
    {"get_lib", [](Exe* x, TVMArgs, TVMRetValue* rv) {
       if (x->imports().empty()) return rv->SetNull();
       rv->SetObject(x->imports()[0], kTVMModuleHandle);
     }},
    {"get_bytecode", [](Exe* x, TVMArgs, TVMRetValue* rv) { rv->SetString(BytecodeText(x->executable())); }},
    {"get_stats", [](Exe* x, TVMArgs, TVMRetValue* rv) { rv->SetString(x->Stats()); }},
    {"get_constants", [](Exe* x, TVMArgs, TVMRetValue* rv) { rv->SetString(x->Stats()); }},
    {"get_virtual_devices", [](Exe* x, TVMArgs, TVMRetValue* rv) {
       const std::vector<VirtualDevice>& d = x->executable().devices;
       std::string s;
       for (size_t i = 0; i < d.size(); ++i) {
         StrAppend(s, "VM VirtualDevice[", i, "]: device type ", static_cast<int>(d[i].device.device_type), ", id ",
                   d[i].device.device_id, " and mem_scope ", d[i].memory_scope, "\n");
       }
       rv->SetString(s);
     }},
    {"get_primitives", [](Exe* x, TVMArgs, TVMRetValue* rv) {
       const std::vector<std::string>& p = x->executable().primitives;
       std::string s;
       for (size_t i = 0; i < p.size(); ++i) StrAppend(s, "VM PackedFunc[", i, "]: ", p[i], "\n");
       rv->SetString(s);
     }},
    {"save", [](Exe* x, TVMArgs, TVMRetValue* rv) { rv->SetBytes(x->executable().code); }},
    {"get_function_arity", [](Exe* x, TVMArgs args, TVMRetValue* rv) {
       int64_t i = x->executable().FunctionIndex(args[0].AsString());
       rv->SetInt(i < 0 ? -1 : static_cast<int64_t>(x->executable().functions[i].params.size()));
     }},
    {"get_function_param_name", [](Exe* x, TVMArgs args, TVMRetValue* rv) {
       int64_t fi = x->executable().FunctionIndex(args[0].AsString()), i = args[1].AsInt();
       AOTRT_REQUIRE(fi >= 0, kNotFound, "the VM executable has no function '", args[0].AsString(), "'");
       const VMFunction& f = x->executable().functions[fi];
       AOTRT_REQUIRE(i >= 0 && static_cast<size_t>(i) < f.params.size(), kOutOfRange, "function '", f.name,
                     "' has ", f.params.size(), " parameters, asked for ", i);
       rv->SetString(f.params[i]);
     }},
    {"vm_load_executable", [](Exe* x, TVMArgs, TVMRetValue* rv) {
       AOTRT_REQUIRE(x->linked_ || x->exe_->exe.primitives.empty(), kInvalidArgument, x->what_, ": no kernel library linked");
       for (const std::string& n : x->exe_->exe.late_bound) {
         AOTRT_REQUIRE(n.empty(), kInvalidArgument, x->what_, ": late-bound constant '", n,
                       "' is not loaded: call load_late_bound_consts before making a VM");
       }
       rv->SetObject(MakeVirtualMachine(x->exe_), kTVMModuleHandle);
     }},
    {"load_late_bound_consts", [](Exe* x, TVMArgs args, TVMRetValue*) {
       RequireArgCount("load_late_bound_consts", args, 1, 1);
       std::string data = ReadFile(args[0].AsString(), "late-bound constants file");
       x->BindLateBound(LoadParams(data.data(), data.size()), args[0].AsString());
     }},
    {"load_late_bound_consts_from_map", [](Exe* x, TVMArgs args, TVMRetValue*) {
       x->BindLateBound(ParamsFromMap(args[0]), "the map given");
     }},
    {"move_late_bound_consts", [](Exe* x, TVMArgs args, TVMRetValue*) {
       RequireArgCount("move_late_bound_consts", args, 2, 2);
       x->MoveLateBound(args[1].AsInt(), args[0].AsString());
     }},
    {"get_late_bound_consts", [](Exe* x, TVMArgs args, TVMRetValue* rv) {
       rv->SetObject(ParamsToMap(x->MoveLateBound(args[0].AsInt(), "")));
     }},
};

PackedFunc VMExecutableNode::GetFunction(const std::string& name, const ObjectPtr<ModuleNode>& self) {
  return MethodOf(kMethods, this, name, self);
}

// The executable of `code` (`what` names it) over the kernel library `lib`, its primitives resolved.
Module Link(std::string code, const std::string& what, ObjectPtr<ModuleNode> lib) {
  return Module(WithImport(MakeObject<VMExecutableNode>(std::move(code), what), std::move(lib)));
}

// runtime.Load_Executable(code, lib): the two-file form.
void LoadExecutableGlobal(TVMArgs args, TVMRetValue* rv) {
  RequireArgCount("runtime.Load_Executable", args, 2, 2);
  rv->SetObject(Link(args[0].AsString(), "VM bytecode", args[1].AsModule()).node(), kTVMModuleHandle);
}

// The blob entry of `vm.so`: the bytecode as one string; the kernel library is its import.
ObjectPtr<ModuleNode> LoadVMExecutableBinary(BoundedReader& r, const LoadContext& ctx) {
  return MakeObject<VMExecutableNode>(r.ReadString("VM bytecode"), StrCat("VM bytecode in ", ctx.display_name));
}

// A VM export as files: tvmc's package (lib.so a one-file export) or code.ro beside lib.so.
Module LoadVMPackage(const std::string& path, ArchiveContents& c, const LoadContext& ctx) {
  AOTRT_REQUIRE(c.files.count(kVMPackageLibrary), kFormatError, path, ": a VM package without ", kVMPackageLibrary);
  const std::string& so = c.files[kVMPackageLibrary];
  LoadContext lib_ctx = ctx;
  lib_ctx.display_name = StrCat(path, "/", kVMPackageLibrary);
  Module lib = LoadModuleBytes(so.data(), so.size(), lib_ctx);
  if (c.files.count(kVMPackageBytecode)) {
    return Link(std::move(c.files[kVMPackageBytecode]), StrCat(path, "/", kVMPackageBytecode), lib.node());
  }
  AOTRT_REQUIRE(lib.type_key() == "VMExecutable", kFormatError, path, ": ", kVMPackageLibrary, " is a '", lib.type_key(),
                "' module, not a Relay VM export (VMExecutable), and no ", kVMPackageBytecode, " is beside it");
  return lib;
}

// runtime.GetNumOfGlobals / GetGlobalFields / GetNumOfPrimitives / GetPrimitiveFields (mod[, index]):
// what TVM's Executable.globals and .primitive_ops read.
const Executable& ExecutableArg(const char* fn, TVMArgs args, int num) {
  RequireArgCount(fn, args, num, num);
  auto* exe = dynamic_cast<VMExecutableNode*>(args[0].AsModule().get());
  AOTRT_REQUIRE(exe, kTypeMismatch, fn, ": the module is not a VM executable");
  return exe->executable();
}
template <bool kGlobals, bool kName>
void GlobalsOrPrimitives(TVMArgs args, TVMRetValue* rv) {
  const char* fn = kGlobals ? (kName ? "runtime.GetGlobalFields" : "runtime.GetNumOfGlobals")
                            : (kName ? "runtime.GetPrimitiveFields" : "runtime.GetNumOfPrimitives");
  const Executable& e = ExecutableArg(fn, args, kName ? 2 : 1);
  size_t n = kGlobals ? e.functions.size() : e.primitives.size();
  if (!kName) return rv->SetInt(static_cast<int64_t>(n));
  int64_t i = args[1].AsInt();
  AOTRT_REQUIRE(i >= 0 && static_cast<size_t>(i) < n, kOutOfRange, fn, ": index ", i, " of ", n);
  rv->SetString(kGlobals ? e.functions[i].name : e.primitives[i]);
}

// runtime._VirtualMachineDebug(exe): TVM's profiling VM (every aotrt VM has `profile`).
void VirtualMachineDebug(TVMArgs args, TVMRetValue* rv) {
  ExecutableArg("runtime._VirtualMachineDebug", args, 1);
  Module(args[0].AsModule()).GetFunctionOrThrow("vm_load_executable").CallPacked(TVMArgs(nullptr, nullptr, 0), rv);
}

constexpr GlobalDef kDefs[] = {
    {"runtime.Load_Executable", LoadExecutableGlobal},
    {"runtime.GetNumOfGlobals", GlobalsOrPrimitives<true, false>},
    {"runtime.GetGlobalFields", GlobalsOrPrimitives<true, true>},
    {"runtime.GetNumOfPrimitives", GlobalsOrPrimitives<false, false>},
    {"runtime.GetPrimitiveFields", GlobalsOrPrimitives<false, true>},
    {"runtime._VirtualMachineDebug", VirtualMachineDebug},
};
constexpr BinaryLoaderDef kLoaders[] = {{"VMExecutable", LoadVMExecutableBinary}};
constexpr FileLoaderDef kFileLoaders[] = {{"vm", [](const std::string& m) { return m == kVMPackageLibrary; },
    [](const std::string& m) { return m == kVMPackageLibrary || m == kVMPackageBytecode; }, LoadVMPackage}};

}  // namespace
}  // namespace vm

Module LoadVMExecutable(const std::string& bytecode_path, const Module& lib) {
  std::string bytes = ReadFile(bytecode_path, "VM bytecode file");
  AOTRT_REQUIRE(lib.defined(), kInvalidArgument, "LoadVMExecutable: no kernel library given");
  return vm::Link(std::move(bytes), bytecode_path, lib.node());
}

Module LoadVMExecutable(const std::string& bytecode_path, const std::string& lib_path, const LoadOptions& options) {
  return LoadVMExecutable(bytecode_path, Module::LoadFromFile(lib_path, "", options));
}

extern const GlobalTable kVMGlobals{vm::kDefs};
extern const BinaryLoaderTable kVMBinaryLoaders{vm::kLoaders};
extern const FileLoaderTable kVMFileLoaders{vm::kFileLoaders};

}  // namespace aotrt
