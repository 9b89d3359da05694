#include "base/mapped_file.h"

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "base/error_util.h"
#include "base/unique_fd.h"

namespace aotrt {

MappedFile::MappedFile(const std::string& path, const std::string& what) {
  UniqueFd f(::open(path.c_str(), O_RDONLY | O_CLOEXEC));
  if (f.fd < 0) {
    AOTRT_REQUIRE(errno != ENOENT, kNotFound, what, ": no such file");
    AOTRT_THROW(kIOError, what, ": cannot open: ", std::strerror(errno));
  }
  struct stat st {};
  AOTRT_REQUIRE(::fstat(f.fd, &st) == 0 && S_ISREG(st.st_mode), kIOError, what, ": not a regular file");
  size_ = static_cast<size_t>(st.st_size);
  if (size_ > 0) {
    data_ = ::mmap(nullptr, size_, PROT_READ, MAP_PRIVATE, f.fd, 0);
    if (data_ == MAP_FAILED) {
      data_ = nullptr;
      AOTRT_THROW(kIOError, what, ": cannot map the file: ", std::strerror(errno));
    }
  }
}

MappedFile::~MappedFile() {
  if (data_) ::munmap(data_, size_);
}

}  // namespace aotrt
