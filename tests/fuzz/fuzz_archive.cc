// libFuzzer target: the archive reader of C-interface exports (module/archive_reader.h) on
// arbitrary bytes: a tar, possibly gzip/xz/bzip2/zstd-compressed. Every member is wanted, so that
// each one's data is read; limits small enough that a claimed size cannot exhaust memory.
#include <sys/mman.h>
#include <unistd.h>

#include <cstddef>
#include <cstdint>
#include <string>

#include "aotrt/error.h"
#include "module/loader/archive_reader.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  aotrt::ArchiveLimits limits;
  limits.max_member_bytes = 1 << 20;
  limits.max_stream_bytes = 64 << 20;
  limits.max_members = 1000;
  // The bytes as an in-memory file, named by its path as the loader names one loaded from memory.
  int fd = ::memfd_create("fuzz.tar", MFD_CLOEXEC);
  if (fd < 0) return 0;
  if (::write(fd, data, size) == static_cast<ssize_t>(size)) {
    try {
      (void)aotrt::ReadArchive("/proc/self/fd/" + std::to_string(fd), [](const std::string&) { return true; }, limits);
    } catch (const aotrt::Error&) {
    }
  }
  ::close(fd);
  return 0;
}
