// TVM's profiling::Report (tvm/runtime/profiling.h) with AsTable / AsCSV / AsJSON, over aotrt's
// per-operator profile (aotrt::ProfileOperators, aotrt/profiling.h):
//   tvm::runtime::profiling::Report r(aotrt::ProfileOperators(executor));
//   std::cout << r->AsTable();
// TVM's debug executor ("tvm.graph_executor_debug.create") and its profile() are not offered:
// Registry::Get of that name returns nullptr (README "Moving a C++ program from TVM's runtime").
// A Report is immutable: thread-safe.
#pragma once

#include <string>
#include <utility>

#include <tvm/runtime/container/string.h>
#include <tvm/runtime/object.h>

#include "aotrt/profiling.h"

namespace tvm {
namespace runtime {
namespace profiling {

class ReportNode : public Object {
 public:
  static constexpr uint32_t _type_index = aotrt::kTypeStaticEnd + 1;  // local to these headers
  explicit ReportNode(aotrt::OperatorProfile p) : Object(_type_index), profile(std::move(p)) {}
  // TVM's arguments (sort, aggregate, compute_col_sums) are accepted; aotrt's table is always
  // sorted by cost, one line per operator, with a total line.
  String AsTable(bool sort = true, bool aggregate = true, bool compute_col_sums = true) const {
    (void)sort, (void)aggregate, (void)compute_col_sums;
    return profile.ToTable();
  }
  String AsCSV() const { return profile.ToCsv(); }
  String AsJSON() const { return profile.ToJson(); }
  const aotrt::OperatorProfile profile;
};

class Report : public ObjectRef {
 public:
  using ContainerType = ReportNode;
  static constexpr bool _type_is_nullable = false;
  explicit Report(aotrt::OperatorProfile p) : ObjectRef(aotrt::MakeObject<ReportNode>(std::move(p))) {}
  explicit Report(ObjectPtr<Object> n) : ObjectRef(std::move(n)) {}
  const ReportNode* operator->() const { return static_cast<const ReportNode*>(get()); }
  String AsTable(bool sort = true, bool aggregate = true, bool compute_col_sums = true) const {
    return (*this)->AsTable(sort, aggregate, compute_col_sums);
  }
  String AsCSV() const { return (*this)->AsCSV(); }
  String AsJSON() const { return (*this)->AsJSON(); }
};

}  // namespace profiling
}  // namespace runtime
}  // namespace tvm
