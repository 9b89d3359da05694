// Progress on stderr for long benchmarks: silent for the first second, then an updating line on a
// terminal, or one line per update otherwise. Called from one thread.
#pragma once

#include <chrono>
#include <string>

namespace aotrt_cli {

class Progress {
 public:
  explicit Progress(std::string label);
  ~Progress();  // ends an updating line
  void Update(int done, int total);

 private:
  std::string label_;
  std::chrono::steady_clock::time_point start_;
  bool tty_;
  bool line_open_ = false;
};

}  // namespace aotrt_cli
