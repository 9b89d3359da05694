// The Relay VM module's profile, set_outputs and late-bound constants, and Model::Load's answer to
// a VM export, on the real TVM v0.14 exports of ../shared/fixtures/vm (skipped when absent).
#include <gtest/gtest.h>

#include <cstring>
#include <fstream>
#include <sstream>
#include <thread>

#include "aotrt/container.h"
#include "aotrt/model.h"
#include "aotrt/npy.h"
#include "aotrt/vm.h"
#include "common/expect_error.h"

using namespace aotrt;

namespace {

std::string Dir(const std::string& name) { return std::string(AOTRT_TEST_VM_FIXTURES_DIR) + "/" + name; }

#define VM_FIXTURES_OR_SKIP() \
  if (std::string(AOTRT_TEST_VM_FIXTURES_DIR).empty()) GTEST_SKIP() << "../shared/fixtures/vm not present"

Module Exe(const std::string& name) { return LoadVMExecutable(Dir(name) + "/code.ro", Dir(name) + "/lib.so"); }

// runtime.Load_Executable(code, lib) as TVM's Python calls it (code as bytes).
Module LoadExecutableGlobal(const std::string& code, const Module& lib) {
  TVMByteArray bytes{code.data(), code.size()};
  TVMValue v[2];
  int codes[2] = {kTVMBytes, kTVMModuleHandle};
  v[0].v_handle = &bytes;
  v[1].v_handle = lib.node().get();
  TVMRetValue rv;
  GetGlobalFunction("runtime.Load_Executable").CallPacked(TVMArgs(v, codes, 2), &rv);
  return rv.As<Module>();
}

// f(object), for the objects PackedFunc::operator() does not take (a Map).
void CallWithObject(const PackedFunc& f, const Object* o) {
  TVMValue v;
  v.v_handle = const_cast<Object*>(o);
  int code = kTVMObjectHandle;
  TVMRetValue rv;
  f.CallPacked(TVMArgs(&v, &code, 1), &rv);
}

// A VM over `exe` on the CPU with main's inputs from `file` set.
Module MakeVM(const Module& exe, const std::string& dir, const std::string& file = "inputs.npz") {
  Module vm = exe.GetFunctionOrThrow("vm_load_executable")().As<Module>();
  vm.GetFunctionOrThrow("init")(static_cast<int>(kDLCPU), 0, 2);
  std::vector<NamedArray> in = ReadNpz(dir + "/" + file);
  for (size_t i = 0; i < in.size(); ++i) vm.GetFunctionOrThrow("set_one_input")("main", static_cast<int64_t>(i), in[i].array);
  return vm;
}

bool SameBytes(const NDArray& a, const NDArray& b) {
  return a.Shape() == b.Shape() && a.NumBytes() == b.NumBytes() && std::memcmp(a.data(), b.data(), a.NumBytes()) == 0;
}

// invoke("main") on `vm` gives `expected` (a tuple flattened), bit for bit.
void ExpectMain(const Module& vm, const std::string& expected) {
  vm.GetFunctionOrThrow("invoke_stateful")("main");
  std::vector<NamedArray> want = ReadNpz(expected);
  ASSERT_EQ(vm.GetFunctionOrThrow("get_num_outputs")().As<int64_t>(), static_cast<int64_t>(want.size()));
  for (size_t i = 0; i < want.size(); ++i) {
    EXPECT_TRUE(SameBytes(vm.GetFunctionOrThrow("get_output")(static_cast<int64_t>(i)).As<NDArray>(), want[i].array)) << expected << " " << i;
  }
}

}  // namespace

// ---- profile: each primitive's time (aotrt::ProfileVM, and TVM's VirtualMachineDebug `profile`)

