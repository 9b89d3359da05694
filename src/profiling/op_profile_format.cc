// OperatorProfile as a table, JSON and CSV (aotrt/profiling.h).
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <sstream>
#include <string>

#include <nlohmann/json.hpp>

#include "aotrt/profiling.h"
#include "base/json_fields.h"
#include "profiling/internal.h"

namespace aotrt {

std::string profiling_internal::JsonQuote(const std::string& s) {
  return nlohmann::json(s).dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
}

namespace {

using profiling_internal::JsonQuote;

// `v` with `digits` decimals; without, as a JSON number (10 significant digits).
std::string Fixed(double v, int digits = -1) {
  char buf[64];
  std::snprintf(buf, sizeof(buf), digits < 0 ? "%.*g" : "%.*f", digits < 0 ? 10 : digits, v);
  return buf;
}

// A measured (graph) profile counts calls, a sampled one samples.
std::string CostJson(const OperatorCost& c, bool measured) {
  return "{\"name\": " + JsonQuote(c.name) + ", \"symbol\": " + JsonQuote(c.symbol) +
         ", \"percent\": " + Fixed(c.percent) + ", \"ci95\": " + Fixed(c.ci95) +
         ", \"mean_ms\": " + Fixed(c.mean_ms) + (measured ? ", \"calls\": " : ", \"samples\": ") +
         std::to_string(c.samples) + (c.shapes.empty() ? "" : ", \"shapes\": " + JsonQuote(c.shapes)) + "}";
}

// `s` cut to `width` columns, "..." marking the cut (the JSON and CSV keep it whole): in the
// middle for names (tvmgen_default_fused_nn_conv2d... differ at the end), at the end for shapes.
std::string Fit(const std::string& s, size_t width, bool middle = false) {
  if (s.size() <= width) return s;
  size_t keep = width > 3 ? width - 3 : 0, head = middle ? keep / 2 : keep;
  return s.substr(0, head) + "..." + s.substr(s.size() - (keep - head));
}

// CSV field: quoted when it holds a comma, quote or line break.
std::string CsvField(const std::string& s) {
  if (s.find_first_of(",\"\n\r") == std::string::npos) return s;
  std::string out = "\"";
  for (char c : s) out += c == '"' ? std::string("\"\"") : std::string(1, c);
  return out + "\"";
}

std::string CostCsv(const OperatorCost& c) {
  return CsvField(c.name) + "," + CsvField(c.symbol) + "," + Fixed(c.percent, 3) + "," + Fixed(c.ci95, 3) + "," +
         Fixed(c.mean_ms, 6) + "," + std::to_string(c.samples) + "," + CsvField(c.shapes) + "\n";
}

}  // namespace

// Lines of at most about 100 columns: names past 40 and shapes past the line's end are cut.
std::string OperatorProfile::ToTable() const {
  constexpr size_t kNameWidth = 40, kLineWidth = 100;
  size_t width = 16;  // "Total (mean run)"
  bool shapes = false;
  for (const OperatorCost& c : operators) width = std::max(width, std::min(c.name.size(), kNameWidth));
  for (const OperatorCost& c : operators) shapes = shapes || !c.shapes.empty();
  width = std::max(width, outside.name.size());
  std::ostringstream os;
  char buf[1024];
  auto row = [&](const std::string& name, const std::string& pct, const std::string& ci, const std::string& ms,
                 const std::string& n, const std::string& shape) {
    // A measured profile has no +-95% column.
    int len = std::snprintf(buf, sizeof(buf), "%-*s  %8s%s%*s  %10s  %8s", static_cast<int>(width),
                            Fit(name, width, true).c_str(), pct.c_str(), measured ? "" : "  ", measured ? 0 : 7,
                            measured ? "" : ci.c_str(), ms.c_str(), n.c_str());
    size_t used = static_cast<size_t>(std::max(len, 0)) + 2;
    os << buf << (shape.empty() ? "" : "  " + Fit(shape, used < kLineWidth ? kLineWidth - used : 20)) << "\n";
  };
  // Milliseconds with about 4 significant digits for a run of run_ms, at least 4 decimals.
  int ms_digits = run_ms > 0 ? std::min(9, std::max(4, 3 - static_cast<int>(std::floor(std::log10(run_ms))))) : 4;
  row(!measured ? "Operator" : executor == "VM" ? "Primitive" : "Node", "Percent", "+-95%", "Mean ms", measured ? "Calls" : "Samples",
      shapes ? "Argument shapes" : "");
  for (const OperatorCost& c : operators) {
    row(c.name, Fixed(c.percent, 2), Fixed(c.ci95, 2), Fixed(c.mean_ms, ms_digits), std::to_string(c.samples), c.shapes);
  }
  row(outside.name, Fixed(outside.percent, 2), Fixed(outside.ci95, 2), Fixed(outside.mean_ms, ms_digits),
      measured ? "" : std::to_string(outside.samples), "");
  row("Total (mean run)", "100.00", "", Fixed(run_ms, ms_digits), std::to_string(samples), "");
  std::string source = !measured ? " (" + library + ", symbols from " +
                                       (symbol_table.empty() ? "nowhere: stripped, by address" : symbol_table) + ")"
                       : library.empty() ? "" : " (" + library + ")";
  os << (measured ? executor : "Model") << " " << model << source << ": " << runs << " runs, median "
     << Fixed(run_ms_median, ms_digits) << " ms";
  if (!measured) os << ", " << samples << " samples every ~" << period_us << " us";
  os << (interrupted ? ", interrupted" : "") << (dropped ? ", " + std::to_string(dropped) + " dropped" : "") << "\n";
  const char* op = executor == "VM" ? "kernel call" : "node";
  if (measured) os << "every " << op << " timed on every run (measured, not sampled); " << op << "s by cost, highest first\n";
  return os.str();
}

std::string OperatorProfile::ToJson() const {
  std::string out = "{\"model\": " + JsonQuote(model) + ", \"library\": " + JsonQuote(library) +
                    ", \"symbol_table\": " + JsonQuote(symbol_table) + ", \"run_ms\": " + Fixed(run_ms) +
                    ", \"run_ms_median\": " + Fixed(run_ms_median) + ", \"runs\": " + std::to_string(runs) +
                    (measured ? ", \"calls\": " : ", \"samples\": ") + std::to_string(samples) +
                    ", \"period_us\": " + std::to_string(period_us) +
                    ", \"dropped\": " + std::to_string(dropped) +
                    ", \"interrupted\": " + (interrupted ? "true" : "false") +
                    ", \"measured\": " + (measured ? "true" : "false") + ", \"operators\": [";
  for (size_t i = 0; i < operators.size(); ++i) out += (i ? ", " : "") + CostJson(operators[i], measured);
  out += "], \"outside\": " + CostJson(outside, measured) + ", \"glue_samples\": " + std::to_string(glue_samples) + "}";
  return out;
}

std::string OperatorProfile::ToCsv() const {
  std::string out = StrCat("name,symbol,percent,ci95,mean_ms,", measured ? "calls" : "samples", ",shapes\n");
  for (const OperatorCost& c : operators) out += CostCsv(c);
  return out + CostCsv(outside);
}

// TVM's report JSON (Report.from_json reads it), each operator's calls its Count, with the CSV
// Report::FromJSON makes of it.
ObjectPtr<ProfileReportObj> MakeProfileReport(const OperatorProfile& p) {
  auto str = [](const std::string& v) { return "{\"string\": " + JsonQuote(v) + "}"; };
  std::string calls;
  for (const OperatorCost& c : p.operators) {
    calls += (calls.empty() ? "" : ", ") + std::string("{\"Name\": ") + str(c.symbol) + ", \"Argument Shapes\": " +
             str(c.shapes) + ", \"Device\": " + str("cpu0") + ", \"Count\": {\"count\": " + std::to_string(c.samples) +
             "}, \"Duration (us)\": {\"microseconds\": " + Fixed(c.mean_ms * 1000) +
             "}, \"Percent\": {\"percent\": " + Fixed(c.percent) + "}}";
  }
  std::string json = "{\"calls\": [" + calls + "], \"device_metrics\": {\"cpu0\": {\"Name\": " + str("Total") +
                     ", \"Count\": {\"count\": 1}, \"Duration (us)\": {\"microseconds\": " + Fixed(p.run_ms * 1000) +
                     "}, \"Percent\": {\"percent\": 100}}}, \"configuration\": {\"Executor\": " + str(p.executor) + "}}";
  return MakeObject<ProfileReportObj>(p.ToTable(), ProfileReportFromJson(json)->csv, json);
}

ObjectPtr<ProfileReportObj> ProfileReportFromJson(const std::string& json) {
  Json doc = ParseJsonText(json, "profiling::Report::FromJSON");
  AOTRT_REQUIRE(doc.is_object() && doc.contains("calls") && doc["calls"].is_array(), kFormatError,
                "profiling::Report::FromJSON: no \"calls\" in the report");
  auto field = [](const Json& call, const char* key) {  // the value of {"string": "..."}, {"percent": 80}, ...
    auto it = call.is_object() ? call.find(key) : call.end();
    return it != call.end() && it->is_object() && !it->empty() ? it->begin().value() : Json();
  };
  auto text = [&](const Json& c, const char* key) { return field(c, key).is_string() ? field(c, key).get<std::string>() : ""; };
  auto number = [&](const Json& c, const char* key) { return field(c, key).is_number() ? field(c, key).get<double>() : 0; };
  auto row = [](const std::string& a, const std::string& b, const std::string& c, const std::string& d,
                const std::string& e) {
    char buf[512];
    std::snprintf(buf, sizeof(buf), "%-40s %14s %8s %6s  %s\n", a.c_str(), b.c_str(), c.c_str(), d.c_str(), e.c_str());
    return std::string(buf);
  };
  std::string table = row("Name", "Duration (us)", "Percent", "Count", "Argument Shapes");
  std::string csv = "Name,Duration (us),Percent,Count,Argument Shapes\n";
  double total = 0;
  for (const Json& c : doc["calls"]) {
    std::string name = text(c, "Name"), shapes = text(c, "Argument Shapes"), us = Fixed(number(c, "Duration (us)"), 2),
                percent = Fixed(number(c, "Percent"), 2), count = Fixed(number(c, "Count"), 0);
    table += row(name, us, percent, count, shapes);
    csv += CsvField(name) + "," + us + "," + percent + "," + count + "," + CsvField(shapes) + "\n";
    total += number(c, "Duration (us)");
  }
  table += "----------\n" + row("Sum", Fixed(total, 2), "", "", "");
  return MakeObject<ProfileReportObj>(table, csv, json);
}

}  // namespace aotrt
