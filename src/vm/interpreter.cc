// The run loop of TVM's VirtualMachine::RunLoop (src/runtime/vm/vm.cc), over the fields validated at
// load: every register, constant, function, primitive and jump is known to be in range here.
#include "vm/interpreter.h"

#include <algorithm>
#include <cstring>

#include "aotrt/dtype.h"

#include "base/device.h"
#include "device/device_api.h"
#include "base/error_util.h"

namespace aotrt {
namespace vm {
namespace {
constexpr DLDataType kI64{kDLInt, 64, 1};
constexpr DLDataType kI32{kDLInt, 32, 1};

// TVM's set_outputs rule: the registers of `fn` whose AllocTensor(Reg) makes its results: the one
// its first Ret returns, that tuple's fields, or that reshape's source (by the instruction making it).
std::vector<int64_t> OutputRegisters(const VMFunction& fn) {
  size_t ret = 0;
  while (fn.code[ret].op != Opcode::kRet) if (++ret == fn.code.size()) return {};
  int64_t r = fn.Fields(fn.code[ret])[0];
  for (const Instruction& in : fn.code) {
    const int64_t* f = fn.Fields(in);
    if ((in.op == Opcode::kAllocTensor || in.op == Opcode::kAllocTensorReg) && f[6] == r) return {r};
    if (in.op == Opcode::kAllocADT && f[2] == r) return std::vector<int64_t>(f + 3, f + 3 + f[1]);
    if (in.op == Opcode::kReshapeTensor && f[2] == r) return {f[0]};
  }
  return {};
}

const char* KindName(uint32_t t) {
  return t == kTypeNDArray ? "a tensor" : t == kTypeADT ? "a tuple" : t == kTypeVMStorage ? "a storage"
                           : t == kTypeVMClosure ? "a closure" : "an object";
}
const char* KindOf(const Object* o) { return o ? KindName(o->type_index()) : "nothing"; }

// Whether `t`, made by an earlier run, is idle and of this shape and dtype: then it may be handed out again.
bool Reusable(const NDArrayObj* t, const int64_t* shape, size_t ndim, DLDataType dtype) {
  return t && t->use_count() == 1 && static_cast<size_t>(t->dl_tensor.ndim) == ndim &&
         DataTypeEqual(t->dl_tensor.dtype, dtype) && std::equal(shape, shape + ndim, t->dl_tensor.shape);
}
}  // namespace

Interpreter::Interpreter(std::shared_ptr<const LoadedExecutable> exe)
    : exe_(std::move(exe)) {
  for (const VMFunction& fn : exe_->exe.functions) cache_.emplace_back(fn.code.size());
}

void Interpreter::Init(const std::vector<DLDevice>& physical) {
  const std::vector<VirtualDevice>& devices = exe_->exe.devices;
  std::vector<DLDevice> found;
  for (size_t i = 0; i < devices.size(); ++i) {
    int want = DeviceTypeOf(devices[i].device);
    auto match = std::find_if(physical.begin(), physical.end(), [want](const DLDevice& d) { return DeviceTypeOf(d) == want; });
    AOTRT_REQUIRE(match != physical.end(), kInvalidArgument, "VM init: no device of type ", want, " among the ",
                  physical.size(), " given for virtual device ", i, " of the executable");
    if (match->device_type == kDLCPU) {
      AOTRT_REQUIRE(IsAcceptedCpuDevice(*match), kNotImplemented, "VM init: virtual device ", i, " is CPU ",
                    match->device_id, "; aotrt runs on CPU 0");
    } else {
      RequireDevice(*match, StrCat("VM virtual device ", i));
    }
    found.push_back(*match);
  }
  devices_ = std::move(found);
  initialized_ = true;
}

void Interpreter::Fail(ErrorCode code, const std::string& message) const {
  const VMFunction& fn = exe_->exe.functions[func_];
  throw Error(code, StrCat("VM function '", fn.name, "' instruction ", pc_, " (", OpcodeName(fn.code[pc_].op), "): ", message));
}

Object* Interpreter::Expect(int64_t r, uint32_t type, const char* role) {
  Object* o = R(r).get();
  if (!o || o->type_index() != type) {
    Fail(ErrorCode::kTypeMismatch, StrCat(role, " register ", r, " holds ", KindOf(o), ", expected ", KindName(type)));
  }
  return o;
}

const DLTensor& Interpreter::OnHost(int64_t r, const char* role) {
  NDArrayObj* t = Tensor(r, role);
  if (IsAcceptedCpuDevice(t->dl_tensor.device)) return t->dl_tensor;
  host_copy_ = CopyOn(t->dl_tensor, DLDevice{kDLCPU, 0});
  return host_copy_.tensor();
}

int64_t Interpreter::ScalarInt(int64_t r, const char* role) {
  const DLTensor& t = OnHost(r, role);
  if (ShapeElements(t.shape, t.ndim) < 1 ||
      (t.dtype.code != kDLInt && t.dtype.code != kDLUInt && t.dtype.code != 6 /* kDLBool */)) {
    Fail(ErrorCode::kTypeMismatch, StrCat(role, " register ", r, " is not an integer scalar"));
  }
  const char* p = static_cast<const char*>(t.data) + t.byte_offset;
  switch (t.dtype.bits) {
    case 1: case 8: return t.dtype.code == kDLInt ? *reinterpret_cast<const int8_t*>(p) : *reinterpret_cast<const uint8_t*>(p);
    case 16: return *reinterpret_cast<const int16_t*>(p);
    case 32: return *reinterpret_cast<const int32_t*>(p);
    case 64: return *reinterpret_cast<const int64_t*>(p);
    default: Fail(ErrorCode::kTypeMismatch, StrCat(role, " register ", r, " has ", static_cast<int>(t.dtype.bits), "-bit integers"));
  }
}

void Interpreter::ShapeFrom(int64_t r) {
  const DLTensor& t = OnHost(r, "shape");
  if (t.ndim != 1 || t.dtype.code != kDLInt || t.dtype.bits != 64) {
    Fail(ErrorCode::kTypeMismatch, StrCat("shape register ", r, " is not a 1-D int64 tensor"));
  }
  const int64_t* d = reinterpret_cast<const int64_t*>(static_cast<const char*>(t.data) + t.byte_offset);
  shape_.assign(d, d + t.shape[0]);
}

NDArrayObj* Interpreter::Scratch(Slot& s, const int64_t* shape, int ndim, DLDataType dtype) {
  auto* t = static_cast<NDArrayObj*>(s.obj.get());
  if (Reusable(t, shape, static_cast<size_t>(ndim), dtype)) return t;
  s.obj = NDArray::Empty(std::vector<int64_t>(shape, shape + ndim), dtype).object();
  return static_cast<NDArrayObj*>(s.obj.get());
}

ObjectPtr<Object> Interpreter::Invoke(size_t func, const std::vector<ObjectPtr<Object>>& args,
                                      const std::vector<NDArray>* outputs) {
  AOTRT_REQUIRE(initialized_, kInvalidArgument, "the VM is not initialized: call init(device_type, device_id, allocator_type, ...) first");
  const VMFunction& fn = exe_->exe.functions[func];
  AOTRT_REQUIRE(args.size() == fn.params.size(), kInvalidArgument, "VM function '", fn.name, "' takes ",
                fn.params.size(), " arguments, got ", args.size());
  ReleaseIdleHolders();
  std::vector<int64_t> regs = outputs ? OutputRegisters(fn) : std::vector<int64_t>();
  for (size_t k = 0; k < regs.size() && regs.size() == outputs->size(); ++k) given_.emplace_back(regs[k], (*outputs)[k]);
  frames_.clear();
  base_ = 0, func_ = func, pc_ = 0;
  Call(func, nullptr, 0, &args, -1);
  try {
    ObjectPtr<Object> result = Run();
    given_.clear();
    return result;
  } catch (...) {
    for (ObjectPtr<Object>& r : regs_) r.reset();
    frames_.clear();
    given_.clear();
    throw;
  }
}

// A cached closure or tuple no one holds lets go of its values, so that their storages are idle too.
void Interpreter::ReleaseIdleHolders() {
  for (Object* o : holders_) {
    if (o->use_count() != 1) continue;
    if (o->type_index() == kTypeADT) static_cast<ADTObj*>(o)->fields.clear();
    if (o->type_index() == kTypeVMClosure) static_cast<ClosureObj*>(o)->free_vars.clear();
  }
}

template <class T, class Idle, class Make>
ObjectPtr<T> Interpreter::Reuse(Idle idle, Make make) {
  std::vector<ObjectPtr<Object>>& kept = slot().kept;
  for (const ObjectPtr<Object>& o : kept) {
    if (idle(static_cast<T*>(o.get()))) return ObjectPtr<T>(static_cast<T*>(o.get()));
  }
  ObjectPtr<T> made = make();
  if (kept.size() < 16) {
    kept.push_back(made);
    if (made->type_index() != kTypeVMStorage) holders_.push_back(made.get());
  }
  return made;
}

ObjectPtr<Object> Interpreter::GivenOutput(int64_t r, NDArrayObj* made) {
  const DLTensor& m = made->dl_tensor;
  auto text = [](const DLTensor& t) { return StrCat(DataTypeToString(t.dtype), ShapeToString(t.shape, t.ndim), IsContiguous(t) ? "" : " strided", " on ", DeviceName(t.device)); };
  for (size_t k = 0; k < given_.size(); ++k) {
    const DLTensor& g = given_[k].second.tensor();
    if (given_[k].first != r) continue;
    if (!DataTypeEqual(g.dtype, m.dtype) || ShapeElements(g.shape, g.ndim) != ShapeElements(m.shape, m.ndim) || !IsContiguous(g) || DeviceName(g.device) != DeviceName(m.device)) {
      Fail(ErrorCode::kShapeMismatch, StrCat("set_outputs: output ", k, " is ", text(g), ", the function makes ", text(m)));
    }
    if (g.ndim == m.ndim && std::equal(m.shape, m.shape + m.ndim, g.shape)) return given_[k].second.object();
    return given_[k].second.CreateView(shape_, m.dtype).object();  // a reshape's source
  }
  return ObjectPtr<Object>(made);
}

void Interpreter::Call(size_t func, const int64_t* arg_regs, int64_t n, const std::vector<ObjectPtr<Object>>* first, int64_t dst) {
  const VMFunction& callee = exe_->exe.functions[func];
  size_t base = frames_.empty() ? 0 : base_ + static_cast<size_t>(exe_->exe.functions[func_].num_registers);
  int64_t total = n + (first ? static_cast<int64_t>(first->size()) : 0);
  if (total != static_cast<int64_t>(callee.params.size())) {
    Fail(ErrorCode::kInvalidArgument, StrCat("calls '", callee.name, "' with ", total, " arguments, it takes ", callee.params.size()));
  }
  if (frames_.size() >= 100000 || base + callee.num_registers > (size_t{1} << 24)) {
    Fail(ErrorCode::kModelError, StrCat("calling '", callee.name, "' at depth ", frames_.size(), " needs ",
                                        base + callee.num_registers, " registers: more than the VM's 16777216"));
  }
  if (regs_.size() < base + callee.num_registers) regs_.resize(base + callee.num_registers);
  size_t k = base;
  if (first) {
    for (const ObjectPtr<Object>& o : *first) regs_[k++] = o;
  }
  for (int64_t i = 0; i < n; ++i) regs_[k++] = R(arg_regs[i]);
  frames_.push_back(Frame{func_, pc_ + 1, base_, dst});
  func_ = func, pc_ = 0, base_ = base;
}

void Interpreter::InvokePacked(const int64_t* f) {
  int64_t arity = f[1], outputs = f[2];
  size_t k = 0;
  bool empty_output = false;
  for (int64_t i = 0; i < arity; ++i) {
    Object* o = R(f[3 + i]).get();
    size_t need = k + (o && o->type_index() == kTypeADT ? static_cast<ADTObj*>(o)->fields.size() : 1);
    if (values_.size() < need) values_.resize(need), codes_.resize(need);
    if (o && o->type_index() == kTypeADT) {
      for (const ObjectPtr<Object>& field : static_cast<ADTObj*>(o)->fields) {
        if (!field || field->type_index() != kTypeNDArray) Fail(ErrorCode::kTypeMismatch, StrCat("argument register ", f[3 + i], " is a tuple holding ", KindOf(field.get())));
        values_[k].v_handle = &static_cast<NDArrayObj*>(field.get())->dl_tensor, codes_[k++] = kTVMNDArrayHandle;
      }
      continue;
    }
    DLTensor* t = &Tensor(f[3 + i], "argument")->dl_tensor;
    if (i == arity - 1 && outputs == 1) {
      for (int d = 0; d < t->ndim; ++d) empty_output |= t->shape[d] == 0;
    }
    values_[k].v_handle = t, codes_[k++] = kTVMNDArrayHandle;
  }
  if (empty_output) return;
  TVMRetValue rv;
  auto call = [&] { exe_->primitives[f[0]].CallPacked(TVMArgs(values_.data(), codes_.data(), static_cast<int>(k)), &rv); };
  if (!timing) return call();
  // Timed by the device of its last argument (an output): the CPU's clock, a GPU's events.
  DLDevice dev = static_cast<const DLTensor*>(values_[k - 1].v_handle)->device;
  (*timing)[f[0]].mean_ms += RequireDevice(dev, "VM profile").TimeOnDevice(dev.device_id, call);
  ++(*timing)[f[0]].samples;
}

void Interpreter::AllocStorage(const int64_t* f) {
  DLDataType hint{static_cast<uint8_t>(f[2]), static_cast<uint8_t>(f[3]), static_cast<uint16_t>(f[4])};
  int64_t size;
  if (f[6] > 0) {
    size = (hint.bits * hint.lanes + 7) / 8;
    for (int64_t i = 0; i < f[6]; ++i) {
      if (f[8 + i] && size > (int64_t{1} << 46) / f[8 + i]) Fail(ErrorCode::kOutOfMemory, "storage shape too large");
      size *= f[8 + i];
    }
  } else {
    size = ScalarInt(f[0], "storage size");
  }
  if (size < 0 || size >= (int64_t{1} << 46)) Fail(ErrorCode::kOutOfMemory, StrCat("storage of ", size, " bytes asked for"));
  // Sizes round up to 64 bytes, and to pages from a page on or for an alignment over 64, as TVM's
  // pooled allocator does: storages of one rounded size are interchangeable.
  int64_t unit = size >= 4096 || f[1] > 64 ? 4096 : 64;
  int64_t bytes = std::max(unit, (size + unit - 1) / unit * unit);
  ObjectPtr<StorageObj> s = Reuse<StorageObj>([bytes](StorageObj* s) { return s->bytes == bytes && s->Idle(); }, [&] {
    // Elements of `unit` bytes: NDArray::Empty aligns an array to its element size (TVM's rule).
    DLDataType block{kDLUInt, 8, static_cast<uint16_t>(unit)};
    return MakeObject<StorageObj>(NDArray::Empty({bytes / unit}, block, devices_[f[5]]), bytes);
  });
  s->next_view = 0;
  R(f[7]) = std::move(s);
}

NDArrayObj* Interpreter::View(StorageObj* s, int64_t offset, DLDataType dtype) {
  size_t i = s->next_view++;
  const char* at = static_cast<const char*>(s->buffer.data()) + offset;
  if (i < s->views.size() && Reusable(s->views[i].get(), shape_.data(), shape_.size(), dtype) &&
      static_cast<const char*>(s->views[i]->dl_tensor.data) + s->views[i]->dl_tensor.byte_offset == at) {
    return s->views[i].get();
  }
  ObjectPtr<NDArrayObj> view = s->buffer.CreateView(shape_, dtype, static_cast<size_t>(offset)).object();
  if (i == s->views.size()) s->views.emplace_back();
  s->views[i] = view;
  return view.get();
}

ObjectPtr<Object> Interpreter::Run() {
  const std::vector<VMFunction>& fns = exe_->exe.functions;
  for (;;) {
    const VMFunction& fn = fns[func_];
    const Instruction& in = fn.code[pc_];
    const int64_t* f = fn.Fields(in);
    switch (in.op) {
      case Opcode::kMove: R(f[1]) = R(f[0]); break;
      case Opcode::kRet: {
        ObjectPtr<Object> result = R(f[0]);
        for (int64_t i = 0; i < fn.num_registers; ++i) regs_[base_ + i].reset();
        Frame fr = frames_.back();
        frames_.pop_back();
        if (frames_.empty()) return result;
        func_ = fr.func, pc_ = fr.pc, base_ = fr.base;
        R(fr.dst) = std::move(result);
        continue;
      }
      case Opcode::kFatal: Fail(ErrorCode::kModelError, "the program reached Fatal");
      case Opcode::kInvokePacked: InvokePacked(f); break;
      case Opcode::kInvoke: Call(static_cast<size_t>(f[0]), f + 3, f[1], nullptr, f[2]); continue;
      case Opcode::kInvokeClosure: {
        ObjectPtr<ClosureObj> c(static_cast<ClosureObj*>(Expect(f[0], kTypeVMClosure, "closure")));
        Call(c->func, f + 3, f[1], &c->free_vars, f[2]);
        continue;
      }
      case Opcode::kAllocStorage: AllocStorage(f); break;
      case Opcode::kAllocTensor:
      case Opcode::kAllocTensorReg: {
        bool reg = in.op == Opcode::kAllocTensorReg;
        Object* s = Expect(f[0], kTypeVMStorage, "storage");
        int64_t offset = ScalarInt(f[1], "offset");
        const int64_t* d = f + (reg ? 3 : 2);
        DLDataType dtype{static_cast<uint8_t>(d[0]), static_cast<uint8_t>(d[1]), static_cast<uint16_t>(d[2])};
        reg ? ShapeFrom(f[2]) : shape_.assign(f + 7, f + 7 + f[5]);
        if (offset < 0) Fail(ErrorCode::kOutOfRange, StrCat("negative offset ", offset));
        NDArrayObj* t = View(static_cast<StorageObj*>(s), offset, dtype);
        R(f[6]) = given_.empty() || frames_.size() != 1 ? ObjectPtr<Object>(t) : GivenOutput(f[6], t);
        break;
      }
      case Opcode::kAllocADT:
      case Opcode::kAllocClosure: {
        auto idle = [](Object* o) { return o->use_count() == 1; };
        std::vector<ObjectPtr<Object>>* values;
        ObjectPtr<Object> made;
        if (in.op == Opcode::kAllocADT) {
          auto t = Reuse<ADTObj>(idle, [f] { return MakeObject<ADTObj>(static_cast<int32_t>(f[0]), std::vector<ObjectPtr<Object>>()); });
          values = &t->fields, made = std::move(t);
        } else {
          auto c = Reuse<ClosureObj>(idle, [] { return MakeObject<ClosureObj>(); });
          c->func = static_cast<size_t>(f[0]);
          values = &c->free_vars, made = std::move(c);
        }
        values->resize(static_cast<size_t>(f[1]));
        for (int64_t i = 0; i < f[1]; ++i) (*values)[i] = R(f[3 + i]);
        R(f[2]) = std::move(made);
        break;
      }
      case Opcode::kGetField:
      case Opcode::kGetTag: {
        const ADTObj* adt = static_cast<const ADTObj*>(Expect(f[0], kTypeADT, "tuple"));
        if (in.op == Opcode::kGetTag) {
          const int64_t one = 1;
          NDArrayObj* t = Scratch(slot(), &one, 1, kI32);
          *static_cast<int32_t*>(t->dl_tensor.data) = adt->tag;
          R(f[1]) = ObjectPtr<Object>(t);
          break;
        }
        if (static_cast<size_t>(f[1]) >= adt->fields.size()) Fail(ErrorCode::kOutOfRange, StrCat("field ", f[1], " of a tuple of ", adt->fields.size()));
        R(f[2]) = adt->fields[f[1]];  // copied before the register (perhaps the tuple's) lets go
        break;
      }
      case Opcode::kIf:
        pc_ += static_cast<int32_t>(ScalarInt(f[0], "test")) == static_cast<int32_t>(ScalarInt(f[1], "target")) ? f[2] : f[3];
        continue;
      case Opcode::kGoto: pc_ += f[0]; continue;
      case Opcode::kLoadConst: {
        const NDArray& c = exe_->exe.constants[f[0]];
        if (!c.defined()) Fail(ErrorCode::kInvalidArgument, StrCat("constant ", f[0], " is late-bound ('", exe_->exe.late_bound[f[0]], "') and was not loaded"));
        DLDevice dev = devices_[f[1]];
        if (dev.device_type == kDLCPU) {
          R(f[2]) = c.object();
          break;
        }
        Slot& copy = slot();  // the constant on its device, copied once per VM
        if (!copy.obj) copy.obj = CopyOn(c.tensor(), dev).object();
        R(f[2]) = copy.obj;
        break;
      }
      case Opcode::kLoadConsti: {
        // Made once and shared, like the constant pool: no kernel writes its inputs.
        Slot& c = slot();
        if (!c.obj) {
          NDArray t = NDArray::Empty({1}, kI64);
          *static_cast<int64_t*>(t.data()) = f[0];
          c.obj = t.object();
        }
        R(f[1]) = c.obj;
        break;
      }
      case Opcode::kShapeOf: {
        const DLTensor& src = Tensor(f[0], "input")->dl_tensor;
        const int64_t ndim = src.ndim;
        NDArrayObj* t = Scratch(slot(), &ndim, 1, kI64);
        if (ndim) std::memcpy(t->dl_tensor.data, src.shape, sizeof(int64_t) * ndim);
        R(f[1]) = ObjectPtr<Object>(t);
        break;
      }
      case Opcode::kReshapeTensor: {
        NDArrayObj* in = Tensor(f[0], "input");
        ShapeFrom(f[1]);
        Slot& c = slot();
        auto* t = static_cast<NDArrayObj*>(c.obj.get());
        if (c.src != in || !Reusable(t, shape_.data(), shape_.size(), in->dl_tensor.dtype)) {
          c.obj = NDArray(ObjectPtr<NDArrayObj>(in)).CreateView(shape_, in->dl_tensor.dtype).object();
          c.src = in;
        }
        R(f[2]) = c.obj;
        break;
      }
      case Opcode::kDeviceCopy:
        R(f[3]) = CopyOn(Tensor(f[0], "source")->dl_tensor, devices_[f[2]]).object();
        break;
      case Opcode::kKillRegister: R(f[0]).reset(); break;
      default: Fail(ErrorCode::kFormatError, "unknown opcode");
    }
    ++pc_;
  }
}

}  // namespace vm
}  // namespace aotrt
