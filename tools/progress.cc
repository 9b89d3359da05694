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
  Print("repeat " + std::to_string(done) + "/" + std::to_string(total), done >= total);
}

void Progress::UpdateTimed(int done, double duration_s, bool last) {
  char buf[64];
  std::snprintf(buf, sizeof(buf), last ? " in --duration %.1f s" : " so far, of --duration %.1f s", duration_s);
  Print("repeat " + std::to_string(done) + buf, last);
}

void Progress::Print(const std::string& text, bool last) {
  double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count();
  if (s < 1.0) return;
  if (tty_) {
    std::fprintf(stderr, "\r%s: %s (%.1f s)\x1b[K", label_.c_str(), text.c_str(), s);
    line_open_ = !last;
    if (!line_open_) std::fputc('\n', stderr);
  } else {
    // A log (CI, a pipe) keeps every line: one every kLogInterval seconds at most, and the last.
    if (logged_ && s - last_log_ < kLogIntervalSeconds && !last) return;
    logged_ = true;
    last_log_ = s;
    std::fprintf(stderr, "%s: %s (%.1f s)\n", label_.c_str(), text.c_str(), s);
  }
  std::fflush(stderr);
}

}  // namespace aotrt_cli
