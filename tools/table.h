// Plain-text tables and number formatting for the command line.
#pragma once

#include <cstdint>
#include <ostream>
#include <string>
#include <vector>

namespace aotrt_cli {

// Rows of cells printed with aligned columns; the first row is the header, underlined.
// Columns listed as numeric are right-aligned.
class Table {
 public:
  explicit Table(std::vector<std::string> header, std::vector<bool> numeric = {});
  void AddRow(std::vector<std::string> row);
  void Print(std::ostream& os, const std::string& indent = "") const;

 private:
  std::vector<std::vector<std::string>> rows_;
  std::vector<bool> numeric_;
};

// "%.<digits>f" of v.
std::string Fixed(double v, int digits);
// Short general form (up to 6 significant digits), e.g. "0.25", "-12.5", "1e+20".
std::string Number(double v);
// "1,234 B", "16.0 KiB (16384 B)".
std::string Bytes(uint64_t n);
// "[1, 64]".
std::string Shape(const std::vector<int64_t>& shape);

}  // namespace aotrt_cli
