// Executor::Run(inputs) -> outputs: one-call inference by position and by name, on generated
// models, with SetInput's checks made before anything is copied, and outputs that are copies.
#include <gtest/gtest.h>

#include <cstring>
#include <string>
#include <utility>
#include <vector>

#include "common/expect_error.h"
#include "common/run_case.h"

using namespace aotrt;
using namespace aotrt_test;

namespace {

void ExpectMatches(const Case& c, const std::vector<NDArray>& outs) {
  ASSERT_EQ(outs.size(), c.expected.size()) << c.name;
  for (size_t i = 0; i < outs.size(); ++i) EXPECT_TRUE(BytesEqual(outs[i], c.expected[i])) << c.name << " output " << i;
}

std::vector<DLTensor> Positional(const Case& c) {
  std::vector<DLTensor> in;
  for (const NDArray& a : c.inputs) in.push_back(a.tensor());
  return in;
}

NDArray Copy(const NDArray& a) {
  NDArray b = NDArray::Empty(std::vector<int64_t>(a.tensor().shape, a.tensor().shape + a.tensor().ndim), a.tensor().dtype);
  std::memcpy(b.data(), a.data(), a.NumBytes());
  return b;
}

}  // namespace

TEST(OneCall, ByPositionMatchesTheReference) {
  Case c = GeneratedCase("multi_io_c");
  Executor ex = Model::Load(c.library).CreateExecutor();
  ExpectMatches(c, ex.Run(Positional(c)));
}

TEST(OneCall, ByNameInAnyOrderWithSanitizedNames) {
  Case c = GeneratedCase("multi_io_c");
  Executor ex = Model::Load(c.library).CreateExecutor();
  std::vector<std::pair<std::string, DLTensor>> named;
  for (size_t i = c.input_names.size(); i-- > 0;) named.emplace_back(Sanitize(c.input_names[i]), c.inputs[i].tensor());
  ExpectMatches(c, ex.Run(named));
}

TEST(OneCall, OutputsAreCopiesUnchangedByLaterRuns) {
  Case c = GeneratedCase("add_c");
  Executor ex = Model::Load(c.library).CreateExecutor();
  std::vector<NDArray> first = ex.Run(Positional(c));
  NDArray alias = ex.GetOutput(0);
  EXPECT_NE(first[0].data(), alias.data());
  NDArray other = Copy(c.inputs[0]);
  std::memset(other.data(), 0, other.NumBytes());  // a different input: the output changes
  std::vector<NDArray> second = ex.Run({{c.input_names[0], other.tensor()}});
  EXPECT_FALSE(BytesEqual(second[0], c.expected[0]));
  ExpectMatches(c, first);  // untouched by the second run
  EXPECT_TRUE(BytesEqual(second[0], ex.GetOutput(0)));
}

TEST(OneCall, NamedSubsetKeepsTheOtherInputsAndParams) {
  Case c = GeneratedCase("add_c");
  Executor ex = Model::Load(c.library).CreateExecutor();
  SetCaseInputs(c, ex);
  ExpectMatches(c, ex.Run({{c.input_names[1], c.inputs[1].tensor()}}));  // input 0 as set before
  ExpectMatches(c, ex.Run(std::vector<std::pair<std::string, DLTensor>>{}));  // all as they are
}

TEST(OneCall, BadInputsChangeNothing) {
  Case c = GeneratedCase("multi_io_c");
  Executor ex = Model::Load(c.library).CreateExecutor();
  std::vector<DLTensor> in = Positional(c);
  EXPECT_AOTRT_ERROR(ex.Run(std::vector<DLTensor>(in.begin(), in.end() - 1)), ErrorCode::kInvalidArgument,
                     {"Run(inputs)", "the model has 4 inputs, got 3"});
  // Input 0 is fine but input 1 has input 0's dtype: nothing is copied, not even input 0.
  NDArray zeros = Copy(c.inputs[0]);
  std::memset(zeros.data(), 0, zeros.NumBytes());
  NDArray before = Copy(ex.GetInput(0));
  std::vector<DLTensor> bad = in;
  bad[0] = zeros.tensor();
  bad[1] = c.inputs[0].tensor();
  EXPECT_AOTRT_ERROR(ex.Run(bad), ErrorCode::kTypeMismatch, {"input 1", c.input_names[1]});
  EXPECT_TRUE(BytesEqual(ex.GetInput(0), before));
  EXPECT_AOTRT_ERROR(ex.Run({{"no_such_input", c.inputs[0].tensor()}}), ErrorCode::kNotFound,
                     {"Invalid input name", "no_such_input"});
  EXPECT_AOTRT_ERROR(ex.Run({{c.input_names[0], zeros.tensor()}, {Sanitize(c.input_names[0]), zeros.tensor()}}),
                     ErrorCode::kInvalidArgument, {"given twice"});
  EXPECT_TRUE(BytesEqual(ex.GetInput(0), before));
  EXPECT_AOTRT_ERROR(Executor().Run(in), ErrorCode::kInvalidArgument, {"empty aotrt::Executor"});
}

TEST(OneCall, ModelErrorsReachTheCaller) {
  Case c = GeneratedCase("failing_c");
  Executor ex = Model::Load(c.library).CreateExecutor();
  EXPECT_AOTRT_ERROR(ex.Run(Positional(c)), ErrorCode::kModelError, {c.expect_error});
}
