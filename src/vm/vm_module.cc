// The Relay VM as TVM's modules: the executable (`VMExecutable`, the blob entry of `vm.so` and what
// runtime.Load_Executable returns) and the VirtualMachine it makes (vm_load_executable), with TVM's
// function names, so that TVM's Python tvm.runtime.vm runs over libaotrt unchanged.
#include <dmlc/memory_io.h>

#include <algorithm>
#include <fstream>
#include <map>
#include <sstream>

#include "aotrt/container.h"
#include "aotrt/vm.h"

#include "base/byte_reader.h"
#include "ffi/registry.h"
#include "module/library_module.h"
#include "module/loader/archive_reader.h"
#include "module/loader/load.h"
#include "module/load_context.h"
#include "vm/interpreter.h"

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
  std::string SaveToBinary() const override {
    std::string out;
    dmlc::MemoryStringStream mem(&out);
    static_cast<dmlc::Stream*>(&mem)->Write(exe_->exe.code);
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
  const VMFunction& Function(const std::string& name) const {
    int64_t i = exe_->exe.FunctionIndex(name);
    AOTRT_REQUIRE(i >= 0, kNotFound, "the VM executable has no function '", name, "'");
    return exe_->exe.functions[i];
  }
  std::string Stats() const;
  // Binds every late-bound constant to the array of its name in `named` (TVM's
  // load_late_bound_consts): all of them, and nothing else. Not to race with VMs running.
  void BindLateBound(std::vector<NamedArray> named, const std::string& from) {
    Executable& e = exe_->exe;
    size_t bound = 0;
    for (size_t i = 0; i < e.constants.size(); ++i) {
      if (e.late_bound[i].empty()) continue;
      auto it = std::find_if(named.begin(), named.end(), [&](const NamedArray& a) { return a.name == e.late_bound[i]; });
      AOTRT_REQUIRE(it != named.end(), kNotFound, what_, ": no binding for late-bound constant ", i, " '",
                    e.late_bound[i], "' in ", from);
      ++bound;
    }
    AOTRT_REQUIRE(bound == named.size(), kInvalidArgument, what_, ": ", from, " has ", named.size() - bound,
                  " arrays that are no late-bound constant of the executable");
    for (size_t i = 0; i < e.constants.size(); ++i) {
      if (e.late_bound[i].empty()) continue;
      auto it = std::find_if(named.begin(), named.end(), [&](const NamedArray& a) { return a.name == e.late_bound[i]; });
      e.constants[i] = it->array;
      e.late_bound[i].clear();
    }
  }
  std::string what_;
  std::shared_ptr<LoadedExecutable> exe_;
  bool linked_ = false;
};

class VirtualMachineNode : public ModuleNode {
 public:
  explicit VirtualMachineNode(std::shared_ptr<const LoadedExecutable> exe) : vm_(std::move(exe)) {}
  const char* type_key() const override { return "VirtualMachine"; }
  PackedFunc GetFunction(const std::string& name, const ObjectPtr<ModuleNode>& self) override;

