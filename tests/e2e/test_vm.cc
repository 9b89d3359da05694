// Real TVM v0.14 Relay VM exports (../shared/fixtures/vm): both forms, every CPU case and input set
// bit-exact against TVM's own VirtualMachine; and the errors of bad bytecode.
#include <gtest/gtest.h>

#include <cstdlib>
#include <cstring>
#include <fstream>
#include <sstream>
#include <thread>

#include "aotrt/container.h"
#include "aotrt/npy.h"
#include "aotrt/vm.h"
#include "common/expect_error.h"

using namespace aotrt;

namespace {

std::string Dir(const std::string& name) { return std::string(AOTRT_TEST_VM_FIXTURES_DIR) + "/" + name; }

#define VM_FIXTURES_OR_SKIP()                                               \
  if (std::string(AOTRT_TEST_VM_FIXTURES_DIR).empty()) GTEST_SKIP() << "../shared/fixtures/vm not present"

std::string ReadBytes(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

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

// The tensors of a result, depth first.
void Flatten(const Object* o, std::vector<NDArray>* out) {
  if (o->type_index() == kTypeADT) {
    for (const auto& f : static_cast<const ADTObj*>(o)->fields) Flatten(f.get(), out);
  } else {
    out->push_back(NDArray(ObjectPtr<NDArrayObj>(static_cast<NDArrayObj*>(const_cast<Object*>(o)))));
  }
}

// Run `main` on inputs `inputs_file` through the VM module, compare with `expected_file` bit for bit.
void ExpectRunMatches(const Module& exe, const std::string& dir, const std::string& inputs_file,
                      const std::string& expected_file) {
  Module vm = exe.GetFunctionOrThrow("vm_load_executable")().As<Module>();
  vm.GetFunctionOrThrow("init")(static_cast<int>(kDLCPU), 0, 2);
  std::vector<NamedArray> inputs = ReadNpz(dir + "/" + inputs_file);
  std::vector<NamedArray> expected = ReadNpz(dir + "/" + expected_file);
  for (int rep = 0; rep < 2; ++rep) {
    for (size_t i = 0; i < inputs.size(); ++i) {
      vm.GetFunctionOrThrow("set_one_input")("main", static_cast<int64_t>(i), inputs[i].array);
    }
    TVMRetValue r = vm.GetFunctionOrThrow("invoke")("main");
    ASSERT_TRUE(r.object() != nullptr);
    std::vector<NDArray> outs;
    Flatten(r.object(), &outs);
    ASSERT_EQ(outs.size(), expected.size()) << dir;
    EXPECT_EQ(vm.GetFunctionOrThrow("get_num_outputs")().As<int64_t>(), static_cast<int64_t>(outs.size()));
    for (size_t i = 0; i < outs.size(); ++i) {
      const NDArray& want = expected[i].array;
      ASSERT_EQ(outs[i].Shape(), want.Shape()) << dir << " output " << i;
      ASSERT_EQ(outs[i].NumBytes(), want.NumBytes());
      EXPECT_EQ(std::memcmp(outs[i].data(), want.data(), want.NumBytes()), 0) << dir << " " << inputs_file << " output " << i;
    }
  }
}

void ExpectCaseMatches(const Module& exe, const std::string& dir) {
  ExpectRunMatches(exe, dir, "inputs.npz", "expected.npz");
  if (std::ifstream(dir + "/inputs_b.npz")) ExpectRunMatches(exe, dir, "inputs_b.npz", "expected_b.npz");
}

}  // namespace

TEST(VMFixtures, SplitFormThroughLoadExecutableGlobal) {
  VM_FIXTURES_OR_SKIP();
  for (const char* name : {"v_add_split", "v_dyn_batch", "v_control"}) {
    SCOPED_TRACE(name);
    Module lib = Module::LoadFromFile(Dir(name) + "/lib.so");
    Module exe = LoadExecutableGlobal(ReadBytes(Dir(name) + "/code.ro"), lib);
    EXPECT_EQ(exe.type_key(), "VMExecutable");
    ExpectCaseMatches(exe, Dir(name));
  }
}

TEST(VMFixtures, SplitFormThroughCppApi) {
  VM_FIXTURES_OR_SKIP();
  for (const char* name : {"v_add_split", "v_dyn_batch", "v_control"}) {
    SCOPED_TRACE(name);
    Module exe = LoadVMExecutable(Dir(name) + "/code.ro", Dir(name) + "/lib.so");
    ExpectCaseMatches(exe, Dir(name));
  }
}

TEST(VMFixtures, OneFileForm) {
  VM_FIXTURES_OR_SKIP();
  Module exe = Module::LoadFromFile(Dir("v_add_exported") + "/vm.so");
  ASSERT_EQ(exe.type_key(), "VMExecutable");
  EXPECT_EQ(exe.GetFunctionOrThrow("get_function_arity")("main").As<int64_t>(), 2);
  EXPECT_EQ(exe.GetFunctionOrThrow("get_function_param_name")("main", 1).As<std::string>(), "b");
  EXPECT_NE(exe.GetFunctionOrThrow("get_bytecode")().As<std::string>().find("InvokePacked"), std::string::npos);
  ExpectCaseMatches(exe, Dir("v_add_exported"));
  // save() gives the bytecode back, which loads again over the same library.
  std::string code = exe.GetFunctionOrThrow("save")().As<std::string>();
  ExpectCaseMatches(LoadExecutableGlobal(code, exe.GetFunctionOrThrow("get_lib")().As<Module>()), Dir("v_add_exported"));
}

TEST(VMFixtures, IndependentVMsOnThreads) {
  VM_FIXTURES_OR_SKIP();
  Module exe = LoadVMExecutable(Dir("v_dyn_batch") + "/code.ro", Dir("v_dyn_batch") + "/lib.so");
  std::vector<std::thread> threads;
  for (int t = 0; t < 3; ++t) {
    threads.emplace_back([&] {
      for (int i = 0; i < 5; ++i) ExpectCaseMatches(exe, Dir("v_dyn_batch"));
    });
  }
  for (auto& t : threads) t.join();
}

// Kernels on OpenCL, shape functions on the CPU: two devices, DeviceCopy, storages on the device.
TEST(VMFixtures, OpenCLWithShapeFunctionsOnTheCpu) {
  VM_FIXTURES_OR_SKIP();
  const DLDevice cl{kDLOpenCL, 0};
  try {
    NDArray::Empty({1}, DLDataType{kDLFloat, 32, 1}, cl);
  } catch (const Error& e) {
    GTEST_SKIP() << "no OpenCL device: " << e.what();
  }
  std::string dir = Dir("v_opencl");
  Module exe = LoadVMExecutable(dir + "/code.ro", dir + "/lib.so");
  Module vm = exe.GetFunctionOrThrow("vm_load_executable")().As<Module>();
  vm.GetFunctionOrThrow("init")(static_cast<int>(kDLOpenCL), 0, 2, static_cast<int>(kDLCPU), 0, 2);
  std::vector<NamedArray> inputs = ReadNpz(dir + "/inputs.npz");
  std::vector<NamedArray> expected = ReadNpz(dir + "/expected.npz");
  for (int rep = 0; rep < 2; ++rep) {
    for (size_t i = 0; i < inputs.size(); ++i) vm.GetFunctionOrThrow("set_one_input")("main", static_cast<int64_t>(i), inputs[i].array);
    vm.GetFunctionOrThrow("invoke_stateful")("main");
    NDArray out = vm.GetFunctionOrThrow("get_output")(0).As<NDArray>();
    EXPECT_EQ(out->device.device_type, kDLOpenCL);
    NDArray host = NDArray::Empty(out.Shape(), out.dtype());
    host.CopyFrom(out.tensor());
    const NDArray& want = expected[0].array;
    ASSERT_EQ(host.Shape(), want.Shape());
    EXPECT_EQ(std::memcmp(host.data(), want.data(), want.NumBytes()), 0);
  }
}

TEST(VMFixtures, InitRefusesWhatItCannotRun) {
  VM_FIXTURES_OR_SKIP();
  Module exe = LoadVMExecutable(Dir("v_add_split") + "/code.ro", Dir("v_add_split") + "/lib.so");
  Module vm = exe.GetFunctionOrThrow("vm_load_executable")().As<Module>();
  EXPECT_AOTRT_ERROR(vm.GetFunctionOrThrow("invoke")("main"), ErrorCode::kInvalidArgument, {"Input has not been set"});
  EXPECT_AOTRT_ERROR(vm.GetFunctionOrThrow("init")(static_cast<int>(kDLOpenCL), 0, 2), ErrorCode::kInvalidArgument, {"no device of type 1"});
  EXPECT_AOTRT_ERROR(vm.GetFunctionOrThrow("invoke")("nope"), ErrorCode::kNotFound, {"nope"});
}

// Bad bytecode: each a kFormatError (or kNotFound) naming what is wrong, never a crash.
class VMBadBytecode : public ::testing::Test {
 protected:
  void SetUp() override {
    if (std::string(AOTRT_TEST_VM_FIXTURES_DIR).empty()) GTEST_SKIP() << "../shared/fixtures/vm not present";
    lib_ = Module::LoadFromFile(Dir("v_control") + "/lib.so");
    code_ = ReadBytes(Dir("v_control") + "/code.ro");
  }
  Module lib_;
  std::string code_;
};

TEST_F(VMBadBytecode, WrongMagicAndVersion) {
  std::string c = code_;
  c[0] ^= 1;
  EXPECT_AOTRT_ERROR(LoadExecutableGlobal(c, lib_), ErrorCode::kFormatError, {"not a TVM VM executable"});
  c = code_;
  c[16 + 2] = '2';  // "0.14.0" -> "0.24.0"
  EXPECT_AOTRT_ERROR(LoadExecutableGlobal(c, lib_), ErrorCode::kFormatError, {"0.24.0"});
  EXPECT_AOTRT_ERROR(LoadExecutableGlobal(c, lib_), ErrorCode::kFormatError, {"0.9.0 to 0.19.0"});
}

TEST_F(VMBadBytecode, EveryTruncationIsAnError) {
  for (size_t n = 0; n < code_.size(); n += (n < 600 ? 1 : 37)) {
    try {
      LoadExecutableGlobal(code_.substr(0, n), lib_);
      ADD_FAILURE() << "a truncation to " << n << " bytes loaded";
    } catch (const Error& e) {
      EXPECT_EQ(e.code(), ErrorCode::kFormatError) << n << ": " << e.what();
    }
  }
}

// Each byte of each fixture's bytecode flipped: refused at load, or loads and then runs or fails
// with an error (a kernel's own check, a register of the wrong kind), never a crash.
TEST_F(VMBadBytecode, EveryFlippedByteIsAnErrorOrRuns) {
  for (const char* name : {"v_add_split", "v_control", "v_dyn_batch"}) {
    Module lib = Module::LoadFromFile(Dir(name) + "/lib.so");
    std::string code = ReadBytes(Dir(name) + "/code.ro");
    std::vector<NamedArray> inputs = ReadNpz(Dir(name) + "/inputs.npz");
    int loaded = 0;
    for (size_t i = 0; i < code.size(); ++i) {
      std::string c = code;
      c[i] ^= 0x5A;
      try {
        Module exe = LoadExecutableGlobal(c, lib);
        ++loaded;
        Module vm = exe.GetFunctionOrThrow("vm_load_executable")().As<Module>();
        vm.GetFunctionOrThrow("init")(static_cast<int>(kDLCPU), 0, 2);
        for (size_t k = 0; k < inputs.size(); ++k) vm.GetFunctionOrThrow("set_one_input")("main", static_cast<int64_t>(k), inputs[k].array);
        vm.GetFunctionOrThrow("invoke_stateful")("main");
      } catch (const Error&) {
      }
    }
    EXPECT_LT(loaded, static_cast<int>(code.size())) << name;
  }
}

TEST_F(VMBadBytecode, RegisterOutOfRangeAndUnknownPrimitive) {
  Module other = Module::LoadFromFile(Dir("v_add_split") + "/lib.so");
  EXPECT_AOTRT_ERROR(LoadExecutableGlobal(code_, other), ErrorCode::kNotFound, {"is not in the kernel library"});
  // The register counts are decimal strings in each function header: make every "1x" count "1".
  std::string c = code_;
  size_t p = c.find("main");
  ASSERT_NE(p, std::string::npos);
  size_t q = c.find("main", p + 4);  // the header of main in the code section
  ASSERT_NE(q, std::string::npos);
  // header: u64 3, u64 4 "main", u64 len, digits (register count)
  size_t len_at = q + 4;
  uint64_t len;
  std::memcpy(&len, c.data() + len_at, 8);
  ASSERT_LE(len, 3u);
  c[len_at + 8] = '2';  // main's 2 parameters fit; its other registers do not
  for (uint64_t k = 1; k < len; ++k) c.erase(len_at + 8 + 1, 1);
  uint64_t one = 1;
  std::memcpy(&c[len_at], &one, 8);
  EXPECT_AOTRT_ERROR(LoadExecutableGlobal(c, lib_), ErrorCode::kFormatError, {"out of range"});
}

// Outputs the caller keeps are never reused by the next run, whatever the shapes.
TEST(VMFixtures, HeldOutputsSurviveTheNextRun) {
  VM_FIXTURES_OR_SKIP();
  for (const char* name : {"v_control", "v_dyn_batch"}) {
    SCOPED_TRACE(name);
    Module exe = LoadVMExecutable(Dir(name) + "/code.ro", Dir(name) + "/lib.so");
    Module vm = exe.GetFunctionOrThrow("vm_load_executable")().As<Module>();
    vm.GetFunctionOrThrow("init")(static_cast<int>(kDLCPU), 0, 2);
    auto run = [&](const std::string& file) {
      std::vector<NamedArray> in = ReadNpz(Dir(name) + "/" + file);
      for (size_t i = 0; i < in.size(); ++i) vm.GetFunctionOrThrow("set_one_input")("main", static_cast<int64_t>(i), in[i].array);
      vm.GetFunctionOrThrow("invoke_stateful")("main");
      return vm.GetFunctionOrThrow("get_output")(0).As<NDArray>();
    };
    NDArray a = run("inputs.npz");
    NDArray b = run("inputs_b.npz");
    NDArray a2 = run("inputs.npz");
    NDArray want_a = ReadNpz(Dir(name) + "/expected.npz")[0].array;
    NDArray want_b = ReadNpz(Dir(name) + "/expected_b.npz")[0].array;
    EXPECT_EQ(std::memcmp(a.data(), want_a.data(), want_a.NumBytes()), 0);
    EXPECT_EQ(std::memcmp(b.data(), want_b.data(), want_b.NumBytes()), 0);
    EXPECT_EQ(std::memcmp(a2.data(), want_a.data(), want_a.NumBytes()), 0);
    EXPECT_NE(a.data(), a2.data());
  }
}

// The file forms Module::LoadFromFile tells by content: tvmc's VM package (a tar holding lib.so, the
// one-file export) and a folder with code.ro beside lib.so (the two-file form).
TEST(VMFixtures, TvmcPackageAndFolder) {
  VM_FIXTURES_OR_SKIP();
  std::string tmp = ::testing::TempDir() + "/aotrt_vm_tvmc";
  std::string tar = tmp + "/package.tar";
  std::string setup = "rm -rf '" + tmp + "' && mkdir -p '" + tmp + "' && cp '" + Dir("v_add_exported") + "/vm.so' '" + tmp +
                      "/lib.so' && tar -C '" + tmp + "' -cf '" + tar + "' lib.so && rm '" + tmp + "/lib.so'";
  ASSERT_EQ(std::system(setup.c_str()), 0);
  Module pkg = Module::LoadFromFile(tar);
  ASSERT_EQ(pkg.type_key(), "VMExecutable");
  ExpectCaseMatches(pkg, Dir("v_add_exported"));
  Module folder = Module::LoadFromFile(Dir("v_control"));
  ASSERT_EQ(folder.type_key(), "VMExecutable");
  ExpectCaseMatches(folder, Dir("v_control"));
  std::system(("rm -rf '" + tmp + "'").c_str());
}

// Late-bound constants (TVM's move_late_bound_consts): the bytecode names them and a params file
// holds them; load_late_bound_consts binds them before a VM is made.
TEST(VMFixtures, LateBoundConstants) {
  VM_FIXTURES_OR_SKIP();
  std::string code = ReadBytes(Dir("v_add_split") + "/code.ro");
  size_t at = code.find("main") + 4;  // the globals end with "main"; the constant pool follows
  uint64_t n;
  std::memcpy(&n, code.data() + at, 8);
  std::string late = code.substr(0, at + 8);
  std::vector<NamedArray> params;
  size_t p = at + 8;
  for (uint64_t i = 0; i < n; ++i) {
    uint32_t ndim;
    std::memcpy(&ndim, code.data() + p + 4 + 24, 4);
    uint64_t bytes;
    std::memcpy(&bytes, code.data() + p + 4 + 32 + 8 * ndim, 8);
    size_t len = 40 + 8 * ndim + bytes;
    params.push_back({"const_" + std::to_string(i), LoadNDArray(code.data() + p + 4, len)});
    std::string name = params.back().name;
    uint32_t tag = 1;
    uint64_t name_len = name.size();
    late.append(reinterpret_cast<const char*>(&tag), 4).append(reinterpret_cast<const char*>(&name_len), 8).append(name);
    p += 4 + len;
  }
  late += code.substr(p);
  Module lib = Module::LoadFromFile(Dir("v_add_split") + "/lib.so");
  Module exe = LoadExecutableGlobal(late, lib);
  EXPECT_AOTRT_ERROR(exe.GetFunctionOrThrow("vm_load_executable")(), ErrorCode::kInvalidArgument, {"const_0", "load_late_bound_consts"});
  std::string file = ::testing::TempDir() + "/aotrt_vm_consts.params";
  std::string saved = SaveParams(params);
  std::ofstream(file, std::ios::binary).write(saved.data(), saved.size());
  std::vector<NamedArray> one(params.begin(), params.begin() + 1);
  std::string partial = ::testing::TempDir() + "/aotrt_vm_consts_partial.params";
  saved = SaveParams(one);
  std::ofstream(partial, std::ios::binary).write(saved.data(), saved.size());
  EXPECT_AOTRT_ERROR(exe.GetFunctionOrThrow("load_late_bound_consts")(partial), ErrorCode::kNotFound, {"const_1"});
  exe.GetFunctionOrThrow("load_late_bound_consts")(file);
  ExpectCaseMatches(exe, Dir("v_add_split"));
}

// A kernel's own check failing (inputs of the wrong shape) is an error of the call; the VM runs on.
TEST(VMFixtures, KernelErrorsLeaveTheVMUsable) {
  VM_FIXTURES_OR_SKIP();
  Module exe = LoadVMExecutable(Dir("v_add_split") + "/code.ro", Dir("v_add_split") + "/lib.so");
  Module vm = exe.GetFunctionOrThrow("vm_load_executable")().As<Module>();
  vm.GetFunctionOrThrow("init")(static_cast<int>(kDLCPU), 0, 2);
  NDArray small = NDArray::Empty({3, 3}, DLDataType{kDLFloat, 32, 1});
  vm.GetFunctionOrThrow("set_input")("main", small, small);
  try {
    vm.GetFunctionOrThrow("invoke")("main");
    ADD_FAILURE() << "a 3x3 input ran a 4x4 kernel";
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), ErrorCode::kModelError) << e.what();
  }
  EXPECT_AOTRT_ERROR(vm.GetFunctionOrThrow("set_input")("main", small), ErrorCode::kInvalidArgument, {"takes 2 inputs"});
  ExpectCaseMatches(exe, Dir("v_add_split"));
}

