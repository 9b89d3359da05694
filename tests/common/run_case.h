// Test helper: drive a reference case through the C++ API and compare bit for bit.
#pragma once

#include <gtest/gtest.h>

#include "aotrt/model.h"
#include "common/cases.h"

namespace aotrt_test {

inline void SetCaseInputs(const Case& c, aotrt::Executor& ex) {
  for (size_t i = 0; i < c.input_names.size(); ++i) {
    if (c.inputs[i].defined()) ex.SetInput(c.input_names[i], c.inputs[i].tensor());
  }
}

inline void ExpectOutputsMatch(const Case& c, const aotrt::Executor& ex) {
  ASSERT_EQ(ex.NumOutputs(), c.expected.size()) << c.name;
  for (size_t i = 0; i < c.expected.size(); ++i) {
    aotrt::NDArray got = ex.GetOutput(i);
    EXPECT_TRUE(BytesEqual(got, c.expected[i])) << c.name << ": output " << i << " differs";
  }
}

// A new executor of `m` runs the case bit-exact.
inline void ExpectNewExecutorMatches(const Case& c, const aotrt::Model& m) {
  aotrt::Executor ex = m.CreateExecutor();
  SetCaseInputs(c, ex);
  ex.Run();
  ExpectOutputsMatch(c, ex);
}

}  // namespace aotrt_test