 private:
  size_t FunctionIndex(const std::string& name) const {
    int64_t i = vm_.loaded().exe.FunctionIndex(name);
    AOTRT_REQUIRE(i >= 0, kNotFound, "Cannot find function ", name, " in the executable");
    return static_cast<size_t>(i);
  }
  ObjectPtr<Object> InputFrom(const TVMArgValue& a, const std::string& fn, size_t index) const {
    if (NDArrayObj* nd = a.AsNDArrayObjOrNull()) return ObjectPtr<Object>(nd);
    if (a.type_code() == kTVMDLTensorHandle) {
      const DLTensor* t = a.AsDLTensor();
      NDArray copy = NDArray::Empty(std::vector<int64_t>(t->shape, t->shape + t->ndim), t->dtype);
      copy.CopyFrom(*t);
      return copy.object();
    }
    ObjectPtr<Object> o = a.AsObject();
    AOTRT_REQUIRE(o && (o->type_index() == kTypeADT || o->type_index() == kTypeNDArray), kTypeMismatch, "input ",
                  index, " ('", vm_.loaded().exe.functions[FunctionIndex(fn)].params[index], "') of '", fn,
                  "': expected a tensor or a tuple, got ", TypeCodeName(a.type_code()));
    return o;
  }
  // A tensor input copied to the device its parameter lives on, as TVM's set_input does.
  ObjectPtr<Object> OnParamDevice(ObjectPtr<Object> o, const VMFunction& f, size_t i) const {
    if (!vm_.initialized() || o->type_index() != kTypeNDArray) return o;
    DLDevice dev = vm_.device(static_cast<size_t>(f.param_devices[i]));
    NDArray a(ObjectPtr<NDArrayObj>(static_cast<NDArrayObj*>(o.get())));
    if (a->device.device_type == dev.device_type && a->device.device_id == dev.device_id) return o;
    NDArray copy = NDArray::Empty(a.Shape(), a.dtype(), dev);
    copy.CopyFrom(a.tensor());
    return copy.object();
  }
  void SetInput(const std::string& fn, TVMArgs args, int offset) {
    const VMFunction& f = vm_.loaded().exe.functions[FunctionIndex(fn)];
    AOTRT_REQUIRE(static_cast<size_t>(args.size() - offset) == f.params.size(), kInvalidArgument, "function '", fn,
                  "' takes ", f.params.size(), " inputs, got ", args.size() - offset);
    std::vector<ObjectPtr<Object>> in(f.params.size());
    for (int i = offset; i < args.size(); ++i) in[i - offset] = OnParamDevice(InputFrom(args[i], fn, i - offset), f, i - offset);
    inputs_[fn] = std::move(in);
  }
  int64_t InputIndex(const std::string& fn, const std::string& name) const {
    const VMFunction& f = vm_.loaded().exe.functions[FunctionIndex(fn)];
    for (size_t i = 0; i < f.params.size(); ++i) {
      if (f.params[i] == name) return static_cast<int64_t>(i);
    }
    return -1;
  }
  void Invoke(const std::string& fn) {
    size_t i = FunctionIndex(fn);
    const std::vector<ObjectPtr<Object>>* in = nullptr;
    auto it = inputs_.find(fn);
    if (!vm_.loaded().exe.functions[i].params.empty()) {
      AOTRT_REQUIRE(it != inputs_.end(), kInvalidArgument, "Input has not been set for function ", fn);
      in = &it->second;
      for (size_t k = 0; k < in->size(); ++k) {
        AOTRT_REQUIRE((*in)[k], kInvalidArgument, "input ", k, " ('", vm_.loaded().exe.functions[i].params[k],
                      "') of function ", fn, " has not been set");
      }
    }
    static const std::vector<ObjectPtr<Object>> kNone;
    auto outs = outputs_.find(fn);
    std::vector<NDArray> given;
    if (outs != outputs_.end()) given.swap(outs->second), outputs_.erase(outs);  // one invoke only
    result_ = vm_.Invoke(i, in ? *in : kNone);
    if (given.empty()) return;
    std::vector<NDArrayObj*> results;
    Flatten(result_.get(), &results);
    AOTRT_REQUIRE(results.size() == given.size(), kInvalidArgument, "set_outputs gave ", given.size(),
                  " tensors for the ", results.size(), " outputs of function ", fn);
    for (size_t k = 0; k < given.size(); ++k) {
      AOTRT_REQUIRE(given[k].Shape() == NDArray(ObjectPtr<NDArrayObj>(results[k])).Shape(), kShapeMismatch,
                    "set_outputs: output ", k, " of function ", fn, " has another shape than the tensor given");
      given[k].CopyFrom(results[k]->dl_tensor);
    }
  }
  Object* Output(int64_t index) const {
    Object* r = result_.get();
    if (r && r->type_index() == kTypeADT) {
      const auto& fields = static_cast<ADTObj*>(r)->fields;
      AOTRT_REQUIRE(index >= 0 && static_cast<size_t>(index) < fields.size(), kOutOfRange, "output ", index,
                    " of ", fields.size());
      return fields[index].get();
    }
    AOTRT_REQUIRE(r, kInvalidArgument, "the VM has not run yet: no output");
    AOTRT_REQUIRE(index == 0, kOutOfRange, "VM output contains only one item, but you are trying to get the ", index, "th.");
    return r;
  }