TEST(VMProfile, EveryPrimitiveOfARunTimed) {
  VM_FIXTURES_OR_SKIP();
  for (const char* name : {"v_add_split", "v_dyn_batch", "v_control"}) {
    SCOPED_TRACE(name);
    Module exe = Exe(name);
    Module vm = MakeVM(exe, Dir(name));
    OperatorProfileOptions o;
    o.runs = 5;
    OperatorProfile p = ProfileVM(vm, "main", o);
    EXPECT_TRUE(p.measured);
    EXPECT_EQ(p.executor, "VM");
    EXPECT_EQ(p.runs, 5);
    ASSERT_FALSE(p.operators.empty());
    std::string primitives = exe.GetFunctionOrThrow("get_primitives")().As<std::string>();
    double sum = p.outside.percent;
    for (const OperatorCost& c : p.operators) {
      EXPECT_NE(primitives.find(c.name), std::string::npos) << c.name;
      EXPECT_EQ(c.samples % 5, 0u) << c.name << ": calls over 5 runs";
      EXPECT_GT(c.samples, 0u);
      sum += c.percent;
    }
    EXPECT_NEAR(sum, 100, 1);
    EXPECT_NE(p.ToTable().find("every kernel call timed"), std::string::npos) << p.ToTable();
    ExpectMain(vm, Dir(name) + "/expected.npz");  // profiling left the VM as it was
  }
}

TEST(VMProfile, ReportAsTvmReturnsIt) {
  VM_FIXTURES_OR_SKIP();
  Module vm = MakeVM(Exe("v_control"), Dir("v_control"));
  TVMRetValue r = vm.GetFunctionOrThrow("profile")("main", nullptr);
  ASSERT_EQ(r.type_code(), kTVMObjectHandle);
  ASSERT_EQ(r.object()->type_index(), kTypeProfileReport);
  const auto* report = static_cast<const ProfileReportObj*>(r.object());
  EXPECT_NE(report->table.find("Primitive"), std::string::npos) << report->table;
  EXPECT_EQ(report->csv.rfind("Name,Duration (us),Percent,Count,Argument Shapes\n", 0), 0u);
  EXPECT_NE(report->json.find("\"Executor\": {\"string\": \"VM\"}"), std::string::npos) << report->json;
  EXPECT_NE(vm.GetFunctionOrThrow("profile_rpc")("main").As<std::string>().find("\"calls\": [{"), std::string::npos);
  // TVM's Python makes its profiling VM with the global runtime._VirtualMachineDebug(exe).
  Module debug = GetGlobalFunction("runtime._VirtualMachineDebug")(Exe("v_add_split")).As<Module>();
  EXPECT_EQ(debug.type_key(), "VirtualMachine");
}

TEST(VMProfile, Refusals) {
  VM_FIXTURES_OR_SKIP();
  Module exe = Exe("v_add_split");
  Module vm = MakeVM(exe, Dir("v_add_split"));
  EXPECT_AOTRT_ERROR(ProfileVM(exe, "main"), ErrorCode::kInvalidArgument, {"expected a VirtualMachine", "VMExecutable"});
  EXPECT_AOTRT_ERROR(ProfileVM(Module(), "main"), ErrorCode::kInvalidArgument, {"an empty one"});
  EXPECT_AOTRT_ERROR(ProfileVM(vm, "nope"), ErrorCode::kNotFound, {"nope"});
  OperatorProfileOptions bad;
  bad.period_us = 1;
  EXPECT_AOTRT_ERROR(ProfileVM(vm, "main", bad), ErrorCode::kInvalidArgument, {"period_us"});
  Module fresh = exe.GetFunctionOrThrow("vm_load_executable")().As<Module>();
  EXPECT_AOTRT_ERROR(fresh.GetFunctionOrThrow("profile")("main", nullptr), ErrorCode::kInvalidArgument, {"Input has not been set"});
}

// ---- set_outputs: the next invoke writes main's results into the caller's tensors

