// Comparing outputs with reference outputs (`aotrt run --expect`), and the top classes of a
// classifier output (`aotrt run --top`).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include <aotrt/ndarray.h>

namespace aotrt_cli {

struct Tolerance {
  double rtol = 1e-5, atol = 1e-8;   // numpy.allclose's: |got - want| <= atol + rtol * |want|
  bool exact = false;                // --exact: the same dtype and every element bit for bit
};

struct Comparison {
  bool equal = true;            // same shape and every element within tolerance (NaN == NaN)
  std::string problem;          // set when the shapes differ: what differs
  double max_abs_diff = 0;      // largest |got - want| (infinity where one side is NaN/inf)
  int64_t max_index = -1;       // flat index of that element, -1 when there is none
  std::string max_position;     // its index as "[i, j]"
  double got = 0, want = 0;     // the two values there
  int64_t mismatches = 0, elements = 0;
};

// Compare `got` with `want` element by element as doubles (dtypes may differ, e.g. a float64
// reference for a float32 output), or with tol.exact bit for bit (the dtypes must be the same;
// -0 differs from 0, NaN matches only the same NaN). Throws kTypeMismatch for a dtype the tool
// cannot read.
Comparison Compare(const aotrt::NDArray& got, const aotrt::NDArray& want, const Tolerance& tol);

struct Ranked {
  int64_t index;
  double value;
};

// The `k` largest elements of a float [N] or [1, N] tensor (N >= 2: a classifier's scores), largest
// first (ties: lower index first; NaN last). Empty for any other tensor.
std::vector<Ranked> TopK(const aotrt::NDArray& a, int k);

}  // namespace aotrt_cli