  static void Flatten(Object* o, std::vector<NDArrayObj*>* out) {
    if (o && o->type_index() == kTypeADT) {
      for (const auto& f : static_cast<ADTObj*>(o)->fields) Flatten(f.get(), out);
    } else if (o && o->type_index() == kTypeNDArray) {
      out->push_back(static_cast<NDArrayObj*>(o));
    }
  }

  Interpreter vm_;
  std::map<std::string, std::vector<ObjectPtr<Object>>> inputs_;
  std::map<std::string, std::vector<NDArray>> outputs_;  // set_outputs, for the next invoke
  ObjectPtr<Object> result_;
};

std::string VMExecutableNode::Stats() const {
  const Executable& e = exe_->exe;
  std::string s = StrCat("Relay VM executable statistics:\n  Constant pool (# ", e.constants.size(), "): [");
  for (size_t i = 0; i < e.constants.size(); ++i) {
    s += i ? ", " : "";
    if (!e.constants[i].defined()) {
      StrAppend(s, "late-bound '", e.late_bound[i], "'");
      continue;
    }
    s += "[";
    std::vector<int64_t> shape = e.constants[i].Shape();
    for (size_t d = 0; d < shape.size(); ++d) StrAppend(s, d ? ", " : "", shape[d]);
    s += "]";
  }
  StrAppend(s, "]\n  Globals (#", e.functions.size(), "): [");
  for (size_t i = 0; i < e.functions.size(); ++i) StrAppend(s, i ? ", " : "", "(\"", e.functions[i].name, "\", ", i, ")");
  StrAppend(s, "]\n  Primitive ops (#", e.primitives.size(), "): [");
  for (size_t i = 0; i < e.primitives.size(); ++i) StrAppend(s, i ? ", " : "", e.primitives[i]);
  return s + "]\n";
}

