#include "base/mapped_file.h"

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "base/error_util.h"

namespace aotrt {

MappedFile::MappedFile(const std::string& path, const std::string& what) {
  int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) {
    int err = errno;
    if (err == ENOENT) AOTRT_THROW(kNotFound, what, ": no such file");
    AOTRT_THROW(kIOError, what, ": cannot open: ", std::strerror(err));
  }
  struct stat st {};
  if (::fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
    ::close(fd);
    AOTRT_THROW(kIOError, what, ": not a regular file");
  }
  size_ = static_cast<size_t>(st.st_size);
  if (size_ > 0) {
    data_ = ::mmap(nullptr, size_, PROT_READ, MAP_PRIVATE, fd, 0);
    if (data_ == MAP_FAILED) {
      int err = errno;
      data_ = nullptr;
      ::close(fd);
      AOTRT_THROW(kIOError, what, ": cannot map the file: ", std::strerror(err));
    }
  }
  ::close(fd);
}

MappedFile::~MappedFile() {
  if (data_) ::munmap(data_, size_);
}

}  // namespace aotrt
