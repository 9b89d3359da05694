// TVM's sorting externs, which generated code reaches through TVMBackendGetFuncFromEnv
// (ABI.md 2.3): tvm.contrib.sort.argsort, .sort, .topk and argsort_nms (CPU detection models' NMS).
//
// Semantics follow TVM: a stable sort on value along `axis` (ascending with <, descending with >),
// ties in index order; topk keeps the first k of that order (k < 1: the whole axis). Unlike TVM,
// every tensor is checked (device, contiguity, dtype, shape) before anything is written.
#include <algorithm>
#include <cstring>
#include <functional>
#include <memory>
#include <new>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "aotrt/half.h"
#include "backend/workspace.h"
#include "base/last_error.h"
#include "aotrt/ndarray.h"
#include "base/error_util.h"
#include "base/device.h"
#include "ffi/registry.h"

namespace aotrt {
namespace {

// Sort keys: every integer type compares exactly as int64, every float type as double.
template <typename Key>
Key ReadKey(const void* base, DLDataType t, int64_t i) {
  const char* p = static_cast<const char*>(base);
  if constexpr (std::is_same_v<Key, double>) {
    if (t.bits == 32) return reinterpret_cast<const float*>(p)[i];
    if (t.bits == 64) return reinterpret_cast<const double*>(p)[i];
    return __gnu_h2f_ieee(reinterpret_cast<const uint16_t*>(p)[i]);
  } else {
    if (t.code == kDLUInt) return reinterpret_cast<const uint8_t*>(p)[i];
    if (t.bits == 8) return reinterpret_cast<const int8_t*>(p)[i];
    if (t.bits == 32) return reinterpret_cast<const int32_t*>(p)[i];
    return reinterpret_cast<const int64_t*>(p)[i];
  }
}

inline bool IsNan(double v) { return v != v; }
inline bool IsNan(int64_t) { return false; }

// The order of a stable sort on value (ties keep index order), as a strict weak order so that the
// non-allocating std::sort gives exactly the stable result. NaNs, which TVM leaves wherever an
// inconsistent comparison puts them, go last in both directions.
template <typename Key, bool kAscend>
bool Before(const std::pair<int64_t, Key>& a, const std::pair<int64_t, Key>& b) {
  bool an = IsNan(a.second), bn = IsNan(b.second);
  if (an || bn) return an == bn ? a.first < b.first : bn;
  if (a.second != b.second) return kAscend ? a.second < b.second : a.second > b.second;
  return a.first < b.first;
}

void WriteIndex(void* base, DLDataType t, int64_t i, int64_t v) {
  char* p = static_cast<char*>(base);
  if (t.code == kDLInt && t.bits == 32) reinterpret_cast<int32_t*>(p)[i] = static_cast<int32_t>(v);
  else if (t.code == kDLInt && t.bits == 64) reinterpret_cast<int64_t*>(p)[i] = v;
  else if (t.code == kDLFloat && t.bits == 32) reinterpret_cast<float*>(p)[i] = static_cast<float>(v);
  else reinterpret_cast<double*>(p)[i] = static_cast<double>(v);
}

// A checked view of one tensor argument.
struct View {
  const DLTensor* t;
  char* data;
};

// `t` checked, its dtype among `dtypes`.
View CheckTensor(const char* fn, const char* what, const DLTensor* t, std::initializer_list<const char*> dtypes) {
  AOTRT_REQUIRE(t != nullptr, kInvalidArgument, fn, ": ", what, " is null");
  AOTRT_REQUIRE(IsAcceptedCpuDevice(t->device), kInvalidArgument, fn, ": ", what, " is not on CPU 0");
  AOTRT_REQUIRE(IsContiguous(*t), kInvalidArgument, fn, ": ", what, " is not contiguous");
  AOTRT_REQUIRE(t->ndim >= 1 && t->shape, kShapeMismatch, fn, ": ", what, " needs at least one dimension");
  AOTRT_REQUIRE(t->dtype.lanes == 1, kTypeMismatch, fn, ": ", what, " has ", t->dtype.lanes, " lanes");
  std::string dtype = DataTypeToString(t->dtype);  // short: no heap allocation in a run
  if (std::none_of(dtypes.begin(), dtypes.end(), [&](const char* n) { return dtype == n; })) {
    std::string allowed;
    for (const char* n : dtypes) allowed += (allowed.empty() ? "" : ", ") + std::string(n);
    AOTRT_THROW(kTypeMismatch, fn, ": unsupported ", what, " dtype ", dtype, " (expected one of ", allowed, ")");
  }
  return View{t, static_cast<char*>(t->data) + t->byte_offset};
}

int NormaliseAxis(const char* fn, int64_t axis, int ndim) {
  if (axis < 0) axis += ndim;
  AOTRT_REQUIRE(axis >= 0 && axis < ndim, kOutOfRange, fn, ": axis ", axis, " out of range for ndim ", ndim);
  return static_cast<int>(axis);
}

// `out` must have `in`'s shape except `extent` along `axis`.
void CheckShape(const char* fn, const char* what, const DLTensor* in, const DLTensor* out, int axis, int64_t extent) {
  bool ok = out->ndim == in->ndim;
  for (int d = 0; ok && d < in->ndim; ++d) ok = out->shape[d] == (d == axis ? extent : in->shape[d]);
  if (!ok) {
    std::vector<int64_t> want(in->shape, in->shape + in->ndim);
    want[axis] = extent;
    AOTRT_THROW(kShapeMismatch, fn, ": ", what, " has shape ", ShapeToString(out->shape, out->ndim), ", expected ",
                ShapeToString(want.data(), static_cast<int>(want.size())));
  }
}

// The lines along `axis`: `before` of them times `after`, each of shape[axis] elements.
std::pair<int64_t, int64_t> Lines(const DLTensor* t, int axis) {
  int64_t before = 1, after = 1;
  for (int d = 0; d < t->ndim; ++d) {
    if (d < axis) before *= t->shape[d];
    if (d > axis) after *= t->shape[d];
  }
  return {before, after};
}

// Sort the first count(line) elements of every line along `axis` (all of them without `count`)
// and hand each position's element to emit(i, j, after, n, rank, index): past the sorted prefix,
// a position keeps its own index.
template <typename Key, typename Emit>
void SortLines(const View& in, int axis, bool ascend, Emit emit, const std::function<int64_t(int64_t)>& count) {
  auto [before, after] = Lines(in.t, axis);
  int64_t n = in.t->shape[axis];
  using Entry = std::pair<int64_t, Key>;
  // Run-time workspace, so that a warm run allocates nothing and an executor in an arena takes it
  // from there (backend/arena_workspace.h).
  std::unique_ptr<void, bool (*)(void*)> buffer(WorkspaceAlloc(static_cast<size_t>(n) * sizeof(Entry) + 1),
                                                WorkspaceFree);
  AOTRT_REQUIRE(buffer != nullptr, kOutOfMemory, "tvm.contrib.sort: ", LastErrorMessage());
  Entry* line = static_cast<Entry*>(buffer.get());
  for (int64_t i = 0; i < before; ++i) {
    for (int64_t j = 0; j < after; ++j) {
      int64_t m = count ? count(i * after + j) : n;
      for (int64_t k = 0; k < m; ++k) new (&line[k]) Entry(k, ReadKey<Key>(in.data, in.t->dtype, (i * n + k) * after + j));
      std::sort(line, line + m, ascend ? Before<Key, true> : Before<Key, false>);
      for (int64_t k = 0; k < n; ++k) emit(i, j, after, n, k, k < m ? line[k].first : k);
    }
  }
}

// emit(i, j, after, n, rank, index): `index` is the element at position `rank` of line (i, j).
template <typename Emit>
void ForEachSortedLine(const View& in, int axis, bool ascend, Emit emit,
                       const std::function<int64_t(int64_t)>& count = nullptr) {
  if (in.t->dtype.code == kDLFloat) return SortLines<double>(in, axis, ascend, emit, count);
  SortLines<int64_t>(in, axis, ascend, emit, count);
}

const std::initializer_list<const char*> kSortable = {"float16", "float32", "float64", "int8", "uint8", "int32",
                                                      "int64"};
const std::initializer_list<const char*> kIndexTypes = {"int32", "int64", "float32", "float64"};

// tvm.contrib.sort.argsort (the indices, in an index dtype) and .sort (the values): (input, output, axis, is_ascend).
template <bool kArgsort>
void SortOrArgsort(TVMArgs args, TVMRetValue*) {
  const char* fn = kArgsort ? "tvm.contrib.sort.argsort" : "tvm.contrib.sort.sort";
  AOTRT_REQUIRE(args.size() == 4, kInvalidArgument, fn, " takes (input, output, axis, is_ascend), got ", args.size(),
                " arguments");
  View in = CheckTensor(fn, "input", args[0].AsDLTensor(), kSortable);
  View out = CheckTensor(fn, "output", args[1].AsDLTensor(), kArgsort ? kIndexTypes : kSortable);
  int axis = NormaliseAxis(fn, args[2].AsInt(), in.t->ndim);
  CheckShape(fn, "output", in.t, out.t, axis, in.t->shape[axis]);
  bool ascend = args[3].AsInt() != 0;
  AOTRT_REQUIRE(kArgsort || DataTypeEqual(in.t->dtype, out.t->dtype), kTypeMismatch, fn, ": output dtype ",
                DataTypeToString(out.t->dtype), " differs from input dtype ", DataTypeToString(in.t->dtype));
  size_t elem = DataTypeBytes(in.t->dtype);
  ForEachSortedLine(in, axis, ascend, [&](int64_t i, int64_t j, int64_t after, int64_t n, int64_t rank, int64_t index) {
    int64_t dst = (i * n + rank) * after + j;
    if (kArgsort) return WriteIndex(out.data, out.t->dtype, dst, index);
    // copy the original bytes: exact for every dtype
    std::memcpy(out.data + dst * elem, in.data + ((i * n + index) * after + j) * elem, elem);
  });
}

void Topk(TVMArgs args, TVMRetValue*) {
  const char* fn = "tvm.contrib.sort.topk";
  AOTRT_REQUIRE(args.size() == 6 || args.size() == 7, kInvalidArgument, fn,
                " takes (input, outputs..., k, axis, ret_type, is_ascend), got ", args.size(), " arguments");
  int n = args.size();
  std::string ret_type = args[n - 2].AsString();
  AOTRT_REQUIRE(ret_type == "both" || ret_type == "values" || ret_type == "indices", kInvalidArgument, fn,
                ": ret_type '", ret_type, "' is not both, values or indices");
  AOTRT_REQUIRE((ret_type == "both") == (n == 7), kInvalidArgument, fn, ": ret_type '", ret_type, "' with ", n - 5,
                " output tensor(s)");
  View in = CheckTensor(fn, "input", args[0].AsDLTensor(), kSortable);
  int axis = NormaliseAxis(fn, args[n - 3].AsInt(), in.t->ndim);
  int64_t k = args[n - 4].AsInt();
  if (k < 1) k = in.t->shape[axis];  // TVM: k < 1 means the whole axis
  k = std::min<int64_t>(k, in.t->shape[axis]);
  View values{nullptr, nullptr}, indices{nullptr, nullptr};
  if (ret_type != "indices") {
    values = CheckTensor(fn, "values", args[1].AsDLTensor(), kSortable);
    AOTRT_REQUIRE(DataTypeEqual(values.t->dtype, in.t->dtype), kTypeMismatch, fn, ": values dtype ",
                  DataTypeToString(values.t->dtype), " differs from input dtype ", DataTypeToString(in.t->dtype));
    CheckShape(fn, "values", in.t, values.t, axis, k);
  }
  if (ret_type != "values") {
    indices = CheckTensor(fn, "indices", args[ret_type == "both" ? 2 : 1].AsDLTensor(), kIndexTypes);
    CheckShape(fn, "indices", in.t, indices.t, axis, k);
  }
  size_t elem = DataTypeBytes(in.t->dtype);
  ForEachSortedLine(in, axis, args[n - 1].AsInt() != 0,
                    [&](int64_t i, int64_t j, int64_t after, int64_t len, int64_t rank, int64_t index) {
                      if (rank >= k) return;
                      int64_t dst = (i * k + rank) * after + j;
                      if (indices.t) WriteIndex(indices.data, indices.t->dtype, dst, index);
                      if (values.t) {
                        std::memcpy(values.data + dst * elem, in.data + ((i * len + index) * after + j) * elem, elem);
                      }
                    });
}

// (input float32, sort_num int32, output int32, axis, is_ascend), as TVM's: in each line along `axis`,
// the first sort_num[line] elements stably sorted by value (ties in index order), the rest of the
// line's positions keeping their own index. A count outside [0, extent] is clamped.
void ArgsortNms(TVMArgs args, TVMRetValue*) {
  const char* fn = "tvm.contrib.sort.argsort_nms";
  AOTRT_REQUIRE(args.size() == 5, kInvalidArgument, fn, " takes (input, sort_num, output, axis, is_ascend), got ",
                args.size(), " arguments");
  View in = CheckTensor(fn, "input", args[0].AsDLTensor(), {"float32"});
  View num = CheckTensor(fn, "sort_num", args[1].AsDLTensor(), {"int32"});
  View out = CheckTensor(fn, "output", args[2].AsDLTensor(), {"int32"});
  int axis = NormaliseAxis(fn, args[3].AsInt(), in.t->ndim);
  bool ascend = args[4].AsInt() != 0;
  CheckShape(fn, "output", in.t, out.t, axis, in.t->shape[axis]);
  std::pair<int64_t, int64_t> lines = Lines(in.t, axis);
  AOTRT_REQUIRE(ShapeElements(num.t->shape, num.t->ndim) >= lines.first * lines.second, kShapeMismatch, fn,
                ": sort_num has ", ShapeElements(num.t->shape, num.t->ndim), " counts for ", lines.first * lines.second,
                " lines");
  const int32_t* counts = reinterpret_cast<const int32_t*>(num.data);
  int64_t n = in.t->shape[axis];
  ForEachSortedLine(in, axis, ascend,
                    [&](int64_t i, int64_t j, int64_t after, int64_t len, int64_t rank, int64_t index) {
                      reinterpret_cast<int32_t*>(out.data)[(i * len + rank) * after + j] = static_cast<int32_t>(index);
                    },
                    [&](int64_t line) { return std::min<int64_t>(std::max<int32_t>(counts[line], 0), n); });
}

}  // namespace

constexpr GlobalDef kDefs[] = {
    {"tvm.contrib.sort.argsort_nms", ArgsortNms},
    {"tvm.contrib.sort.argsort", SortOrArgsort<true>},
    {"tvm.contrib.sort.sort", SortOrArgsort<false>},
    {"tvm.contrib.sort.topk", Topk},
};

extern const GlobalTable kContribGlobals{kDefs};

}  // namespace aotrt