TEST(VMSetOutputs, ResultsLandInTheTensorsGiven) {
  VM_FIXTURES_OR_SKIP();
  for (const char* name : {"v_add_split", "v_dyn_batch", "v_control"}) {
    SCOPED_TRACE(name);
    Module vm = MakeVM(Exe(name), Dir(name));
    for (const char* set : {"", "_b"}) {
      if (!std::ifstream(Dir(name) + "/inputs" + set + ".npz")) continue;
      std::vector<NamedArray> in = ReadNpz(Dir(name) + "/inputs" + set + ".npz");
      for (size_t i = 0; i < in.size(); ++i) vm.GetFunctionOrThrow("set_one_input")("main", static_cast<int64_t>(i), in[i].array);
      std::vector<NamedArray> want = ReadNpz(Dir(name) + "/expected" + set + ".npz");
      ASSERT_EQ(want.size(), 1u);
      NDArray out = NDArray::Empty(want[0].array.Shape(), want[0].array.dtype());
      vm.GetFunctionOrThrow("set_outputs")("main", out);
      TVMRetValue r = vm.GetFunctionOrThrow("invoke")("main");
      EXPECT_TRUE(SameBytes(out, want[0].array));
      NDArray got = vm.GetFunctionOrThrow("get_output")(0).As<NDArray>();
      // In place where main's AllocTensor(Reg) makes the result; v_control's comes from a Move (a loop's
      // value; TVM refuses set_outputs there): copied in.
      EXPECT_EQ(got.data() == out.data(), std::string(name) != "v_control");
      // One invoke only: the next writes the VM's own tensors.
      vm.GetFunctionOrThrow("invoke_stateful")("main");
      EXPECT_NE(vm.GetFunctionOrThrow("get_output")(0).As<NDArray>().data(), out.data());
    }
  }
}

TEST(VMSetOutputs, BorrowedDLTensorAndBadOutputs) {
  VM_FIXTURES_OR_SKIP();
  Module vm = MakeVM(Exe("v_add_split"), Dir("v_add_split"));
  NDArray want = ReadNpz(Dir("v_add_split") + "/expected.npz")[0].array;
  std::vector<char> mem(want.NumBytes() + 64);
  DLTensor t = want.tensor();
  t.data = mem.data() + (64 - reinterpret_cast<uintptr_t>(mem.data()) % 64);
  vm.GetFunctionOrThrow("set_outputs")("main", &t);
  vm.GetFunctionOrThrow("invoke_stateful")("main");
  EXPECT_EQ(std::memcmp(t.data, want.data(), want.NumBytes()), 0);
  NDArray wrong = NDArray::Empty({3}, want.dtype());
  vm.GetFunctionOrThrow("set_outputs")("main", wrong);
  EXPECT_AOTRT_ERROR(vm.GetFunctionOrThrow("invoke")("main"), ErrorCode::kShapeMismatch, {"set_outputs: output 0", "float32[3]"});
  NDArray ints = NDArray::Empty(want.Shape(), DLDataType{kDLInt, 32, 1});
  vm.GetFunctionOrThrow("set_outputs")("main", ints);
  EXPECT_AOTRT_ERROR(vm.GetFunctionOrThrow("invoke")("main"), ErrorCode::kShapeMismatch, {"int32"});
  vm.GetFunctionOrThrow("set_outputs")("main", want, want);
  EXPECT_AOTRT_ERROR(vm.GetFunctionOrThrow("invoke")("main"), ErrorCode::kInvalidArgument, {"gave 2 tensors for the 1 outputs"});
  EXPECT_AOTRT_ERROR(vm.GetFunctionOrThrow("set_outputs")("main"), ErrorCode::kInvalidArgument, {"no outputs given"});
  EXPECT_AOTRT_ERROR(vm.GetFunctionOrThrow("set_outputs")("nope", want), ErrorCode::kNotFound, {"nope"});
  ExpectMain(vm, Dir("v_add_split") + "/expected.npz");  // the VM runs on
}

// ---- late-bound constants: moved out to a params file, the bytecode saved without them, both
// loaded again as a new process would, the runs bit-exact

