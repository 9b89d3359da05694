// libFuzzer target: the archive reader of C-interface exports (module/archive_reader.h) on
// arbitrary bytes: a tar, possibly gzip/xz/bzip2/zstd-compressed. Every member is wanted, so that
// each one's data is read; limits small enough that a claimed size cannot exhaust memory.
#include <cstddef>
#include <cstdint>

#include "aotrt/error.h"
#include "module/loader/archive_reader.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  aotrt::ArchiveLimits limits;
  limits.max_member_bytes = 1 << 20;
  limits.max_stream_bytes = 64 << 20;
  limits.max_members = 1000;
  try {
    (void)aotrt::ReadArchiveFromMemory(data, size, "fuzz.tar", [](const std::string&) { return true; }, limits);
  } catch (const aotrt::Error&) {
  }
  return 0;
}
