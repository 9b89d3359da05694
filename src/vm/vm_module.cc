#include "vm/vm_module.h"

#include <algorithm>
#include <map>

#include "aotrt/container.h"
#include "aotrt/vm.h"
#include "base/device.h"
#include "base/error_util.h"
#include "ffi/registry.h"
#include "profiling/internal.h"

namespace aotrt {
namespace vm {
namespace {

class VirtualMachineNode : public ModuleNode {
 public:
  explicit VirtualMachineNode(std::shared_ptr<const LoadedExecutable> exe) : vm_(std::move(exe)) {}
  const char* type_key() const override { return "VirtualMachine"; }
  PackedFunc GetFunction(const std::string& name, const ObjectPtr<ModuleNode>& self) override;
  OperatorProfile Profile(const std::string& fn, const OperatorProfileOptions& opt) {
    FunctionIndex(fn);
    std::vector<OperatorCost> prims(vm_.loaded().exe.primitives.size());
    for (size_t k = 0; k < prims.size(); ++k) prims[k].name = prims[k].symbol = vm_.loaded().exe.primitives[k];
    struct Off { Interpreter& vm; ~Off() { vm.timing = nullptr; } } off{vm_};
    vm_.timing = &prims;
    OperatorProfile p = ProfileMeasuredRuns(opt, [&] { Invoke(fn); }, &prims);
    p.model = fn, p.executor = "VM";
    return p;
  }