PackedFunc VMExecutableNode::GetFunction(const std::string& name, const ObjectPtr<ModuleNode>& self) {
  using Body = std::function<void(TVMArgs, TVMRetValue*)>;
  Body body;
  const Executable& e = exe_->exe;
  if (name == "get_lib") {
    body = [this](TVMArgs, TVMRetValue* rv) {
      if (imports().empty()) return rv->SetNull();
      rv->SetObject(imports()[0], kTVMModuleHandle);
    };
  } else if (name == "get_bytecode") {
    body = [&e](TVMArgs, TVMRetValue* rv) { rv->SetString(BytecodeText(e)); };
  } else if (name == "get_stats" || name == "get_constants") {
    body = [this](TVMArgs, TVMRetValue* rv) { rv->SetString(Stats()); };
  } else if (name == "get_virtual_devices") {
    body = [&e](TVMArgs, TVMRetValue* rv) {
      std::string s;
      for (size_t i = 0; i < e.devices.size(); ++i) {
        StrAppend(s, "VM VirtualDevice[", i, "]: device type ", static_cast<int>(e.devices[i].device.device_type),
                  ", id ", e.devices[i].device.device_id, " and mem_scope ", e.devices[i].memory_scope, "\n");
      }
      rv->SetString(s);
    };
  } else if (name == "get_primitives") {
    body = [&e](TVMArgs, TVMRetValue* rv) {
      std::string s;
      for (size_t i = 0; i < e.primitives.size(); ++i) StrAppend(s, "VM PackedFunc[", i, "]: ", e.primitives[i], "\n");
      rv->SetString(s);
    };
  } else if (name == "save") {
    body = [&e](TVMArgs, TVMRetValue* rv) { rv->SetBytes(e.code); };
  } else if (name == "get_function_arity") {
    body = [&e](TVMArgs args, TVMRetValue* rv) {
      int64_t i = e.FunctionIndex(args[0].AsString());
      rv->SetInt(i < 0 ? -1 : static_cast<int64_t>(e.functions[i].params.size()));
    };
  } else if (name == "get_function_param_name") {
    body = [this](TVMArgs args, TVMRetValue* rv) {
      const VMFunction& f = Function(args[0].AsString());
      int64_t i = args[1].AsInt();
      AOTRT_REQUIRE(i >= 0 && static_cast<size_t>(i) < f.params.size(), kOutOfRange, "function '", f.name,
                    "' has ", f.params.size(), " parameters, asked for ", i);
      rv->SetString(f.params[i]);
    };
  } else if (name == "vm_load_executable") {
    body = [this](TVMArgs, TVMRetValue* rv) {
      AOTRT_REQUIRE(linked_ || exe_->exe.primitives.empty(), kInvalidArgument, what_, ": no kernel library linked");
      for (const std::string& n : exe_->exe.late_bound) {
        AOTRT_REQUIRE(n.empty(), kInvalidArgument, what_, ": late-bound constant '", n,
                      "' is not loaded: call load_late_bound_consts before making a VM");
      }
      rv->SetObject(MakeObject<VirtualMachineNode>(exe_), kTVMModuleHandle);
    };
  } else if (name == "load_late_bound_consts") {
    body = [this](TVMArgs args, TVMRetValue*) {
      std::string path = args[0].AsString();
      std::ifstream in(path, std::ios::binary);
      AOTRT_REQUIRE(in, kIOError, "cannot open the late-bound constants file '", path, "'");
      std::stringstream bytes;
      bytes << in.rdbuf();
      std::string data = bytes.str();
      BindLateBound(LoadParams(data.data(), data.size()), path);
    };
  } else if (name == "load_late_bound_consts_from_map") {
    body = [this](TVMArgs args, TVMRetValue*) {
      const auto* map = static_cast<const MapObj*>(args[0].AsObjectOf(kTypeMap, "Map<String, NDArray>"));
      std::vector<NamedArray> named;
      for (const MapObj::Item& kv : map->items()) {
        AOTRT_REQUIRE(kv.first && kv.first->type_index() == kTypeString && kv.second &&
                          kv.second->type_index() == kTypeNDArray, kTypeMismatch,
                      "load_late_bound_consts_from_map: expected a Map<String, NDArray>");
        named.push_back({static_cast<const StringObj*>(kv.first.get())->value,
                         NDArray(ObjectPtr<NDArrayObj>(static_cast<NDArrayObj*>(kv.second.get())))});
      }
      BindLateBound(std::move(named), "the map given");
    };
  } else if (name == "move_late_bound_consts" || name == "get_late_bound_consts") {
    body = [name](TVMArgs, TVMRetValue*) { AOTRT_THROW(kNotImplemented, "VMExecutable.", name, " is not supported by aotrt yet"); };
  } else {
    return PackedFunc();
  }
  return PackedFunc([self, body](TVMArgs args, TVMRetValue* rv) { body(args, rv); });
}

