#include "progress.h"

#include <cstdio>
#include <unistd.h>

namespace aotrt_cli {

Progress::Progress(std::string label)
    : label_(std::move(label)), start_(std::chrono::steady_clock::now()), tty_(::isatty(2) == 1) {}

Progress::~Progress() {
  if (line_open_) std::fputc('\n', stderr);
}

void Progress::Update(int done, int total) {
  double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count();
  if (s < 1.0) return;
  if (tty_) {
    std::fprintf(stderr, "\r%s: repeat %d/%d (%.1f s)\x1b[K", label_.c_str(), done, total, s);
    line_open_ = done < total;
    if (!line_open_) std::fputc('\n', stderr);
  } else {
    // A log (CI, a pipe) keeps every line: one every kLogInterval seconds at most.
    if (logged_ && s - last_log_ < kLogIntervalSeconds) return;
    logged_ = true;
    last_log_ = s;
    std::fprintf(stderr, "%s: repeat %d/%d (%.1f s)\n", label_.c_str(), done, total, s);
  }
  std::fflush(stderr);
}

}  // namespace aotrt_cli