namespace {

// A bytecode writer for hand-made programs (TVM's dmlc encodings), in either layout.
struct Bytecode {
  std::string s;
  void U64(uint64_t v) { s.append(reinterpret_cast<const char*>(&v), 8); }
  void Str(const std::string& v) { U64(v.size()), s += v; }
  void Instr(int64_t op, std::vector<int64_t> f) {
    uint64_t key = static_cast<uint64_t>(op);
    for (int64_t v : f) key ^= static_cast<uint64_t>(v) + 0x9e3779b9 + (key << 6) + (key >> 2);
    U64(f.size() + 2), U64(key), U64(static_cast<uint64_t>(op));
    for (int64_t v : f) U64(static_cast<uint64_t>(v));
  }
};

// main(x) = a fresh [4] float32 tensor carved from a 16-byte storage, as TVM v0.9-v0.13 (`old`) or
// v0.14+ wrote such a program.
std::string TinyProgram(bool old, const std::string& version) {
  Bytecode b;
  b.U64(0xD225DE2F4214151DULL), b.Str(version);
  b.U64(1), b.U64(1);  // one device: CPU 0
  if (!old) b.Str("");
  int32_t host = 0;
  b.s.append(reinterpret_cast<const char*>(&host), 4);
  b.U64(1), b.Str("main");
  NDArray size = NDArray::Empty({}, DLDataType{kDLInt, 64, 1});
  *static_cast<int64_t*>(size.data()) = 16;
  b.U64(1);
  uint32_t tag = 0;
  b.s.append(reinterpret_cast<const char*>(&tag), 4);
  b.s += SaveNDArray(size.tensor());
  b.U64(1), b.U64(0);  // constant devices
  b.U64(0), b.U64(0);  // primitives, their attributes
  b.U64(1);            // functions
  b.U64(3), b.Str("main"), b.Str("5"), b.Str("5");
  b.U64(1), b.Str("x"), b.U64(1), b.U64(0);
  old ? b.Instr(11, {0, 1}) : b.Instr(11, {0, 0, 1});                                     // LoadConst 0 -> r1
  old ? b.Instr(16, {1, 64, 2, 32, 1, 0, 2}) : b.Instr(16, {1, 64, 2, 32, 1, 0, 0, 2});  // AllocStorage r1 -> r2
  b.Instr(14, {0, 3});                                                                   // LoadConsti 0 -> r3
  b.Instr(5, {2, 3, 2, 32, 1, 1, 4, 4});                                                 // AllocTensor [4] -> r4
  b.Instr(1, {4});                                                                       // Ret r4
  return b.s;
}

}  // namespace

