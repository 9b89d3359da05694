// A file descriptor closed when it goes out of scope (-1: none), and whole reads and writes on one.
#pragma once

#include <unistd.h>

#include <cerrno>
#include <cstddef>

namespace aotrt {

struct UniqueFd {
  int fd = -1;
  UniqueFd() = default;
  explicit UniqueFd(int f) : fd(f) {}
  UniqueFd(const UniqueFd&) = delete;
  UniqueFd& operator=(const UniqueFd&) = delete;
  ~UniqueFd() {
    if (fd >= 0) ::close(fd);
  }
};

// `io` (::pread or ::pwrite) of all `n` bytes at offset `at` of `fd`, retried on EINTR; false on an
// error (errno set) or when no more bytes go through (errno ENOSPC: a short file, a full disk).
template <typename Byte, typename Io>
bool AllAt(Io io, int fd, Byte* p, size_t n, size_t at) {
  while (n > 0) {
    ssize_t r = io(fd, p, n, static_cast<off_t>(at));
    if (r < 0 && errno == EINTR) continue;
    if (r <= 0) {
      if (r == 0) errno = ENOSPC;
      return false;
    }
    p += r;
    n -= static_cast<size_t>(r);
    at += static_cast<size_t>(r);
  }
  return true;
}

}  // namespace aotrt