TEST(VMLateBound, MoveSaveLoadRoundTrip) {
  VM_FIXTURES_OR_SKIP();
  for (const char* name : {"v_dyn_batch", "v_control", "v_add_split"}) {
    SCOPED_TRACE(name);
    std::string code = Exe(name).GetFunctionOrThrow("save")().As<std::string>();
    Module exe = Exe(name);
    std::string file = ::testing::TempDir() + "/aotrt_vm_late_" + name + ".params";
    exe.GetFunctionOrThrow("move_late_bound_consts")(file, 0);  // every constant
    EXPECT_AOTRT_ERROR(exe.GetFunctionOrThrow("vm_load_executable")(), ErrorCode::kInvalidArgument,
                       {"const_", "load_late_bound_consts"});
    std::string late = exe.GetFunctionOrThrow("save")().As<std::string>();
    EXPECT_LT(late.size(), code.size());
    // A fresh executable from the saved bytecode and the kernel library, its constants from the file.
    Module lib = Module::LoadFromFile(Dir(name) + "/lib.so");
    Module again = LoadExecutableGlobal(late, lib);
    EXPECT_NE(again.GetFunctionOrThrow("get_stats")().As<std::string>().find("late-bound 'const_0'"), std::string::npos);
    again.GetFunctionOrThrow("load_late_bound_consts")(file);
    EXPECT_EQ(again.GetFunctionOrThrow("save")().As<std::string>(), code) << "bound again, saved as TVM wrote it";
    for (const char* set : {"", "_b"}) {
      if (std::ifstream(Dir(name) + "/inputs" + set + ".npz")) {
        ExpectMain(MakeVM(again, Dir(name), std::string("inputs") + set + ".npz"), Dir(name) + "/expected" + set + ".npz");
      }
    }
    std::remove(file.c_str());
  }
}

TEST(VMLateBound, GetAndLoadFromMap) {
  VM_FIXTURES_OR_SKIP();
  Module exe = Exe("v_dyn_batch");
  std::string code = exe.GetFunctionOrThrow("save")().As<std::string>();
  size_t before = exe.GetFunctionOrThrow("get_stats")().As<std::string>().size();
  // Only the constants of 64 bytes or more.
  TVMRetValue map = exe.GetFunctionOrThrow("get_late_bound_consts")(64);
  ASSERT_EQ(map.object()->type_index(), kTypeMap);
  const auto* m = static_cast<const MapObj*>(map.object());
  ASSERT_FALSE(m->items().empty());
  for (const auto& kv : m->items()) {
    EXPECT_EQ(static_cast<const StringObj*>(kv.first.get())->value.rfind("const_", 0), 0u);
    EXPECT_GE(NDArray(ObjectPtr<NDArrayObj>(static_cast<NDArrayObj*>(kv.second.get()))).NumBytes(), 64u);
  }
  EXPECT_NE(exe.GetFunctionOrThrow("get_stats")().As<std::string>().size(), before);
  EXPECT_AOTRT_ERROR(exe.GetFunctionOrThrow("get_late_bound_consts")(0), ErrorCode::kInvalidArgument, {"late-bound already"});
  CallWithObject(exe.GetFunctionOrThrow("load_late_bound_consts_from_map"), map.object());
  EXPECT_EQ(exe.GetFunctionOrThrow("save")().As<std::string>(), code);
  ExpectMain(MakeVM(exe, Dir("v_dyn_batch")), Dir("v_dyn_batch") + "/expected.npz");
  // Nothing at or over the limit: nothing moves, the bytecode stays as it was.
  exe.GetFunctionOrThrow("move_late_bound_consts")(::testing::TempDir() + "/aotrt_vm_none.params", int64_t{1} << 40);
  EXPECT_EQ(exe.GetFunctionOrThrow("save")().As<std::string>(), code);
}

