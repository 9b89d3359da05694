// The C++ executor API: validation of every input, zero-copy I/O, params, several models.
#include <gtest/gtest.h>

#include <cstdlib>
#include <cstring>

#include "common/expect_error.h"
#include "common/run_case.h"

using namespace aotrt;
using namespace aotrt_test;

namespace {

const DLDataType kF32{kDLFloat, 32, 1};

// 64-byte aligned float buffer viewed as a DLTensor of `shape`.
struct AlignedTensor {
  explicit AlignedTensor(std::vector<int64_t> s, size_t offset_bytes = 0) : shape(std::move(s)) {
    size_t n = 1;
    for (int64_t d : shape) n *= d;
    size_t bytes = (64 + n * 4 + 63) / 64 * 64;  // aligned_alloc wants a multiple of the alignment
    storage = static_cast<float*>(std::aligned_alloc(64, bytes));
    std::memset(storage, 0, bytes);
    t = DLTensor{reinterpret_cast<char*>(storage) + offset_bytes, {kDLCPU, 0}, static_cast<int32_t>(shape.size()),
                 kF32, shape.data(), nullptr, 0};
  }
  ~AlignedTensor() { std::free(storage); }
  float* data() { return static_cast<float*>(t.data); }
  std::vector<int64_t> shape;
  float* storage;
  DLTensor t;
};

}  // namespace

TEST(ExecutorApi, InputValidationNamesTheTensor) {
  Executor ex = Model::Load(ModelPath("add_c")).CreateExecutor();
  ASSERT_EQ(ex.NumInputs(), 2u);
  EXPECT_AOTRT_ERROR(ex.InputIndex("nope"), ErrorCode::kNotFound,
              {"Invalid input name", "'nope'", "valid names: 'a', 'b'"});
  NDArray f32x2 = NDArray::Empty({2}, kF32);
  EXPECT_AOTRT_ERROR(ex.SetInput("a", f32x2.tensor()), ErrorCode::kShapeMismatch,
              {"input 0 ('a')", "expected shape [1]", "got [2]"});
  // Another dtype: the one conversion rule (issue 26). A value that survives is converted...
  NDArray i32 = NDArray::Empty({1}, DLDataType{kDLInt, 32, 1});
  static_cast<int32_t*>(i32.data())[0] = 16777216;
  ex.SetInput("b", i32.tensor());
  EXPECT_EQ(static_cast<float*>(ex.GetInput(1).data())[0], 16777216.0f);
  // ...one that does not is refused, naming the input, and the input keeps its value.
  static_cast<int32_t*>(i32.data())[0] = 16777217;
  EXPECT_AOTRT_ERROR(ex.SetInput("b", i32.tensor()), ErrorCode::kTypeMismatch,
              {"input 1 ('b')", "expected dtype float32", "got int32 holding 16777217 at index [0]",
               "does not survive the conversion: it would become 16777216"});
  EXPECT_EQ(static_cast<float*>(ex.GetInput(1).data())[0], 16777216.0f);
  NDArray f64 = NDArray::Empty({1}, DLDataType{kDLFloat, 64, 1});
  static_cast<double*>(f64.data())[0] = 1e300;
  EXPECT_AOTRT_ERROR(ex.SetInput("a", f64.tensor()), ErrorCode::kTypeMismatch,
              {"input 0 ('a')", "got float64 holding 1e+300 at index [0]", "it would become inf"});
  NDArray u8 = NDArray::Empty({1}, DLDataType{kDLUInt, 8, 1});  // uint8 into float32: always exact
  static_cast<uint8_t*>(u8.data())[0] = 255;
  ex.SetInput("a", u8.tensor());
  EXPECT_EQ(static_cast<float*>(ex.GetInput(0).data())[0], 255.0f);
  EXPECT_AOTRT_ERROR(ex.SetInput(2, f32x2.tensor()), ErrorCode::kOutOfRange, {"input index 2 out of range"});
  EXPECT_AOTRT_ERROR(ex.GetOutput(1), ErrorCode::kOutOfRange, {"output index 1"});
  DLTensor gpu = NDArray::Empty({1}, kF32).tensor();
  gpu.device = DLDevice{kDLROCM, 0};
  EXPECT_AOTRT_ERROR(ex.SetInput(0, gpu), ErrorCode::kInvalidArgument, {"input 0 ('a')", "got device type 10 id 0"});
}

