#include "compare.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>

#include <aotrt/error.h>

#include "model_io.h"

namespace aotrt_cli {
namespace {

std::string Position(int64_t flat, const std::vector<int64_t>& shape) {
  std::vector<int64_t> idx(shape.size());
  for (size_t d = shape.size(); d-- > 0;) {
    idx[d] = shape[d] ? flat % shape[d] : 0;
    flat = shape[d] ? flat / shape[d] : 0;
  }
  std::string s = "[";
  for (size_t d = 0; d < idx.size(); ++d) s += (d ? ", " : "") + std::to_string(idx[d]);
  return s + "]";
}

double Difference(double got, double want) {
  if (std::isnan(got) && std::isnan(want)) return 0;
  if (got == want) return 0;   // equal infinities
  if (std::isnan(got) || std::isnan(want)) return std::numeric_limits<double>::infinity();
  return std::fabs(got - want);
}

}  // namespace

Comparison Compare(const aotrt::NDArray& got, const aotrt::NDArray& want, const Tolerance& tol) {
  Comparison c;
  std::vector<int64_t> gs = got.Shape(), ws = want.Shape();
  if (gs != ws) {
    c.equal = false;
    c.problem = "shape " + aotrt::ShapeToString(gs.data(), static_cast<int>(gs.size())) + ", expected " +
                aotrt::ShapeToString(ws.data(), static_cast<int>(ws.size()));
    return c;
  }
  if (tol.exact && !aotrt::DataTypeEqual(got.dtype(), want.dtype())) {
    c.equal = false;
    c.problem = "dtype " + aotrt::DataTypeToString(got.dtype()) + ", expected " + aotrt::DataTypeToString(want.dtype()) +
                " (--exact compares bits)";
    return c;
  }
  c.elements = aotrt::ShapeElements(gs.data(), static_cast<int>(gs.size()));
  const size_t width = aotrt::DataTypeBytes(got.dtype());
  const auto* gb = static_cast<const unsigned char*>(got.data());
  const auto* wb = static_cast<const unsigned char*>(want.data());
  for (int64_t i = 0; i < c.elements; ++i) {
    double g = ElementAsDouble(got, i), w = ElementAsDouble(want, i);
    double diff = Difference(g, w);
    bool close = tol.exact ? std::memcmp(gb + i * width, wb + i * width, width) == 0
                           : diff == 0 || diff <= tol.atol + tol.rtol * std::fabs(w);  // exact (NaN, inf) always
    if (!close) ++c.mismatches;
    // The element shown: the largest difference; with --exact, among the elements that differ
    // (the first of them, when they differ only in bits: -0 and 0, NaN payloads).
    bool show = tol.exact ? (!close ? c.mismatches == 1 || diff > c.max_abs_diff : c.mismatches == 0 && c.max_index < 0)
                          : c.max_index < 0 || diff > c.max_abs_diff;
    if (show) {
      c.max_abs_diff = diff;
      c.max_index = i;
      c.got = g;
      c.want = w;
    }
  }
  if (c.max_index >= 0) c.max_position = Position(c.max_index, gs);
  c.equal = c.mismatches == 0;
  return c;
}

std::vector<Ranked> TopK(const aotrt::NDArray& a, int k) {
  std::vector<int64_t> shape = a.Shape();
  bool vector = shape.size() == 1 || (shape.size() == 2 && shape[0] == 1);
  int64_t n = aotrt::ShapeElements(shape.data(), static_cast<int>(shape.size()));
  if (!vector || n < 2 || a.dtype().code != kDLFloat || k <= 0) return {};   // scores, not class ids
  std::vector<Ranked> all;
  for (int64_t i = 0; i < n; ++i) all.push_back({i, ElementAsDouble(a, i)});
  size_t keep = std::min<size_t>(static_cast<size_t>(k), all.size());
  auto larger = [](const Ranked& x, const Ranked& y) {
    if (std::isnan(x.value) != std::isnan(y.value)) return std::isnan(y.value);   // NaN last
    return x.value > y.value || (x.value == y.value && x.index < y.index);
  };
  std::partial_sort(all.begin(), all.begin() + static_cast<std::ptrdiff_t>(keep), all.end(), larger);
  all.resize(keep);
  return all;
}

}  // namespace aotrt_cli
