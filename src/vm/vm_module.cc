#include "vm/vm_module.h"

#include <algorithm>
#include <map>
#include <tuple>

#include "aotrt/container.h"
#include "aotrt/vm.h"
#include "base/device.h"
#include "base/error_util.h"
#include "device/device_api.h"
#include "executor/executor_module.h"
#include "ffi/registry.h"
#include "profiling/internal.h"

namespace aotrt {
namespace vm {

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
    ObjectPtr<Object> o = a.type_code() == kTVMDLTensorHandle
                              ? ObjectPtr<Object>(CopyOn(*a.AsDLTensor(), DLDevice{kDLCPU, 0}).object())
                              : a.AsObject();  // an NDArray's handle too
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
    auto in = inputs_.find(fn);
    auto outs = outputs_.find(fn);
    std::vector<NDArray> given;
    if (outs != outputs_.end()) given.swap(outs->second), outputs_.erase(outs);  // one invoke only
    Invoke(i, in == inputs_.end() ? nullptr : &in->second, given);
  }
  // Function `i` on `in` (null: none set); the tensors of its result flattened into results_. Results it did
  // not make in the tensors `given` (a callee's, a constant) are copied in.
  void Invoke(size_t i, const std::vector<ObjectPtr<Object>>* in, std::vector<NDArray>& given) {
    static const std::vector<ObjectPtr<Object>> kNone;
    const VMFunction& f = vm_.loaded().exe.functions[i];
    if (!f.params.empty()) {
      AOTRT_REQUIRE(in, kInvalidArgument, "Input has not been set for function ", f.name);
      for (size_t k = 0; k < in->size(); ++k) {
        AOTRT_REQUIRE((*in)[k], kInvalidArgument, "input ", k, " ('", f.params[k], "') of function ", f.name,
                      " has not been set");
      }
    }
    results_.clear();
    result_ = vm_.Invoke(i, in ? *in : kNone, given.empty() ? nullptr : &given);
    Flatten(result_.get(), &results_);
    if (given.empty()) return;
    AOTRT_REQUIRE(results_.size() == given.size(), kInvalidArgument, "set_outputs / SetOutputZeroCopy gave ",
                  given.size(), " tensors for the ", results_.size(), " outputs of function ", f.name);
    for (size_t k = 0; k < given.size(); ++k) {
      NDArray r{ObjectPtr<NDArrayObj>(results_[k])};
      if (r.data() == given[k].data()) continue;
      const DLTensor &g = given[k].tensor(), &m = r.tensor();
      AOTRT_REQUIRE(std::equal(g.shape, g.shape + g.ndim, m.shape, m.shape + m.ndim), kShapeMismatch, "output ", k,
                    " of function ", f.name, " is ", ShapeToString(m.shape, m.ndim), ", the tensor given ",
                    ShapeToString(g.shape, g.ndim));
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

  friend class VMExecutor;
  friend ModelInfo ModelInfoOfExecutable(const Module& executable);
  static const NodeMethod<VirtualMachineNode> kMethods[];
  Interpreter vm_;
  std::map<std::string, std::vector<ObjectPtr<Object>>> inputs_;
  std::map<std::string, std::vector<NDArray>> outputs_;  // set_outputs, for the next invoke
  ObjectPtr<Object> result_;
  std::vector<NDArrayObj*> results_;  // the tensors of result_, depth-first
};

namespace {

// TVM's VirtualMachineDebug: 3 runs to warm up, one profiled; its Report (collectors ignored), or
// (profile_rpc) the report's JSON.
template <bool kJson>
void ProfileReport(VirtualMachineNode* vm, TVMArgs args, TVMRetValue* rv) {
  OperatorProfileOptions o;
  o.runs = 1, o.warmup = 3;
  ObjectPtr<ProfileReportObj> report = MakeProfileReport(vm->Profile(args[0].AsString(), o));
  kJson ? rv->SetString(report->json) : rv->SetObject(report, kTVMObjectHandle);
}

}  // namespace

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

ObjectPtr<ModuleNode> MakeVirtualMachine(std::shared_ptr<const LoadedExecutable> exe) {
  return MakeObject<VirtualMachineNode>(std::move(exe));
}

namespace {

// A new VirtualMachine of `executable` (vm_load_executable) and its node.
std::pair<Module, VirtualMachineNode*> LoadVM(const Module& executable) {
  TVMRetValue rv;
  executable.GetFunctionOrThrow("vm_load_executable").CallPacked(TVMArgs(nullptr, nullptr, 0), &rv);
  Module vm(ObjectPtr<ModuleNode>(static_cast<ModuleNode*>(rv.value().v_handle)));
  return {vm, static_cast<VirtualMachineNode*>(vm.node().get())};
}

}  // namespace

ModelInfo ModelInfoOfExecutable(const Module& executable) {
  auto [vm, node] = LoadVM(executable);  // checks what vm_load_executable checks
  const Executable& exe = node->vm_.loaded().exe;
  int64_t main = exe.FunctionIndex("main");
  AOTRT_REQUIRE(main >= 0, kNotFound, "the VM executable has no function 'main' (its functions: ", exe.functions.size(), ")");
  ModelInfo info;
  info.name = "main";
  info.interface = "vm";
  for (const std::string& p : exe.functions[main].params) {
    info.inputs.push_back(TensorInfo{p, {}, DLDataType{0, 0, 0}, 0, false, true});
  }
  return info;
}

VMExecutor::VMExecutor(const Module& executable, ModelInfo info, DLDevice device) : info_(std::move(info)) {
  std::tie(module_, vm_) = LoadVM(executable);
  const Executable& exe = vm_->vm_.loaded().exe;
  int want = kDLCPU;  // the export's device: a GPU where a virtual device is one, else the CPU
  for (const VirtualDevice& d : exe.devices) want = DeviceTypeOf(d.device) == kDLCPU ? want : DeviceTypeOf(d.device);
  AOTRT_REQUIRE(DeviceTypeOf(device) == want, kInvalidArgument, "the VM export runs on device type ", want, " (",
                DeviceName(DLDevice{static_cast<DLDeviceType>(want), 0}), "), not on ", DeviceName(device),
                ": create its executor on a device of its type");
  std::vector<DLDevice> devices{device};
  if (want != kDLCPU) devices.push_back(DLDevice{kDLCPU, 0});  // shape functions
  vm_->vm_.Init(devices);
  main_ = static_cast<size_t>(exe.FunctionIndex("main"));
  inputs_ = &vm_->inputs_["main"];
  inputs_->resize(info_.inputs.size());
  copies_.resize(info_.inputs.size());
}

void VMExecutor::SetInput(size_t i, const DLTensor& t, bool zero_copy) {
  AOTRT_REQUIRE(i < info_.inputs.size(), kOutOfRange, "input index ", i, " out of range [0, ", info_.inputs.size(), ")");
  CheckTensorAgainstSpec("input", i, info_.inputs[i], t);
  DLDevice dev = vm_->vm_.device(static_cast<size_t>(vm_->vm_.loaded().exe.functions[main_].param_devices[i]));
  ObjectPtr<Object>& slot = (*inputs_)[i];
  if (zero_copy) {
    AOTRT_REQUIRE(SameDevice(t.device, dev) && reinterpret_cast<uintptr_t>(t.data) % 64 == 0, kInvalidArgument, "input ", i, " ('",
                  info_.inputs[i].name, "'): zero-copy takes a 64-byte aligned tensor on ", DeviceName(dev), " ",
                  dev.device_id, ", got one at ", t.data, " on ", DeviceName(t.device), " ", t.device.device_id);
    slot = NDArray::Borrow(t).object();
    return;
  }
  NDArray& copy = copies_[i];  // reused while the shape and dtype repeat
  const DLTensor* c = copy.handle();
  if (!c || c->ndim != t.ndim || !std::equal(t.shape, t.shape + t.ndim, c->shape) || !DataTypeEqual(c->dtype, t.dtype)) {
    copy = NDArray::Empty(std::vector<int64_t>(t.shape, t.shape + t.ndim), t.dtype, dev);
  }
  copy.CopyFrom(t);
  slot = copy.object();
}

void VMExecutor::SetOutput(size_t i, const DLTensor& t) {
  AOTRT_REQUIRE(IsContiguous(t) && t.data, kInvalidArgument, "output ", i, ": a contiguous tensor with data is needed");
  if (given_outputs_.size() <= i) given_outputs_.resize(i + 1);
  given_outputs_[i] = NDArray::Borrow(t);
}

NDArray VMExecutor::GetInput(size_t i) const {
  AOTRT_REQUIRE(i < info_.inputs.size(), kOutOfRange, "input index ", i, " out of range [0, ", info_.inputs.size(), ")");
  const ObjectPtr<Object>& in = (*inputs_)[i];
  AOTRT_REQUIRE(in && in->type_index() == kTypeNDArray, kInvalidArgument, "input ", i, " ('", info_.inputs[i].name,
                "') has not been set");
  return NDArray(ObjectPtr<NDArrayObj>(static_cast<NDArrayObj*>(in.get())));
}

NDArray VMExecutor::GetOutput(size_t i) const {
  AOTRT_REQUIRE(i < vm_->results_.size(), kOutOfRange, "output index ", i, " out of range [0, ", vm_->results_.size(),
                ")", vm_->result_ ? "" : ": a VM's outputs are known once it has run");
  return NDArray(ObjectPtr<NDArrayObj>(vm_->results_[i]));
}

void VMExecutor::Run() {
  for (size_t k = 0; k < given_outputs_.size(); ++k) {
    AOTRT_REQUIRE(given_outputs_[k].defined(), kInvalidArgument, "output ", k, " has no tensor of the caller's: ",
                  "give every output's with SetOutputZeroCopy, or none");
  }
  vm_->Invoke(main_, inputs_, given_outputs_);
  const std::vector<NDArrayObj*>& r = vm_->results_;
  for (size_t k = info_.outputs.size(); k < r.size(); ++k) info_.outputs.push_back(TensorInfo{StrCat("output", k), {}, {}, 0});
  info_.outputs.resize(r.size());
  for (size_t k = 0; k < r.size(); ++k) {  // in place: no allocation once shapes repeat
    const DLTensor& t = r[k]->dl_tensor;
    info_.outputs[k].shape.assign(t.shape, t.shape + t.ndim);
    info_.outputs[k].dtype = t.dtype;
    info_.outputs[k].bytes = TensorBytes(t);
  }
}

void VMExecutor::Sync() const {
  for (size_t i = 0; i < vm_->vm_.loaded().exe.devices.size(); ++i) {
    DLDevice d = vm_->vm_.device(i);
    if (d.device_type != kDLCPU) RequireDevice(d, "VM").Sync(d.device_id, nullptr);
  }
}

}  // namespace vm

OperatorProfile ProfileVM(const Module& vm, const std::string& func, const OperatorProfileOptions& options) {
  auto* node = dynamic_cast<vm::VirtualMachineNode*>(vm.node().get());
  AOTRT_REQUIRE(node, kInvalidArgument, "ProfileVM: expected a VirtualMachine module (vm_load_executable()), got ",
                vm.defined() ? StrCat("a ", vm.type_key(), " module") : "an empty one");
  return node->Profile(func, options);
}
}  // namespace aotrt
