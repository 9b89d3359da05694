#include "npz.h"

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <memory>

#include <unzip.h>
#include <zip.h>

#include <aotrt/error.h>

#include "npy.h"

namespace aotrt {
namespace {

using aotrt::ErrorCode;

constexpr uint64_t kMaxMemberBytes = uint64_t{4} << 30;   // refuse absurd sizes before allocating

struct UnzCloser {
  void operator()(void* z) const { unzClose(z); }
};

[[noreturn]] void Fail(const std::string& path, const std::string& msg) {
  throw aotrt::Error(ErrorCode::kFormatError, path + ": " + msg);
}

std::string ReadMember(unzFile z, const std::string& path, const std::string& member, uint64_t size) {
  if (size > kMaxMemberBytes) Fail(path, "member " + member + " is too large (" + std::to_string(size) + " bytes)");
  if (unzOpenCurrentFile(z) != UNZ_OK) Fail(path, "cannot open member " + member + " (unsupported compression?)");
  std::string bytes(static_cast<size_t>(size), '\0');
  size_t got = 0;
  while (got < bytes.size()) {
    unsigned chunk = static_cast<unsigned>(std::min<size_t>(bytes.size() - got, 1u << 30));
    int n = unzReadCurrentFile(z, &bytes[got], chunk);
    if (n <= 0) break;
    got += static_cast<size_t>(n);
  }
  char extra;
  bool trailing = unzReadCurrentFile(z, &extra, 1) > 0;
  int rc = unzCloseCurrentFile(z);   // UNZ_CRCERROR when the data does not match its checksum
  if (got != bytes.size() || trailing) Fail(path, "member " + member + " is truncated or corrupt");
  if (rc != UNZ_OK) Fail(path, "member " + member + " fails its CRC check");
  return bytes;
}

}  // namespace

}  // namespace aotrt

bool aotrt_cli::IsNpzPath(const std::string& path) {
  return path.size() > 4 && path.compare(path.size() - 4, 4, ".npz") == 0;
}

namespace aotrt {

std::vector<NamedArray> ReadNpz(const std::string& path) {
  if (std::FILE* f = std::fopen(path.c_str(), "rb")) {   // first, to say why a file cannot be read
    std::fclose(f);
  } else {
    throw aotrt::Error(ErrorCode::kIOError, "cannot open " + path + ": " + std::strerror(errno));
  }
  std::unique_ptr<void, UnzCloser> z(unzOpen64(path.c_str()));
  if (!z) Fail(path, "not a zip archive (.npz files are written by numpy.savez)");
  std::vector<NamedArray> out;
  for (int rc = unzGoToFirstFile(z.get()); rc != UNZ_END_OF_LIST_OF_FILE; rc = unzGoToNextFile(z.get())) {
    if (rc != UNZ_OK) Fail(path, "corrupt zip directory");
    unz_file_info64 info;
    char name[1024];
    if (unzGetCurrentFileInfo64(z.get(), &info, name, sizeof(name), nullptr, 0, nullptr, 0) != UNZ_OK) {
      Fail(path, "corrupt zip directory entry");
    }
    std::string member(name);
    if (member.size() < 5 || member.compare(member.size() - 4, 4, ".npy") != 0) {
      Fail(path, "member '" + member + "' is not a .npy array");
    }
    std::string key = member.substr(0, member.size() - 4);
    for (const NamedArray& t : out) {
      if (t.name == key) Fail(path, "array '" + key + "' appears twice");
    }
    std::string bytes = ReadMember(z.get(), path, member, info.uncompressed_size);
    out.push_back({key, ParseNpy(bytes, path + ":" + member)});
  }
  return out;
}

void WriteNpz(const std::string& path, const std::vector<std::pair<std::string, const DLTensor*>>& arrays) {
  zipFile z = zipOpen64(path.c_str(), APPEND_STATUS_CREATE);
  if (!z) throw aotrt::Error(ErrorCode::kIOError, "cannot create " + path + ": " + std::strerror(errno));
  bool ok = true;
  for (const auto& [name, tensor] : arrays) {
    std::string bytes = SerializeNpy(*tensor);
    zip_fileinfo zi{};
    std::string member = name + ".npy";
    // Stored (method 0) like np.savez; zip64 so that members over 4 GiB stay readable.
    ok = zipOpenNewFileInZip64(z, member.c_str(), &zi, nullptr, 0, nullptr, 0, nullptr, 0, 0, 1) == ZIP_OK;
    for (size_t off = 0; ok && off < bytes.size(); off += 1u << 30) {
      unsigned n = static_cast<unsigned>(std::min<size_t>(bytes.size() - off, 1u << 30));
      ok = zipWriteInFileInZip(z, bytes.data() + off, n) == ZIP_OK;
    }
    ok = ok && zipCloseFileInZip(z) == ZIP_OK;
    if (!ok) break;
  }
  if (zipClose(z, nullptr) != ZIP_OK || !ok) throw aotrt::Error(ErrorCode::kIOError, "cannot write " + path);
}

}  // namespace aotrt