PackedFunc VirtualMachineNode::GetFunction(const std::string& name, const ObjectPtr<ModuleNode>& self) {
  using Body = std::function<void(TVMArgs, TVMRetValue*)>;
  Body body;
  if (name == "init") {
    body = [this](TVMArgs args, TVMRetValue*) {
      AOTRT_REQUIRE(args.size() % 3 == 0 && args.size() > 0, kInvalidArgument,
                    "init takes (device_type, device_id, allocator_type) triples, got ", args.size(), " arguments");
      std::vector<DLDevice> devs;
      for (int i = 0; i < args.size(); i += 3) {
        devs.push_back(DLDevice{static_cast<DLDeviceType>(args[i].AsInt()), static_cast<int>(args[i + 1].AsInt())});
        int64_t alloc = args[i + 2].AsInt();
        AOTRT_REQUIRE(alloc == 1 || alloc == 2, kInvalidArgument, "init: allocator type ", alloc, " is neither 1 (naive) nor 2 (pooled)");
      }
      vm_.Init(devs);
    };
  } else if (name == "set_input") {
    body = [this](TVMArgs args, TVMRetValue*) { SetInput(args[0].AsString(), args, 1); };
  } else if (name == "set_one_input") {
    body = [this](TVMArgs args, TVMRetValue*) {
      RequireArgCount("set_one_input", args, 3, 3);
      std::string fn = args[0].AsString();
      const VMFunction& f = vm_.loaded().exe.functions[FunctionIndex(fn)];
      int64_t i = args[1].IsString() ? InputIndex(fn, args[1].AsString()) : args[1].AsInt();
      AOTRT_REQUIRE(i >= 0 && static_cast<size_t>(i) < f.params.size(), kNotFound, "function '", fn, "' has no input ",
                    args[1].IsString() ? StrCat("'", args[1].AsString(), "'") : StrCat(args[1].AsInt()));
      auto& in = inputs_[fn];
      in.resize(f.params.size());
      in[i] = OnParamDevice(InputFrom(args[2], fn, static_cast<size_t>(i)), f, static_cast<size_t>(i));
    };
  } else if (name == "invoke") {
    body = [this](TVMArgs args, TVMRetValue* rv) {
      Invoke(args[0].AsString());
      rv->SetObject(result_);
    };
  } else if (name == "invoke_stateful") {
    body = [this](TVMArgs args, TVMRetValue*) { Invoke(args[0].AsString()); };
  } else if (name == "invoke_return_to_device") {
    body = [this](TVMArgs args, TVMRetValue* rv) {
      AOTRT_REQUIRE(args[1].AsInt() == kDLCPU, kNotImplemented, "invoke_return_to_device: only the CPU is supported");
      SetInput(args[0].AsString(), args, 3);
      Invoke(args[0].AsString());
      rv->SetObject(result_);
    };
  } else if (name == "get_output") {
    body = [this](TVMArgs args, TVMRetValue* rv) {
      Object* o = Output(args[0].AsInt());
      AOTRT_REQUIRE(o && o->type_index() == kTypeNDArray, kTypeMismatch, "output ", args[0].AsInt(), " is not a tensor");
      rv->SetObject(ObjectPtr<Object>(o), kTVMNDArrayHandle);
    };
  } else if (name == "get_num_outputs") {
    body = [this](TVMArgs, TVMRetValue* rv) {
      Object* r = result_.get();
      rv->SetInt(r && r->type_index() == kTypeADT ? static_cast<int64_t>(static_cast<ADTObj*>(r)->fields.size()) : 1);
    };
  } else if (name == "get_input_index") {
    body = [this](TVMArgs args, TVMRetValue* rv) { rv->SetInt(InputIndex(args[1].AsString(), args[0].AsString())); };
  } else if (name == "set_outputs") {
    // The next invoke of the function leaves its results in these tensors (TVM writes them in
    // place; here they are copied in, once, after the run).
    body = [this](TVMArgs args, TVMRetValue*) {
      AOTRT_REQUIRE(args.size() > 1, kInvalidArgument, "set_outputs takes (func_name, output, ...): no outputs given");
      std::string fn = args[0].AsString();
      FunctionIndex(fn);
      std::vector<NDArray>& outs = outputs_[fn];
      outs.clear();
      for (int i = 1; i < args.size(); ++i) {
        NDArrayObj* nd = args[i].AsNDArrayObjOrNull();
        outs.push_back(nd ? NDArray(ObjectPtr<NDArrayObj>(nd)) : NDArray::Borrow(*args[i].AsDLTensor()));
      }
    };
  } else if (name == "load_late_bound_consts") {
    body = [name](TVMArgs, TVMRetValue*) { AOTRT_THROW(kNotImplemented, "VirtualMachine.", name, " is not supported by aotrt yet"); };
  } else {
    return PackedFunc();
  }
  return PackedFunc([self, body](TVMArgs args, TVMRetValue* rv) { body(args, rv); });
}

// runtime.Load_Executable(code, lib): the two-file form.
void LoadExecutableGlobal(TVMArgs args, TVMRetValue* rv) {
  RequireArgCount("runtime.Load_Executable", args, 2, 2);
  auto exe = MakeObject<VMExecutableNode>(args[0].AsString(), "VM bytecode");
  exe->Import(args[1].AsModule());
  exe->OnImportsLinked();
  rv->SetObject(exe, kTVMModuleHandle);
}

