#include "table.h"

#include <algorithm>
#include <cstdio>

namespace aotrt_cli {

Table::Table(std::vector<std::string> header, std::vector<bool> numeric) : numeric_(std::move(numeric)) {
  numeric_.resize(header.size(), false);
  rows_.push_back(std::move(header));
}

void Table::AddRow(std::vector<std::string> row) {
  row.resize(rows_[0].size());
  rows_.push_back(std::move(row));
}

void Table::Print(std::ostream& os, const std::string& indent) const {
  std::vector<size_t> width(rows_[0].size(), 0);
  for (const auto& row : rows_) {
    for (size_t c = 0; c < row.size(); ++c) width[c] = std::max(width[c], row[c].size());
  }
  auto print_row = [&](const std::vector<std::string>& row) {
    std::string line = indent;
    for (size_t c = 0; c < row.size(); ++c) {
      std::string pad(width[c] - row[c].size(), ' ');
      if (c) line += "  ";
      line += numeric_[c] ? pad + row[c] : row[c] + (c + 1 < row.size() ? pad : "");
    }
    os << line << "\n";
  };
  print_row(rows_[0]);
  std::string rule = indent;
  for (size_t c = 0; c < width.size(); ++c) rule += (c ? "  " : "") + std::string(width[c], '-');
  os << rule << "\n";
  for (size_t r = 1; r < rows_.size(); ++r) print_row(rows_[r]);
}

std::string Fixed(double v, int digits) {
  char buf[64];
  std::snprintf(buf, sizeof(buf), "%.*f", digits, v);
  return buf;
}

std::string Number(double v) {
  char buf[64];
  std::snprintf(buf, sizeof(buf), "%.6g", v);
  return buf;
}

std::string Bytes(uint64_t n) {
  if (n < 1024) return std::to_string(n) + " B";
  const char* units[] = {"KiB", "MiB", "GiB", "TiB"};
  double v = static_cast<double>(n);
  int u = -1;
  while (v >= 1024.0 && u < 3) {
    v /= 1024.0;
    ++u;
  }
  return Fixed(v, 1) + " " + units[u] + " (" + std::to_string(n) + " B)";
}

std::string Shape(const std::vector<int64_t>& shape) {
  std::string s = "[";
  for (size_t i = 0; i < shape.size(); ++i) s += (i ? ", " : "") + std::to_string(shape[i]);
  return s + "]";
}

}  // namespace aotrt_cli
