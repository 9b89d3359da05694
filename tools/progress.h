// Progress on stderr for long benchmarks: silent for the first second, then an updating line on a
// terminal, or otherwise (a log) one line at most every kLogIntervalSeconds, and the last one.
// Called from one thread.
#pragma once

#include <chrono>
#include <string>

namespace aotrt_cli {

class Progress {
 public:
  static constexpr double kLogIntervalSeconds = 5.0;
  explicit Progress(std::string label);
  ~Progress();  // ends an updating line
  void Update(int done, int total);  // "repeat 40/100"
  // --duration: "repeat 40 so far, of --duration 3.0 s": the repeats done, never a percentage;
  // `last`: the final count ("repeat 463 in --duration 3.0 s"), which the report repeats.
  void UpdateTimed(int done, double duration_s, bool last = false);

 private:
  std::string label_;
  std::chrono::steady_clock::time_point start_;
  void Print(const std::string& text, bool last);
  bool tty_;
  bool line_open_ = false;
  bool logged_ = false;    // not a terminal: a line was written, at last_log_ seconds
  double last_log_ = 0;
};

}  // namespace aotrt_cli