TEST(VMBytecode, BothLayoutsOfEveryAcceptedRelease) {
  Module none = Module::SystemLib();  // a program without primitives needs no kernels
  for (int minor = 9; minor <= 19; ++minor) {
    for (const std::string& v : {"0." + std::to_string(minor) + ".0", "0." + std::to_string(minor + 1) + ".dev3"}) {
      if (v == "0.20.dev3") continue;
      SCOPED_TRACE(v);
      bool old = minor < 14 && v != "0.14.dev3";
      Module exe = LoadExecutableGlobal(TinyProgram(old, v), none);
      Module vm = exe.GetFunctionOrThrow("vm_load_executable")().As<Module>();
      vm.GetFunctionOrThrow("init")(static_cast<int>(kDLCPU), 0, 1);
      NDArray x = NDArray::Empty({1}, DLDataType{kDLFloat, 32, 1});
      vm.GetFunctionOrThrow("set_input")("main", x);
      NDArray y = vm.GetFunctionOrThrow("invoke")("main").As<NDArray>();
      EXPECT_EQ(y.Shape(), std::vector<int64_t>{4});
    }
  }
  // The other layout than the version says is refused (the field counts do not fit), as is v0.20.
  EXPECT_AOTRT_ERROR(LoadExecutableGlobal(TinyProgram(true, "0.15.0"), none), ErrorCode::kFormatError, {});
  EXPECT_AOTRT_ERROR(LoadExecutableGlobal(TinyProgram(false, "0.20.0"), none), ErrorCode::kFormatError,
                     {"'0.20.0'", "0.9.0 to 0.19.0"});
}