TEST(ExecutorApi, RejectsNonCpuDevice) {
  Model m = Model::Load(ModelPath("add_c"));
  EXPECT_AOTRT_ERROR(m.CreateExecutor(DLDevice{kDLCUDA, 0}), ErrorCode::kInvalidArgument, {"kDLCPU 0"});
  EXPECT_AOTRT_ERROR(m.CreateExecutor(DLDevice{kDLCPU, 1}), ErrorCode::kInvalidArgument, {"id 1"});
}

TEST(ExecutorApi, ZeroCopyInputsAndOutputs) {
  Case c = GeneratedCase("add_c");
  Executor ex = Model::Load(c.library).CreateExecutor();
  AlignedTensor a({1}), b({1}), out({1});
  a.data()[0] = 1.5f;
  b.data()[0] = 2.25f;
  ex.SetInputZeroCopy(0, a.t);
  ex.SetInputZeroCopy(1, b.t);
  ex.SetOutputZeroCopy(0, out.t);
  ex.Run();
  EXPECT_EQ(out.data()[0], 3.75f);
  EXPECT_EQ(ex.GetOutput(0).data(), out.data());  // the executor reports the bound tensor
  a.data()[0] = 10.0f;  // no copy: the next run sees the change
  ex.Run();
  EXPECT_EQ(out.data()[0], 12.25f);
  // Replace the caller tensors: the executor keeps working with its own storage again.
  ex.SetInput(0, c.inputs[0].tensor());
  ex.SetInput(1, c.inputs[1].tensor());
  AlignedTensor out2({1});
  ex.SetOutputZeroCopy(0, out2.t);
  ex.Run();
  EXPECT_EQ(std::memcmp(out2.data(), c.expected[0].data(), 4), 0);
}

TEST(ExecutorApi, ZeroCopyChecksAlignmentAndLayout) {
  Executor ex = Model::Load(ModelPath("multi_io_c")).CreateExecutor();
  size_t f32_input = ex.InputIndex(ex.Input(2).name);  // float32 [2, 4]
  AlignedTensor misaligned({2, 4}, 4);
  EXPECT_AOTRT_ERROR(ex.SetInputZeroCopy(f32_input, misaligned.t), ErrorCode::kInvalidArgument,
              {"not 64-byte aligned"});
  AlignedTensor strided({2, 4});
  int64_t strides[2] = {1, 2};
  strided.t.strides = strides;
  EXPECT_AOTRT_ERROR(ex.SetInputZeroCopy(f32_input, strided.t), ErrorCode::kInvalidArgument, {"not contiguous"});
  AlignedTensor wrong({4, 2});
  EXPECT_AOTRT_ERROR(ex.SetInputZeroCopy(f32_input, wrong.t), ErrorCode::kShapeMismatch, {"expected shape [2, 4]"});
}

TEST(ExecutorApi, CopyOutputToChecksTheDestination) {
  Case c = GeneratedCase("add_c");
  Executor ex = Model::Load(c.library).CreateExecutor();
  SetCaseInputs(c, ex);
  ex.Run();
  NDArray out = NDArray::Empty({1}, kF32);
  ex.CopyOutputTo(0, out.handle());
  EXPECT_TRUE(BytesEqual(out, c.expected[0]));
  NDArray wrong = NDArray::Empty({1}, DLDataType{kDLInt, 32, 1});
  EXPECT_THROW(ex.CopyOutputTo(0, wrong.handle()), Error);
  EXPECT_THROW(ex.CopyOutputTo(0, nullptr), Error);
}

TEST(ExecutorApi, SanitizedAndOriginalNamesBothWork) {
  Case c = GeneratedCase("custom_name");
  Model m = Model::Load(c.library);
  EXPECT_EQ(m.name(), "unusual_module_name_fred");
  Executor ex = m.CreateExecutor();
  EXPECT_EQ(ex.InputIndex("input:0"), 0u);
  EXPECT_EQ(ex.InputIndex("input_0"), 0u);
  EXPECT_EQ(ex.InputIndex("input@1"), 1u);
  EXPECT_EQ(ex.Input(0).name, "input_0");
  SetCaseInputs(c, ex);
  ex.Run();
  ExpectOutputsMatch(c, ex);
}

