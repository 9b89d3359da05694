// TVM's profiling::Report (tvm/runtime/profiling.h) with AsTable / AsCSV / AsJSON, over the
// library's report object (aotrt::ProfileReportObj: the rendered texts), from:
//   - the graph debug executor's profile(...) (tvm.graph_executor_debug.create, or the factory's
//     debug_create), which returns that object, as TVM returns its Report;
//   - TVM's report JSON (profile_rpc's): Report::FromJSON, one line per call ("Name", "Duration
//     (us)", "Percent", "Count", "Argument Shapes"); a JSON without "calls" throws
//     tvm::runtime::Error (kFormatError);
//   - aotrt::ProfileOperators (aotrt/profiling.h): Report(aotrt::ProfileOperators(executor)).
// A Report is immutable: thread-safe.
#pragma once

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <utility>
#include <vector>

#include <tvm/runtime/container/string.h>
#include <tvm/runtime/data_type.h>
#include <tvm/runtime/object.h>

#include "aotrt/profiling.h"

namespace tvm {
namespace runtime {
namespace profiling {

// The library's report object ("runtime.profiling.Report"), as TVM's ReportNode.
using ReportNode = aotrt::ProfileReportObj;

// What the debug executor's JSON says of one call.
struct ReportCall {
  std::string name, shapes;
  double duration_us = 0, percent = 0, count = 0;
};

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

  static Report FromJSON(const std::string& json) {
    std::vector<ReportCall> calls;
    size_t end = json.find("\"device_metrics\"");
    if (json.find("\"calls\"") == std::string::npos) {
      throw Error(aotrt::ErrorCode::kFormatError, "profiling::Report::FromJSON: no \"calls\" in the report");
    }
    for (size_t at = json.find("\"Name\""); at < end; at = json.find("\"Name\"", at + 1)) {
      size_t next = std::min(json.find("\"Name\"", at + 1), end);
      ReportCall c;
      c.name = Text(json, at, next, "\"Name\"");
      c.shapes = Text(json, at, next, "\"Argument Shapes\"");
      c.duration_us = Number(json, at, next, "\"Duration (us)\"");
      c.percent = Number(json, at, next, "\"Percent\"");
      c.count = Number(json, at, next, "\"Count\"");
      calls.push_back(std::move(c));
    }
    std::string table = Row("Name", "Duration (us)", "Percent", "Count", "Argument Shapes"), csv;
    csv = "Name,Duration (us),Percent,Count,Argument Shapes\n";
    double total = 0;
    for (const ReportCall& c : calls) {
      table += Row(c.name, Fixed(c.duration_us), Fixed(c.percent), Fixed(c.count, 0), c.shapes);
      csv += c.name + "," + Fixed(c.duration_us) + "," + Fixed(c.percent) + "," + Fixed(c.count, 0) + ",\"" +
             c.shapes + "\"\n";
      total += c.duration_us;
    }
    table += "----------\n" + Row("Sum", Fixed(total), "", "", "");
    return Report(aotrt::MakeObject<ReportNode>(table, csv, json));
  }

 private:
  static std::string Fixed(double v, int digits = 2) {
    char buf[64];
    std::snprintf(buf, sizeof(buf), "%.*f", digits, v);
    return buf;
  }
  static std::string Row(const std::string& a, const std::string& b, const std::string& c, const std::string& d,
                         const std::string& e) {
    char buf[512];
    std::snprintf(buf, sizeof(buf), "%-40s %14s %8s %6s  %s\n", a.c_str(), b.c_str(), c.c_str(), d.c_str(), e.c_str());
    return buf;
  }
  // The first string value (a JSON string, escapes undone) after `key` within [from, to), or "".
  static std::string Text(const std::string& j, size_t from, size_t to, const char* key) {
    size_t k = j.find(key, from);
    size_t q = k < to ? j.find("\"string\"", k) : std::string::npos;
    q = q < to ? j.find('"', j.find(':', q) + 1) : std::string::npos;
    std::string out;
    for (size_t i = q + 1; q < to && i < j.size() && j[i] != '"'; ++i) out += j[i] == '\\' ? j[++i] : j[i];
    return out;
  }
  // The first number after `key`'s inner ':' within [from, to), or 0.
  static double Number(const std::string& j, size_t from, size_t to, const char* key) {
    size_t k = j.find(key, from);
    size_t colon = k < to ? j.find(':', j.find('{', k)) : std::string::npos;
    return colon < to ? std::strtod(j.c_str() + colon + 1, nullptr) : 0;
  }
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

class DefaultTimerNode : public TimerNode {
 public:
  explicit DefaultTimerNode(Device dev) : dev_(dev) {}
  void Start() override { start_ = Now(); }
  void Stop() override { elapsed_ = Now() - start_; }
  int64_t SyncAndGetElapsedNanos() override { return elapsed_.count(); }
  static constexpr const char* _type_key = "runtime.profiling.DefaultTimerNode";
  TVM_DECLARE_FINAL_OBJECT_INFO(DefaultTimerNode, TimerNode);

 private:
  std::chrono::steady_clock::time_point Now() {
    if (TVMSynchronize(static_cast<int>(dev_.device_type), dev_.device_id, nullptr) != 0) {
      throw Error(TVMGetLastError());
    }
    return std::chrono::steady_clock::now();
  }
  Device dev_;
  std::chrono::steady_clock::time_point start_;
  std::chrono::nanoseconds elapsed_{0};
};

inline Timer DefaultTimer(Device dev) { return Timer(make_object<DefaultTimerNode>(dev)); }
inline Timer Timer::Start(Device dev) {
  Timer t = DefaultTimer(dev);
  t->Start();
  return t;
}

}  // namespace runtime
}  // namespace tvm