TEST(VMLateBound, Refusals) {
  VM_FIXTURES_OR_SKIP();
  Module exe = Exe("v_dyn_batch");
  std::string code = exe.GetFunctionOrThrow("save")().As<std::string>();
  EXPECT_AOTRT_ERROR(exe.GetFunctionOrThrow("move_late_bound_consts")("/nonexistent-dir/consts.params", 0), ErrorCode::kIOError,
                     {"/nonexistent-dir/consts.params"});
  EXPECT_EQ(exe.GetFunctionOrThrow("save")().As<std::string>(), code) << "a failed move moves nothing";
  EXPECT_AOTRT_ERROR(exe.GetFunctionOrThrow("get_late_bound_consts")(-1), ErrorCode::kInvalidArgument, {"byte_limit"});
  EXPECT_AOTRT_ERROR(exe.GetFunctionOrThrow("move_late_bound_consts")("x"), ErrorCode::kInvalidArgument, {});
  std::string file = ::testing::TempDir() + "/aotrt_vm_late_refusals.params";
  exe.GetFunctionOrThrow("move_late_bound_consts")(file, 0);
  EXPECT_AOTRT_ERROR(exe.GetFunctionOrThrow("load_late_bound_consts")(file + ".missing"), ErrorCode::kNotFound, {".missing"});
  std::ofstream(file + ".bad", std::ios::binary) << "not params";
  EXPECT_AOTRT_ERROR(exe.GetFunctionOrThrow("load_late_bound_consts")(file + ".bad"), ErrorCode::kFormatError, {});
  EXPECT_AOTRT_ERROR(exe.GetFunctionOrThrow("load_late_bound_consts_from_map")(Exe("v_add_split")), ErrorCode::kTypeMismatch, {"Map"});
  exe.GetFunctionOrThrow("load_late_bound_consts")(file);
  ExpectMain(MakeVM(exe, Dir("v_dyn_batch")), Dir("v_dyn_batch") + "/expected.npz");
  std::remove(file.c_str()), std::remove((file + ".bad").c_str());
}

// ---- Model::Load of a VM export: its function "main" through aotrt::Executor

namespace {

// Every output of `ex`'s last run equals `expected` (a tuple flattened), bit for bit, in Info() and GetOutput.
void ExpectOutputs(const Executor& ex, const std::string& expected) {
  std::vector<NamedArray> want = ReadNpz(expected);
  ASSERT_EQ(ex.NumOutputs(), want.size());
  for (size_t i = 0; i < want.size(); ++i) {
    EXPECT_EQ(ex.Output(i).name, "output" + std::to_string(i));
    EXPECT_EQ(ex.Output(i).shape, want[i].array.Shape());
    EXPECT_EQ(ex.Output(i).bytes, want[i].array.NumBytes());
    EXPECT_TRUE(SameBytes(ex.GetOutput(i), want[i].array)) << expected << " " << i;
  }
}

}  // namespace

TEST(VMModel, EveryFormLoadsAndRunsBitExactThroughTheExecutor) {
  VM_FIXTURES_OR_SKIP();
  struct Case { Model model; std::string dir; };
  std::vector<Case> cases = {{Model::Load(Dir("v_add_exported") + "/vm.so"), Dir("v_add_exported")},
                             {Model::Load(Dir("v_control")), Dir("v_control")},
                             {Model::FromModule(Exe("v_dyn_batch")), Dir("v_dyn_batch")}};
  for (Case& c : cases) {
    SCOPED_TRACE(c.dir);
    const ModelInfo& info = c.model.Info();
    EXPECT_EQ(info.interface, "vm");
    EXPECT_EQ(c.model.name(), "main");
    EXPECT_TRUE(info.outputs.empty());
    std::vector<NamedArray> in = ReadNpz(c.dir + "/inputs.npz");
    ASSERT_EQ(info.inputs.size(), in.size());
    for (const TensorInfo& t : info.inputs) EXPECT_TRUE(t.dynamic) << t.name;
    EXPECT_AOTRT_ERROR(c.model.ArenaBytes(), ErrorCode::kInvalidArgument, {"VM", "known only as it runs"});

    Executor ex = c.model.CreateExecutor();
    EXPECT_AOTRT_ERROR(ex.GetOutput(0), ErrorCode::kOutOfRange, {"once it has run"});
    EXPECT_AOTRT_ERROR(ex.Run(), ErrorCode::kInvalidArgument, {"input 0 ('" + info.inputs[0].name + "')", "not been set"});
    for (size_t i = 0; i < in.size(); ++i) ex.SetInput(info.inputs[i].name, in[i].array.tensor());
    EXPECT_EQ(ex.InputIndex(info.inputs.back().name), in.size() - 1);
    ex.Run();
    ExpectOutputs(ex, c.dir + "/expected.npz");
    OperatorProfileOptions o;
    o.runs = 2;
    OperatorProfile p = ProfileOperators(ex, o);  // the executor's VM, each primitive timed
    EXPECT_EQ(p.executor, "VM");
    EXPECT_FALSE(p.operators.empty());
    ExpectOutputs(ex, c.dir + "/expected.npz");
    EXPECT_EQ(ex.OutputIndex("output0"), 0u);
    NDArray copy = NDArray::Empty(ex.Output(0).shape, ex.Output(0).dtype);
    ex.CopyOutputTo(0, copy.handle());
    EXPECT_TRUE(SameBytes(copy, ex.GetOutput(0)));

    // Another input set (other shapes for v_dyn_batch) by the one-call Run, on the same executor.
    std::string set = std::ifstream(c.dir + "/inputs_b.npz") ? "_b" : "";
    std::vector<NamedArray> in_b = ReadNpz(c.dir + "/inputs" + set + ".npz");
    std::vector<DLTensor> tensors;
    for (const NamedArray& a : in_b) tensors.push_back(a.array.tensor());
    std::vector<NDArray> outs = ex.Run(tensors);
    ExpectOutputs(ex, c.dir + "/expected" + set + ".npz");
    std::vector<NamedArray> want = ReadNpz(c.dir + "/expected" + set + ".npz");
    ASSERT_EQ(outs.size(), want.size());
    for (size_t i = 0; i < outs.size(); ++i) EXPECT_TRUE(SameBytes(outs[i], want[i].array)) << i;
  }
}

