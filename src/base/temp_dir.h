// A private temporary folder (mode 0700), removed with everything in it on destruction: the
// object linker's and the C-interface compiler's working folders. Not thread-safe to share.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

namespace aotrt {

// mkdir -p with mode 0700 (XDG); true when `dir` is a directory afterwards. Never throws.
bool MakeDirectories(const std::string& dir);
// Whether `path` is a cached file this user may trust (code, a binary that runs): a regular file of
// theirs that no one else can write. Never throws.
bool TrustedFile(const std::string& path);
// The first (up to) `max` bytes of the file at `path`; "" when it cannot be read. Never throws
// except std::bad_alloc.
std::string ReadFileBytes(const std::string& path, size_t max = SIZE_MAX);

class TempDir {
 public:
  // `parent`/`prefix`XXXXXX. Throws Error(kIOError) naming the template when it cannot be created.
  TempDir(const std::string& parent, const std::string& prefix);
  ~TempDir();
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;

  const std::string& path() const { return path_; }
  // Writes `bytes` to `rel`, a relative path without `..` (its folders created). Throws
  // Error(kIOError) naming the file.
  void Write(const std::string& rel, const std::string& bytes) const;

 private:
  std::string path_;
};

}  // namespace aotrt
