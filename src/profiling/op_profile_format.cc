// OperatorProfile as a table, JSON and CSV (aotrt/profiling.h).
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <sstream>
#include <string>

#include <nlohmann/json.hpp>

#include "aotrt/profiling.h"
#include "profiling/internal.h"

namespace aotrt {

std::string profiling_internal::JsonQuote(const std::string& s) {
  return nlohmann::json(s).dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
}

namespace {

using profiling_internal::JsonQuote;

std::string Fixed(double v, int digits) {
  char buf[64];
  std::snprintf(buf, sizeof(buf), "%.*f", digits, v);
  return buf;
}

std::string JsonNumber(double v) {
  char buf[64];
  std::snprintf(buf, sizeof(buf), "%.10g", v);
  return buf;
}

std::string CostJson(const OperatorCost& c) {
  return "{\"name\": " + JsonQuote(c.name) + ", \"symbol\": " + JsonQuote(c.symbol) +
         ", \"percent\": " + JsonNumber(c.percent) + ", \"ci95\": " + JsonNumber(c.ci95) +
         ", \"mean_ms\": " + JsonNumber(c.mean_ms) + ", \"samples\": " + std::to_string(c.samples) +
         (c.shapes.empty() ? "" : ", \"shapes\": " + JsonQuote(c.shapes)) + "}";
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

std::string OperatorProfile::ToTable() const {
  size_t width = 8;
  for (const OperatorCost& c : operators) width = std::max(width, c.name.size());
  width = std::max(width, outside.name.size());
  std::ostringstream os;
  char buf[1024];
  auto row = [&](const std::string& name, const std::string& pct, const std::string& ci, const std::string& ms,
                 const std::string& n) {
    std::snprintf(buf, sizeof(buf), "%-*s  %8s  %7s  %10s  %8s\n", static_cast<int>(width), name.c_str(), pct.c_str(),
                  ci.c_str(), ms.c_str(), n.c_str());
    os << buf;
  };
  // Milliseconds with about 4 significant digits for a run of run_ms, at least 4 decimals.
  int ms_digits = run_ms > 0 ? std::min(9, std::max(4, 3 - static_cast<int>(std::floor(std::log10(run_ms))))) : 4;
  row(measured ? "Node" : "Operator", "Percent", measured ? "" : "+-95%", "Mean ms", measured ? "Calls" : "Samples");
  for (const OperatorCost& c : operators) {
    row(c.name, Fixed(c.percent, 2), measured ? "" : Fixed(c.ci95, 2), Fixed(c.mean_ms, ms_digits),
        std::to_string(c.samples) + (c.shapes.empty() ? "" : "  " + c.shapes));
  }
  row(outside.name, Fixed(outside.percent, 2), Fixed(outside.ci95, 2), Fixed(outside.mean_ms, ms_digits),
      std::to_string(outside.samples));
  row("Total (mean run)", "100.00", "", Fixed(run_ms, ms_digits), std::to_string(samples));
  if (measured) {
    os << "Graph " << model << " (" << library << "): " << runs << " runs, median " << Fixed(run_ms_median, ms_digits)
       << " ms, every node timed on every run" << (interrupted ? ", interrupted" : "") << "\n";
    return os.str();
  }
  os << "Model " << model << " (" << library << ", symbols from "
     << (symbol_table.empty() ? "nowhere: stripped, by address" : symbol_table) << "): " << runs
     << " runs, median " << Fixed(run_ms_median, ms_digits) << " ms, " << samples << " samples every ~" << period_us
     << " us" << (interrupted ? ", interrupted" : "") << (dropped ? ", " + std::to_string(dropped) + " dropped" : "")
     << "\n";
  return os.str();
}

std::string OperatorProfile::ToJson() const {
  std::string out = "{\"model\": " + JsonQuote(model) + ", \"library\": " + JsonQuote(library) +
                    ", \"symbol_table\": " + JsonQuote(symbol_table) + ", \"run_ms\": " + JsonNumber(run_ms) +
                    ", \"run_ms_median\": " + JsonNumber(run_ms_median) + ", \"runs\": " + std::to_string(runs) +
                    ", \"samples\": " + std::to_string(samples) + ", \"period_us\": " + std::to_string(period_us) +
                    ", \"dropped\": " + std::to_string(dropped) +
                    ", \"interrupted\": " + (interrupted ? "true" : "false") +
                    ", \"measured\": " + (measured ? "true" : "false") + ", \"operators\": [";
  for (size_t i = 0; i < operators.size(); ++i) out += (i ? ", " : "") + CostJson(operators[i]);
  out += "], \"outside\": " + CostJson(outside) + ", \"glue_samples\": " + std::to_string(glue_samples) + "}";
  return out;
}

std::string OperatorProfile::ToCsv() const {
  std::string out = "name,symbol,percent,ci95,mean_ms,samples,shapes\n";
  for (const OperatorCost& c : operators) out += CostCsv(c);
  return out + CostCsv(outside);
}

}  // namespace aotrt
