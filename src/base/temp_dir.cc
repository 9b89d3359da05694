#include "base/temp_dir.h"

#include <ftw.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>

#include "base/error_util.h"

namespace aotrt {

TempDir::TempDir(const std::string& parent, const std::string& prefix) {
  const std::string tmpl = parent + "/" + prefix + "XXXXXX";
  path_ = tmpl;
  AOTRT_REQUIRE(::mkdtemp(path_.data()) != nullptr, kIOError, "cannot create a temporary folder ", tmpl, ": ",
                std::strerror(errno));
}

TempDir::~TempDir() {
  ::nftw(path_.c_str(), [](const char* p, const struct stat*, int, FTW*) { return ::remove(p); }, 16,
         FTW_DEPTH | FTW_PHYS);
}

void TempDir::Write(const std::string& rel, const std::string& bytes) const {
  for (size_t i = rel.find('/'); i != std::string::npos; i = rel.find('/', i + 1)) {
    ::mkdir((path_ + "/" + rel.substr(0, i)).c_str(), 0700);
  }
  std::ofstream out(path_ + "/" + rel, std::ios::binary);
  out.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
  AOTRT_REQUIRE(out.good(), kIOError, "cannot write ", path_, "/", rel);
}

bool TrustedFile(const std::string& path) {
  struct stat st;
  return ::lstat(path.c_str(), &st) == 0 && S_ISREG(st.st_mode) && st.st_uid == ::geteuid() && (st.st_mode & 022) == 0;
}

std::string ReadFileBytes(const std::string& path, size_t max) {
  std::ifstream in(path, std::ios::binary);
  std::string bytes;
  char buf[4096];
  while (bytes.size() < max && in.read(buf, std::min(sizeof buf, max - bytes.size())).gcount() > 0) {
    bytes.append(buf, static_cast<size_t>(in.gcount()));
  }
  return bytes;
}

bool MakeDirectories(const std::string& dir) {
  for (size_t i = 1; i <= dir.size(); ++i) {
    if (i == dir.size() || dir[i] == '/') ::mkdir(dir.substr(0, i).c_str(), 0700);
  }
  struct stat st;
  return ::stat(dir.c_str(), &st) == 0 && S_ISDIR(st.st_mode);
}

}  // namespace aotrt