// The blob entry of `vm.so`: the bytecode as one string; the kernel library is its import.
ObjectPtr<ModuleNode> LoadVMExecutableBinary(BoundedReader& r, const LoadContext& ctx) {
  return MakeObject<VMExecutableNode>(r.ReadString("VM bytecode"), StrCat("VM bytecode in ", ctx.display_name));
}

// A VM export as files: tvmc's package (lib.so a one-file export) or code.ro beside lib.so.
Module LoadVMPackage(const std::string& path, const LoadContext& ctx) {
  ArchiveContents c = ReadArchive(path, [](const std::string& p) { return p == kVMPackageLibrary || p == kVMPackageBytecode; });
  AOTRT_REQUIRE(c.files.count(kVMPackageLibrary), kFormatError, path, ": a VM package without ", kVMPackageLibrary);
  const std::string& so = c.files[kVMPackageLibrary];
  LoadContext lib_ctx = ctx;
  lib_ctx.display_name = StrCat(path, "/", kVMPackageLibrary);
  Module lib = LoadModuleBytes(so.data(), so.size(), lib_ctx);
  if (c.files.count(kVMPackageBytecode)) {
    auto exe = MakeObject<VMExecutableNode>(std::move(c.files[kVMPackageBytecode]), StrCat(path, "/", kVMPackageBytecode));
    exe->Import(lib.node());
    exe->OnImportsLinked();
    return Module(exe);
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
template <bool kGlobals>
void CountGlobal(TVMArgs args, TVMRetValue* rv) {
  const Executable& e = ExecutableArg(kGlobals ? "runtime.GetNumOfGlobals" : "runtime.GetNumOfPrimitives", args, 1);
  rv->SetInt(static_cast<int64_t>(kGlobals ? e.functions.size() : e.primitives.size()));
}
template <bool kGlobals>
void NameGlobal(TVMArgs args, TVMRetValue* rv) {
  const char* fn = kGlobals ? "runtime.GetGlobalFields" : "runtime.GetPrimitiveFields";
  const Executable& e = ExecutableArg(fn, args, 2);
  int64_t i = args[1].AsInt();
  size_t n = kGlobals ? e.functions.size() : e.primitives.size();
  AOTRT_REQUIRE(i >= 0 && static_cast<size_t>(i) < n, kOutOfRange, fn, ": index ", i, " of ", n);
  rv->SetString(kGlobals ? e.functions[i].name : e.primitives[i]);
}

constexpr GlobalDef kDefs[] = {
    {"runtime.Load_Executable", LoadExecutableGlobal},  {"runtime.GetNumOfGlobals", CountGlobal<true>},
    {"runtime.GetGlobalFields", NameGlobal<true>},      {"runtime.GetNumOfPrimitives", CountGlobal<false>},
    {"runtime.GetPrimitiveFields", NameGlobal<false>},
};
constexpr BinaryLoaderDef kLoaders[] = {{"VMExecutable", LoadVMExecutableBinary}};
constexpr FileLoaderDef kFileLoaders[] = {{"vm", LoadVMPackage}};

}  // namespace
}  // namespace vm

Module LoadVMExecutable(const std::string& bytecode_path, const Module& lib) {
  std::ifstream in(bytecode_path, std::ios::binary);
  AOTRT_REQUIRE(in, kIOError, "cannot open the VM bytecode file '", bytecode_path, "'");
  std::stringstream bytes;
  bytes << in.rdbuf();
  AOTRT_REQUIRE(lib.defined(), kInvalidArgument, "LoadVMExecutable: no kernel library given");
  auto exe = MakeObject<vm::VMExecutableNode>(bytes.str(), bytecode_path);
  exe->Import(lib.node());
  exe->OnImportsLinked();
  return Module(exe);
}

Module LoadVMExecutable(const std::string& bytecode_path, const std::string& lib_path, const LoadOptions& options) {
  return LoadVMExecutable(bytecode_path, Module::LoadFromFile(lib_path, "", options));
}

extern const GlobalTable kVMGlobals{vm::kDefs};
extern const BinaryLoaderTable kVMBinaryLoaders{vm::kLoaders};
extern const FileLoaderTable kVMFileLoaders{vm::kFileLoaders};

}  // namespace aotrt