 private:
  size_t FunctionIndex(const std::string& name) const {
    int64_t i = vm_.loaded().exe.FunctionIndex(name);
    AOTRT_REQUIRE(i >= 0, kNotFound, "Cannot find function ", name, " in the executable");
    return static_cast<size_t>(i);
  }
  // Input `i` of `f` (named `fn`): a tuple, or a tensor copied to the device its parameter lives on, as TVM's
  // set_input does.
  ObjectPtr<Object> Input(const TVMArgValue& a, const std::string& fn, const VMFunction& f, size_t i) const {
    ObjectPtr<Object> o;
    if (NDArrayObj* nd = a.AsNDArrayObjOrNull()) {
      o = ObjectPtr<Object>(nd);
    } else {
      o = a.type_code() == kTVMDLTensorHandle ? ObjectPtr<Object>(CopyOn(*a.AsDLTensor(), DLDevice{kDLCPU, 0}).object())
                                              : a.AsObject();
    }
    AOTRT_REQUIRE(o && (o->type_index() == kTypeADT || o->type_index() == kTypeNDArray), kTypeMismatch, "input ", i,
                  " ('", f.params[i], "') of '", fn, "': expected a tensor or a tuple, got ", TypeCodeName(a.type_code()));
    if (!vm_.initialized() || o->type_index() != kTypeNDArray) return o;
    DLDevice dev = vm_.device(static_cast<size_t>(f.param_devices[i]));
    const DLTensor& t = static_cast<NDArrayObj*>(o.get())->dl_tensor;
    if (t.device.device_type == dev.device_type && t.device.device_id == dev.device_id) return o;
    return CopyOn(t, dev).object();
  }
  void SetInput(const std::string& fn, TVMArgs args, int offset) {
    const VMFunction& f = vm_.loaded().exe.functions[FunctionIndex(fn)];
    AOTRT_REQUIRE(static_cast<size_t>(args.size() - offset) == f.params.size(), kInvalidArgument, "function '", fn,
                  "' takes ", f.params.size(), " inputs, got ", args.size() - offset);
    std::vector<ObjectPtr<Object>> in(f.params.size());
    for (int i = offset; i < args.size(); ++i) in[i - offset] = Input(args[i], fn, f, i - offset);
    inputs_[fn] = std::move(in);
  }
  int64_t InputIndex(const std::string& fn, const std::string& name) const {
    const std::vector<std::string>& p = vm_.loaded().exe.functions[FunctionIndex(fn)].params;
    auto it = std::find(p.begin(), p.end(), name);
    return it == p.end() ? -1 : it - p.begin();
  }
  void Invoke(const std::string& fn) {
    size_t i = FunctionIndex(fn);
    static const std::vector<ObjectPtr<Object>> kNone;
    const std::vector<ObjectPtr<Object>>* in = &kNone;
    auto it = inputs_.find(fn);
    if (!vm_.loaded().exe.functions[i].params.empty()) {
      AOTRT_REQUIRE(it != inputs_.end(), kInvalidArgument, "Input has not been set for function ", fn);
      in = &it->second;
      for (size_t k = 0; k < in->size(); ++k) {
        AOTRT_REQUIRE((*in)[k], kInvalidArgument, "input ", k, " ('", vm_.loaded().exe.functions[i].params[k],
                      "') of function ", fn, " has not been set");
      }
    }
    auto outs = outputs_.find(fn);
    std::vector<NDArray> given;
    if (outs != outputs_.end()) given.swap(outs->second), outputs_.erase(outs);  // one invoke only
    result_ = vm_.Invoke(i, *in, given.empty() ? nullptr : &given);
    if (given.empty()) return;
    // Results the function did not make in the tensors given (a callee's, a constant) are copied in.
    std::vector<NDArrayObj*> results;
    Flatten(result_.get(), &results);
    AOTRT_REQUIRE(results.size() == given.size(), kInvalidArgument, "set_outputs gave ", given.size(),
                  " tensors for the ", results.size(), " outputs of function ", fn);
    for (size_t k = 0; k < given.size(); ++k) {
      NDArray r{ObjectPtr<NDArrayObj>(results[k])};
      if (r.data() == given[k].data()) continue;
      AOTRT_REQUIRE(given[k].Shape() == r.Shape(), kShapeMismatch, "set_outputs: output ", k, " of function ", fn,
                    " has another shape than the tensor given");
      given[k].CopyFrom(r.tensor());
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

  static const NodeMethod<VirtualMachineNode> kMethods[];
  Interpreter vm_;
  std::map<std::string, std::vector<ObjectPtr<Object>>> inputs_;
  std::map<std::string, std::vector<NDArray>> outputs_;  // set_outputs, for the next invoke
  ObjectPtr<Object> result_;
};

// TVM's VirtualMachineDebug: 3 runs to warm up, one profiled; its Report (collectors ignored), or
// (profile_rpc) the report's JSON.
template <bool kJson>
void ProfileReport(VirtualMachineNode* vm, TVMArgs args, TVMRetValue* rv) {
  OperatorProfileOptions o;
  o.runs = 1, o.warmup = 3;
  ObjectPtr<ProfileReportObj> report = MakeProfileReport(vm->Profile(args[0].AsString(), o));
  kJson ? rv->SetString(report->json) : rv->SetObject(report, kTVMObjectHandle);
}

const NodeMethod<VirtualMachineNode> VirtualMachineNode::kMethods[] = {
    {"init", [](VirtualMachineNode* vm, TVMArgs args, TVMRetValue*) {
       AOTRT_REQUIRE(args.size() % 3 == 0 && args.size() > 0, kInvalidArgument,
                     "init takes (device_type, device_id, allocator_type) triples, got ", args.size(), " arguments");
       std::vector<DLDevice> devs;
       for (int i = 0; i < args.size(); i += 3) {
         devs.push_back(MakeDevice(static_cast<int>(args[i].AsInt()), static_cast<int>(args[i + 1].AsInt())));
         int64_t alloc = args[i + 2].AsInt();
         AOTRT_REQUIRE(alloc == 1 || alloc == 2, kInvalidArgument, "init: allocator type ", alloc, " is neither 1 (naive) nor 2 (pooled)");
       }
       vm->vm_.Init(devs);
     }},
    {"set_input", [](VirtualMachineNode* vm, TVMArgs args, TVMRetValue*) {
       vm->SetInput(args[0].AsString(), args, 1);
     }},
    {"set_one_input", [](VirtualMachineNode* vm, TVMArgs args, TVMRetValue*) {
       RequireArgCount("set_one_input", args, 3, 3);
       std::string fn = args[0].AsString();
       const VMFunction& f = vm->vm_.loaded().exe.functions[vm->FunctionIndex(fn)];
       int64_t i = args[1].IsString() ? vm->InputIndex(fn, args[1].AsString()) : args[1].AsInt();
       AOTRT_REQUIRE(i >= 0 && static_cast<size_t>(i) < f.params.size(), kNotFound, "function '", fn, "' has no input ",
                     args[1].IsString() ? StrCat("'", args[1].AsString(), "'") : StrCat(args[1].AsInt()));
       auto& in = vm->inputs_[fn];
       in.resize(f.params.size());
       in[i] = vm->Input(args[2], fn, f, static_cast<size_t>(i));
     }},
    {"invoke", [](VirtualMachineNode* vm, TVMArgs args, TVMRetValue* rv) {
       vm->Invoke(args[0].AsString());
       rv->SetObject(vm->result_);
     }},
    {"invoke_stateful", [](VirtualMachineNode* vm, TVMArgs args, TVMRetValue*) { vm->Invoke(args[0].AsString()); }},
    {"invoke_return_to_device", [](VirtualMachineNode* vm, TVMArgs args, TVMRetValue* rv) {
       AOTRT_REQUIRE(args[1].AsInt() == kDLCPU, kNotImplemented, "invoke_return_to_device: only the CPU is supported");
       vm->SetInput(args[0].AsString(), args, 3);
       vm->Invoke(args[0].AsString());
       rv->SetObject(vm->result_);
     }},
    {"get_output", [](VirtualMachineNode* vm, TVMArgs args, TVMRetValue* rv) {
       Object* o = vm->Output(args[0].AsInt());
       AOTRT_REQUIRE(o && o->type_index() == kTypeNDArray, kTypeMismatch, "output ", args[0].AsInt(), " is not a tensor");
       rv->SetObject(ObjectPtr<Object>(o), kTVMNDArrayHandle);
     }},
    {"get_num_outputs", [](VirtualMachineNode* vm, TVMArgs, TVMRetValue* rv) {
       Object* r = vm->result_.get();
       rv->SetInt(r && r->type_index() == kTypeADT ? static_cast<int64_t>(static_cast<ADTObj*>(r)->fields.size()) : 1);
     }},
    {"get_input_index", [](VirtualMachineNode* vm, TVMArgs args, TVMRetValue* rv) {
       rv->SetInt(vm->InputIndex(args[1].AsString(), args[0].AsString()));
     }},
    // The next invoke of the function leaves its results in these tensors (TVM writes them in
    // place; here they are copied in, once, after the run).
    {"set_outputs", [](VirtualMachineNode* vm, TVMArgs args, TVMRetValue*) {
       AOTRT_REQUIRE(args.size() > 1, kInvalidArgument, "set_outputs takes (func_name, output, ...): no outputs given");
       std::string fn = args[0].AsString();
       vm->FunctionIndex(fn);
       std::vector<NDArray>& outs = vm->outputs_[fn];
       outs.clear();
       for (int i = 1; i < args.size(); ++i) {
         NDArrayObj* nd = args[i].AsNDArrayObjOrNull();
         outs.push_back(nd ? NDArray(ObjectPtr<NDArrayObj>(nd)) : NDArray::Borrow(*args[i].AsDLTensor()));
       }
     }},
    // As TVM's: a VM exists only once its executable's constants are all bound.
    {"load_late_bound_consts", [](VirtualMachineNode*, TVMArgs, TVMRetValue*) {}},
    {"profile", ProfileReport<false>},
    {"profile_rpc", ProfileReport<true>},
};

PackedFunc VirtualMachineNode::GetFunction(const std::string& name, const ObjectPtr<ModuleNode>& self) {
  return MethodOf(kMethods, this, name, self);
}

}  // namespace

ObjectPtr<ModuleNode> MakeVirtualMachine(std::shared_ptr<const LoadedExecutable> exe) {
  return MakeObject<VirtualMachineNode>(std::move(exe));
}

}  // namespace vm

OperatorProfile ProfileVM(const Module& vm, const std::string& func, const OperatorProfileOptions& options) {
  auto* node = dynamic_cast<vm::VirtualMachineNode*>(vm.node().get());
  AOTRT_REQUIRE(node, kInvalidArgument, "ProfileVM: expected a VirtualMachine module (vm_load_executable()), got ",
                vm.defined() ? StrCat("a ", vm.type_key(), " module") : "an empty one");
  return node->Profile(func, options);
}
}  // namespace aotrt