// Executors of one model on threads at once, each on its own shapes (batch 3 and batch 11).
TEST(VMModel, ExecutorsRunIndependentlyOnThreads) {
  VM_FIXTURES_OR_SKIP();
  Model model = Model::FromModule(Exe("v_dyn_batch"));
  std::vector<std::thread> threads;
  std::vector<int> bad(2, 0);
  for (int t = 0; t < 2; ++t) {
    threads.emplace_back([&, t] {
      std::string set = t ? "_b" : "";
      Executor ex = model.CreateExecutor();
      std::vector<NamedArray> in = ReadNpz(Dir("v_dyn_batch") + "/inputs" + set + ".npz");
      std::vector<NamedArray> want = ReadNpz(Dir("v_dyn_batch") + "/expected" + set + ".npz");
      for (int run = 0; run < 20; ++run) {
        for (size_t i = 0; i < in.size(); ++i) ex.SetInput(i, in[i].array.tensor());
        ex.Run();
        bad[t] += !SameBytes(ex.GetOutput(0), want[0].array);
      }
    });
  }
  for (std::thread& t : threads) t.join();
  EXPECT_EQ(bad, std::vector<int>(2, 0));
}

TEST(VMModel, ZeroCopyInputsAndOutputs) {
  VM_FIXTURES_OR_SKIP();
  Model model = Model::Load(Dir("v_add_exported") + "/vm.so");
  Executor ex = model.CreateExecutor();
  std::vector<NamedArray> in = ReadNpz(Dir("v_add_exported") + "/inputs.npz");
  std::vector<NamedArray> want = ReadNpz(Dir("v_add_exported") + "/expected.npz");
  for (size_t i = 0; i < in.size(); ++i) ex.SetInputZeroCopy(i, in[i].array.tensor());  // NDArrays are 64-byte aligned
  EXPECT_EQ(ex.GetInput(0).data(), in[0].array.data());
  NDArray out = NDArray::Empty(want[0].array.Shape(), want[0].array.dtype());
  ex.SetOutputZeroCopy(0, out.tensor());
  for (int run = 0; run < 2; ++run) {
    std::memset(out.data(), 0, out.NumBytes());
    ex.Run();
    EXPECT_TRUE(SameBytes(out, want[0].array)) << "run " << run;
  }
  // Misaligned memory is refused for zero-copy, naming the input.
  DLTensor t = in[0].array.tensor();
  t.data = static_cast<char*>(t.data) + 4;
  t.shape[0] -= 1;
  EXPECT_AOTRT_ERROR(ex.SetInputZeroCopy(0, t), ErrorCode::kInvalidArgument, {"input 0", "64-byte aligned"});
  t.shape[0] += 1;
}

