// A read-only mapping of a whole regular file, unmapped on destruction. Throws kNotFound (no such
// file) or kIOError (not a regular file, cannot open or map), naming the file as `what`.
#pragma once

#include <string>

namespace aotrt {

class MappedFile {
 public:
  MappedFile(const std::string& path, const std::string& what);
  ~MappedFile();
  MappedFile(const MappedFile&) = delete;
  MappedFile& operator=(const MappedFile&) = delete;

  const void* data() const { return data_; }
  size_t size() const { return size_; }

 private:
  void* data_ = nullptr;
  size_t size_ = 0;
};

}  // namespace aotrt
