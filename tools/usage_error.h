// A bad command line found after parsing (a malformed NAME=FILE, an input given twice, an option
// out of range): main() reports it like CLI11's own errors, with exit status 1.
#pragma once

#include <stdexcept>

namespace aotrt_cli {

struct UsageError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

}  // namespace aotrt_cli
