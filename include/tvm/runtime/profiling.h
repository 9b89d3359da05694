// TVM's profiling::Report (tvm/runtime/profiling.h: AsTable / AsCSV / AsJSON) over the library's
// report object (aotrt::ProfileReportObj), from the graph debug executor's profile(...), from
// TVM's report JSON (Report::FromJSON: kFormatError without "calls"), or from
// aotrt::ProfileOperators(executor). Immutable: thread-safe. And TVM's Timer.
#pragma once

#include <chrono>
#include <string>
#include <utility>

#include <tvm/runtime/container/string.h>
#include <tvm/runtime/data_type.h>
#include <tvm/runtime/object.h>

#include "aotrt/profiling.h"

namespace tvm {
namespace runtime {
namespace profiling {

// The library's report object ("runtime.profiling.Report"), as TVM's ReportNode.
using ReportNode = aotrt::ProfileReportObj;

class Report : public ObjectRef {
 public:
  using ContainerType = ReportNode;
  static constexpr bool _type_is_nullable = false;
  explicit Report(const aotrt::OperatorProfile& p)
      : ObjectRef(aotrt::MakeObject<ReportNode>(p.ToTable(), p.ToCsv(), p.ToJson())) {}
  explicit Report(ObjectPtr<Object> n) : ObjectRef(std::move(n)) {}
  const ReportNode* operator->() const { return static_cast<const ReportNode*>(get()); }
  String AsTable(bool sort = true, bool aggregate = true, bool compute_col_sums = true) const {
    return String((*this)->AsTable(sort, aggregate, compute_col_sums));
  }
  String AsCSV() const { return String((*this)->AsCSV()); }
  String AsJSON() const { return String((*this)->AsJSON()); }
  static Report FromJSON(const std::string& json) { return Report(aotrt::ProfileReportFromJson(json)); }
};

// TVM's metric collectors (the argument of profile(...)): accepted and not used.
class MetricCollector : public ObjectRef {
 public:
  using ContainerType = Object;
  MetricCollector() = default;
  explicit MetricCollector(ObjectPtr<Object> n) : ObjectRef(std::move(n)) {}
};

}  // namespace profiling

// TVM's timers. Timer::Start(dev) starts DefaultTimer(dev): the host's steady clock, the device
// synchronized (TVMSynchronize) at start and stop; its error is thrown as tvm::runtime::Error.
class TimerNode : public Object {
 public:
  virtual void Start() = 0;
  virtual void Stop() = 0;
  virtual int64_t SyncAndGetElapsedNanos() = 0;
  static constexpr const char* _type_key = "TimerNode";
  TVM_DECLARE_BASE_OBJECT_INFO(TimerNode, Object);
};

class Timer : public ObjectRef {
 public:
  TVM_DEFINE_MUTABLE_OBJECT_REF_METHODS(Timer, ObjectRef, TimerNode);
  static Timer Start(Device dev);
};

inline Timer DefaultTimer(Device dev) {
  struct Node : TimerNode {
    explicit Node(Device d) : dev(d) {}
    void Start() override { start = Now(); }
    void Stop() override { elapsed = Now() - start; }
    int64_t SyncAndGetElapsedNanos() override { return std::chrono::nanoseconds(elapsed).count(); }
    std::chrono::steady_clock::time_point Now() {
      detail::CheckCall(TVMSynchronize(dev.device_type, dev.device_id, nullptr));
      return std::chrono::steady_clock::now();
    }
    Device dev;
    std::chrono::steady_clock::time_point start;
    std::chrono::steady_clock::duration elapsed{};
  };
  return Timer(make_object<Node>(dev));
}
inline Timer Timer::Start(Device dev) {
  Timer t = DefaultTimer(dev);
  t->Start();
  return t;
}

}  // namespace runtime
}  // namespace tvm
