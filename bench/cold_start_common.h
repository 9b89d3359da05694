// What the cold_start driver's files share: a cost (wall time and page faults), measuring one,
// running a measurement in a new process, and the median of samples.
#pragma once

#include <fcntl.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <filesystem>
#include <functional>
#include <string>
#include <vector>

namespace cold_start {

constexpr double kMiB = 1024.0 * 1024.0;

struct Cost {
  double ms = 0;
  long minflt = 0, majflt = 0;
};

// Time and page faults of `fn`.
inline Cost Measure(const std::function<void()>& fn) {
  rusage r0, r1;
  getrusage(RUSAGE_SELF, &r0);
  auto t0 = std::chrono::steady_clock::now();
  fn();
  auto t1 = std::chrono::steady_clock::now();
  getrusage(RUSAGE_SELF, &r1);
  return {std::chrono::duration<double, std::milli>(t1 - t0).count(), r1.ru_minflt - r0.ru_minflt,
          r1.ru_majflt - r0.ru_majflt};
}

// Runs `body` in a child that writes a T to the pipe; returns it (exits on a failed child).
template <typename T>
T InChild(const std::function<T()>& body) {
  int fds[2];
  if (pipe(fds) != 0) std::exit(2);
  pid_t pid = fork();
  if (pid == 0) {
    close(fds[0]);
    try {
      T value = body();
      _exit(write(fds[1], &value, sizeof value) == static_cast<ssize_t>(sizeof value) ? 0 : 3);
    } catch (const std::exception& e) {
      std::fprintf(stderr, "cold_start: %s\n", e.what());
      _exit(4);
    }
  }
  close(fds[1]);
  T value{};
  ssize_t n = read(fds[0], &value, sizeof value);
  close(fds[0]);
  int status = 0;
  waitpid(pid, &status, 0);
  if (n != static_cast<ssize_t>(sizeof value) || !WIFEXITED(status) || WEXITSTATUS(status) != 0) {
    std::fprintf(stderr, "cold_start: a measuring process failed\n");
    std::exit(1);
  }
  return value;
}

// Copies `from` to `to` and flushes the copy to disk before returning: a 16 MiB copy left dirty
// is written back while the next samples run and slows whichever runs then (a bias, not a cost).
inline void CopyFileFlushed(const std::string& from, const std::string& to) {
  std::filesystem::copy_file(from, to, std::filesystem::copy_options::overwrite_existing);
  int fd = open(to.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd >= 0) {
    fsync(fd);
    close(fd);
  }
}

// The sample of median wall time, its faults with it.
inline Cost Median(std::vector<Cost> v) {
  std::sort(v.begin(), v.end(), [](const Cost& a, const Cost& b) { return a.ms < b.ms; });
  return v[v.size() / 2];
}

// The cache figures of issue 25 for `path` (cold_start_cache.cc): a miss with a fresh cache
// directory per sample against dlopen plus one copy of the constants, the same bytes under a new
// name, and then, apart from those, a hit against dlopen (paired, alternating).
void ReportCacheFigures(const std::string& path, int samples, const std::string& scratch);

}  // namespace cold_start