TEST(VMModel, BadCallsAreClearErrors) {
  VM_FIXTURES_OR_SKIP();
  EXPECT_AOTRT_ERROR(Model::Load(Dir("v_control") + "/code.ro"), ErrorCode::kInvalidArgument,
                     {"code.ro", "Relay VM", "LoadVMExecutable"});
  Model model = Model::Load(Dir("v_control"));
  ExecutorOptions arena;
  std::vector<char> memory(1 << 16);
  arena.memory = ExecutorOptions::Arena{memory.data(), memory.size()};
  EXPECT_AOTRT_ERROR(model.CreateExecutor(DLDevice{kDLCPU, 0}, arena), ErrorCode::kInvalidArgument, {"arena", "VM"});
  EXPECT_AOTRT_ERROR(model.CreateExecutor(DLDevice{kDLOpenCL, 0}), ErrorCode::kInvalidArgument,
                     {"runs on device type 1", "create its executor on a device of its type"});
  Executor ex = model.CreateExecutor();
  EXPECT_AOTRT_ERROR(ex.InputIndex("y"), ErrorCode::kNotFound, {"Invalid input name 'y'", "inputs: 'x', 'n'"});
  EXPECT_AOTRT_ERROR(ex.SetInput(2, ReadNpz(Dir("v_control") + "/inputs.npz")[0].array.tensor()), ErrorCode::kOutOfRange,
                     {"input index 2"});
  EXPECT_FALSE(ex.ChecksBounds());
  // A wrong dtype reaches the kernel, whose own check names the argument; the executor stays usable.
  std::vector<NamedArray> in = ReadNpz(Dir("v_control") + "/inputs.npz");
  NDArray wrong = NDArray::Empty(in[0].array.Shape(), DLDataType{kDLInt, 32, 1});
  ex.SetInput(0, wrong.tensor());
  ex.SetInput(1, in[1].array.tensor());
  EXPECT_THROW(ex.Run(), Error);
  ex.SetInput(0, in[0].array.tensor());
  ex.Run();
  ExpectOutputs(ex, Dir("v_control") + "/expected.npz");
  EXPECT_AOTRT_ERROR(ex.OutputIndex("z"), ErrorCode::kNotFound, {"Invalid output name 'z'", "outputs: 'output0'"});
}

TEST(VMModel, OnOpenCLWithShapeFunctionsOnTheCpu) {
  VM_FIXTURES_OR_SKIP();
  Model model = Model::Load(Dir("v_opencl"));
  EXPECT_AOTRT_ERROR(model.CreateExecutor(), ErrorCode::kInvalidArgument, {"runs on device type 4"});
  try {
    NDArray::Empty({1}, DLDataType{kDLFloat, 32, 1}, DLDevice{kDLOpenCL, 0});
  } catch (const Error& e) {
    GTEST_SKIP() << "no OpenCL device: " << e.what();
  }
  Executor ex = model.CreateExecutor(DLDevice{kDLOpenCL, 0});
  std::vector<NamedArray> in = ReadNpz(Dir("v_opencl") + "/inputs.npz");
  EXPECT_AOTRT_ERROR(ex.SetInputZeroCopy(0, in[0].array.tensor()), ErrorCode::kInvalidArgument,
                     {"input 0 ('a')", "zero-copy takes a 64-byte aligned tensor on opencl 0", "on cpu 0"});
  for (size_t i = 0; i < in.size(); ++i) ex.SetInput(i, in[i].array.tensor());
  ex.Run();
  ex.Synchronize();
  std::vector<NamedArray> want = ReadNpz(Dir("v_opencl") + "/expected.npz");
  ASSERT_EQ(ex.NumOutputs(), want.size());
  for (size_t i = 0; i < want.size(); ++i) {
    NDArray host = NDArray::Empty(ex.Output(i).shape, ex.Output(i).dtype);
    ex.CopyOutputTo(i, host.handle());
    EXPECT_TRUE(SameBytes(host, want[i].array)) << i;
  }
}