TEST(ExecutorApi, ModelsWithClashingSymbolsLoadSideBySide) {
  Case a = GeneratedCase("clash_a"), b = GeneratedCase("clash_b");
  Model ma = Model::Load(a.library), mb = Model::Load(b.library);
  Executor ea = ma.CreateExecutor(), eb = mb.CreateExecutor();
  SetCaseInputs(a, ea);
  SetCaseInputs(b, eb);
  ea.Run();
  eb.Run();
  ExpectOutputsMatch(a, ea);  // a + b
  ExpectOutputsMatch(b, eb);  // a - b: not captured by the first library's symbols
  EXPECT_FALSE(BytesEqual(ea.GetOutput(0), eb.GetOutput(0)));
}

TEST(ExecutorApi, FactoryParamsAreSharedUntilWritten) {
  Case c = GeneratedCase("big_params");
  Model m = Model::Load(c.library);
  EXPECT_EQ(m.ParamBytes(), 1024u * 4096 * 4);
  Executor e1 = m.CreateExecutor(), e2 = m.CreateExecutor();
  SetCaseInputs(c, e1);  // sets only `data`; `weight` comes from the factory
  SetCaseInputs(c, e2);
  e1.Run();
  e2.Run();
  ExpectOutputsMatch(c, e1);
  ExpectOutputsMatch(c, e2);
  // Writing the weight of e1 makes it private: e2 keeps the shared one.
  NDArray zeros = NDArray::Empty({1024, 4096}, kF32);
  e1.SetInput("weight", zeros.tensor());
  e1.Run();
  e2.Run();
  ExpectOutputsMatch(c, e2);
  EXPECT_EQ(static_cast<float*>(e1.GetOutput(0).data())[0], 0.0f);
  // get_input of a shared param hands out a private copy, never the shared weights.
  NDArray w = e2.GetInput(e2.InputIndex("weight"));
  static_cast<float*>(w.data())[0] = 1e9f;
  Executor e3 = m.CreateExecutor();
  SetCaseInputs(c, e3);
  e3.Run();
  ExpectOutputsMatch(c, e3);
}

TEST(ExecutorApi, FailingModelKeepsWorking) {
  Case c = GeneratedCase("failing_llvm");
  Executor ex = Model::Load(c.library).CreateExecutor();
  SetCaseInputs(c, ex);
  EXPECT_THROW(ex.Run(), Error);
  // A different, healthy model on the same thread is not disturbed by the leftover error.
  Case ok = GeneratedCase("add_llvm");
  Executor good = Model::Load(ok.library).CreateExecutor();
  SetCaseInputs(ok, good);
  good.Run();
  ExpectOutputsMatch(ok, good);
  EXPECT_THROW(ex.Run(), Error);
}

TEST(ExecutorApi, ExecutorOutlivesItsModel) {
  Case c = GeneratedCase("add_c");
  Executor ex;
  {
    Model m = Model::Load(c.library);
    ex = m.CreateExecutor();
  }
  SetCaseInputs(c, ex);
  ex.Run();
  ExpectOutputsMatch(c, ex);
}

TEST(Names, MissingFactoryFunctionNamesTheModel) {
  Module lib = Module::LoadFromFile(ModelPath("custom_name"));
  try {
    lib.GetFunctionOrThrow("default");
    FAIL() << "no error";
  } catch (const Error& e) {
    std::string msg = e.what();
    EXPECT_EQ(e.code(), ErrorCode::kNotFound);
    EXPECT_NE(msg.find("the library's model is 'unusual_module_name_fred'"), std::string::npos) << msg;
  }
}

TEST(Names, MessagesUseTheUsersModelName) {
  Executor ex = Model::Load(ModelPath("custom_name")).CreateExecutor();
  try {
    ex.InputIndex("nonexistent");
    FAIL() << "no error";
  } catch (const Error& e) {
    std::string msg = e.what();
    EXPECT_NE(msg.find("model 'unusual_module_name_fred'"), std::string::npos) << msg;
    EXPECT_EQ(msg.find("tvmgen_"), std::string::npos) << msg;
  }
}
