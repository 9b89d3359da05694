// The Relay VM interpreter: one loop over an executable's instructions, registers holding tensors,
// tuples (ADT), closures and storages. One Interpreter per thread: it owns its registers, frames
// and storages; the executable and its kernels are shared read-only.
#pragma once

#include <memory>
#include <vector>

#include "aotrt/container.h"
#include "aotrt/module.h"
#include "aotrt/profiling.h"
#include "vm/executable.h"

namespace aotrt {
namespace vm {

// An executable with its kernel library and every primitive resolved (by VMExecutableNode).
struct LoadedExecutable {
  Executable exe;
  std::vector<PackedFunc> primitives;
};

// A new array on `dev` holding the values of `t`.
inline NDArray CopyOn(const DLTensor& t, DLDevice dev) {
  NDArray a = NDArray::Empty(std::vector<int64_t>(t.shape, t.shape + t.ndim), t.dtype, dev);
  a.CopyFrom(t);
  return a;
}

// Register objects of the VM's own (never handed to callers).
enum VMTypeIndex : uint32_t { kTypeVMStorage = 0x7F01, kTypeVMClosure = 0x7F02 };

// A storage and the tensors made of it in the last run, reused in order while no one else holds them.
class StorageObj : public Object {
 public:
  StorageObj(NDArray b, int64_t n) : Object(kTypeVMStorage), buffer(std::move(b)), bytes(n) {}
  const NDArray buffer;
  const int64_t bytes;  // rounded up (Interpreter::AllocStorage)
  std::vector<ObjectPtr<NDArrayObj>> views;
  size_t next_view = 0;
  // Whether only the VM's cache holds it and every tensor made of it: then it may be handed out again.
  bool Idle() const {
    if (use_count() != 1 || buffer.object()->use_count() != static_cast<int32_t>(1 + views.size())) return false;
    for (const auto& v : views) {
      if (v->use_count() != 1) return false;
    }
    return true;
  }
};

class ClosureObj : public Object {
 public:
  ClosureObj() : Object(kTypeVMClosure) {}
  size_t func = 0;
  std::vector<ObjectPtr<Object>> free_vars;  // set by AllocClosure; the VM reuses idle closures
};

class Interpreter {
 public:
  explicit Interpreter(std::shared_ptr<const LoadedExecutable> exe);
  // The physical device of each virtual device (TVM's init: matched by device type). Throws
  // kInvalidArgument when one has no match, kNotFound / kNotImplemented for a device this machine
  // or aotrt lacks (the CPU and OpenCL run).
  void Init(const std::vector<DLDevice>& physical);
  bool initialized() const { return initialized_; }
  // The physical device of virtual device `i` (after Init).
  DLDevice device(size_t i) const { return devices_[i]; }
  // Run function `func` on `args` (one per parameter) and return its result. `outputs` (TVM's
  // set_outputs; may be null): tensors `func` writes its results into where it makes them itself
  // (AllocTensor in `func`, of a result, a tuple's field or a reshape's source: OutputRegisters).
  // Throws kModelError (a kernel failed, Fatal), kTypeMismatch (a register holds the wrong kind of
  // value), kShapeMismatch (an output given unlike the result), kOutOfMemory; the interpreter stays usable.
  ObjectPtr<Object> Invoke(size_t func, const std::vector<ObjectPtr<Object>>& args,
                           const std::vector<NDArray>* outputs = nullptr);
  const LoadedExecutable& loaded() const { return *exe_; }
  // While set (one line per primitive), each kernel call adds its milliseconds (a device's work
  // awaited) to mean_ms and 1 to samples of its primitive's line.
  std::vector<OperatorCost>* timing = nullptr;

 private:
  struct Frame {
    size_t func, pc, base;
    int64_t dst;  // the caller's register for the result
  };
  ObjectPtr<Object> Run();
  void Call(size_t func, const int64_t* arg_regs, int64_t n, const std::vector<ObjectPtr<Object>>* first, int64_t dst);
  void InvokePacked(const int64_t* f);
  void AllocStorage(const int64_t* f);
  // A tensor of shape_ and `dtype` at `offset` in `s`: the one made there last run when idle.
  NDArrayObj* View(StorageObj* s, int64_t offset, DLDataType dtype);
  // The tensor set_outputs gave for register `r` of the invoked function (checked against `made`), else `made`.
  ObjectPtr<Object> GivenOutput(int64_t r, NDArrayObj* made);
  ObjectPtr<Object>& R(int64_t r) { return regs_[base_ + r]; }
  [[noreturn]] void Fail(ErrorCode code, const std::string& message) const;
  // Register `r`'s object when it is of `type`, else kTypeMismatch (`role` names the register).
  Object* Expect(int64_t r, uint32_t type, const char* role);
  NDArrayObj* Tensor(int64_t r, const char* role) { return static_cast<NDArrayObj*>(Expect(r, kTypeNDArray, role)); }
  int64_t ScalarInt(int64_t r, const char* role);
  // Register `r`'s tensor, copied to the host when it lives on a device (valid until the next call).
  const DLTensor& OnHost(int64_t r, const char* role);
  void ShapeFrom(int64_t r);  // into shape_

  std::shared_ptr<const LoadedExecutable> exe_;
  bool initialized_ = false;
  std::vector<DLDevice> devices_;  // per virtual device
  NDArray host_copy_;              // OnHost's
  std::vector<ObjectPtr<Object>> regs_;
  std::vector<Frame> frames_;
  // Per function and pc, what an instruction made in earlier runs, to be reused once idle.
  struct Slot {
    ObjectPtr<Object> obj;                    // LoadConsti, ShapeOf, GetTag, ReshapeTensor's tensor
    const Object* src = nullptr;              // ReshapeTensor's source (pinned by obj)
    std::vector<ObjectPtr<Object>> kept;      // AllocStorage's storages, AllocClosure's closures, AllocADT's tuples
  };
  Slot& slot() { return cache_[func_][pc_]; }
  NDArrayObj* Scratch(Slot& s, const int64_t* shape, int ndim, DLDataType dtype);
  // An object this instruction made in an earlier run that `idle` accepts, else `make()`, kept
  // for later runs (a few per instruction: a loop's iterations may hold several at once).
  template <class T, class Idle, class Make>
  ObjectPtr<T> Reuse(Idle idle, Make make);
  std::vector<std::vector<Slot>> cache_;
  std::vector<Object*> holders_;  // every cached closure and tuple: let go of their values when idle
  void ReleaseIdleHolders();
  std::vector<std::pair<int64_t, NDArray>> given_;  // set_outputs: register of the invoked function, tensor
  std::vector<TVMValue> values_;
  std::vector<int> codes_;
  std::vector<int64_t> shape_;
  size_t func_ = 0, pc_ = 0, base_ = 0;
};

}  // namespace vm
}  // namespace aotrt
