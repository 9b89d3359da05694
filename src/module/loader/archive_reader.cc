#include "module/loader/archive_reader.h"

#include <dirent.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <algorithm>
#include <cstring>
#include <memory>

#include "base/error_util.h"
#include "base/unique_fd.h"
#include "module/loader/libarchive_api.h"

namespace aotrt {
namespace {

// The member's normalized path ("" for the root itself); throws for an absolute or climbing one.
std::string NormalizeMemberPath(const std::string& raw, const std::string& archive) {
  AOTRT_REQUIRE(raw.empty() || raw[0] != '/', kFormatError, archive, ": member '", raw,
                "' has an absolute path: refused (an archive's members must stay inside it)");
  std::string out;
  size_t start = 0;
  while (start <= raw.size()) {
    size_t end = raw.find('/', start);
    if (end == std::string::npos) end = raw.size();
    std::string part = raw.substr(start, end - start);
    AOTRT_REQUIRE(part != "..", kFormatError, archive, ": member '", raw,
                  "' has a '..' component: refused (a path that climbs out of the archive)");
    if (!part.empty() && part != ".") out += (out.empty() ? "" : "/") + part;
    start = end + 1;
  }
  return out;
}

struct Collector {
  // Records a member; returns whether its bytes are wanted. `size` < 0: unknown.
  bool Admit(const std::string& path, bool regular, int64_t size) {
    AOTRT_REQUIRE(contents.names.size() < limits.max_members, kFormatError, archive, ": more than ",
                  limits.max_members, " members: refused as absurd for a model archive");
    AOTRT_REQUIRE(size < 0 || static_cast<uint64_t>(size) <= limits.max_member_bytes, kFormatError, archive,
                  ": member '", path, "' claims ", size, " bytes, over the limit of ", limits.max_member_bytes,
                  ": refused as absurd for a model archive");
    contents.names.push_back(path);
    if (!regular || !want(path)) return false;
    AOTRT_REQUIRE(contents.files.count(path) == 0, kFormatError, archive, ": member '", path,
                  "' appears twice: refused (which one is meant?)");
    return true;
  }

  const std::string& archive;
  ArchiveWant want;
  const ArchiveLimits& limits;
  ArchiveContents contents;
};

// libarchive's message for the last failure on `a`.
const char* ErrorOf(const LibArchiveApi& la, archive* a) {
  const char* e = la.error_string(a);
  return e ? e : "unknown error";
}

const char* EntryType(mode_t type) {
  switch (type) {
    case AE_IFLNK: return "a symbolic link";
    case AE_IFCHR: return "a character device";
    case AE_IFBLK: return "a block device";
    case AE_IFIFO: return "a pipe";
    case AE_IFSOCK: return "a socket";
    default: return "of an unknown type";
  }
}

void ReadTar(const LibArchiveApi& la, archive* a, Collector* c) {
  const std::string& name = c->archive;
  archive_entry* entry = nullptr;
  for (;;) {
    int r = la.next_header(a, &entry);
    if (r == ARCHIVE_EOF) return;
    AOTRT_REQUIRE(r == ARCHIVE_OK || r == ARCHIVE_WARN, kFormatError, name, ": not a readable tar archive: ", ErrorOf(la, a),
                  " (truncated or corrupt?)");
    AOTRT_REQUIRE(static_cast<uint64_t>(la.filter_bytes(a, 0)) <= c->limits.max_stream_bytes, kFormatError, name,
                  ": over ", c->limits.max_stream_bytes, " bytes once decompressed: refused as absurd for a model archive");
    const char* raw = la.entry_pathname(entry);
    std::string raw_path = raw ? raw : "";
    std::string path = NormalizeMemberPath(raw_path, name);
    AOTRT_REQUIRE(la.entry_hardlink(entry) == nullptr, kFormatError, name, ": member '", raw_path,
                  "' is a hard link: refused (aotrt reads regular files only)");
    mode_t type = la.entry_filetype(entry);
    AOTRT_REQUIRE(type == AE_IFREG || type == AE_IFDIR, kFormatError, name, ": member '", raw_path, "' is ",
                  EntryType(type), ": refused (aotrt reads regular files only)");
    if (path.empty()) continue;  // the root folder
    int64_t size = la.entry_size_is_set(entry) ? la.entry_size(entry) : -1;
    if (!c->Admit(path, type == AE_IFREG, size)) continue;
    std::string bytes(static_cast<size_t>(size > 0 ? size : 0), '\0');
    size_t got = 0;
    while (got < bytes.size()) {
      la_ssize_t n = la.read_data(a, &bytes[got], bytes.size() - got);
      AOTRT_REQUIRE(n > 0, kFormatError, name, ": member '", raw_path, "': ", n == 0 ? "ends early" : "cannot be read",
                    " after ", got, " of ", bytes.size(), " bytes",
                    n < 0 && la.error_string(a) ? StrCat(": ", la.error_string(a)) : std::string(),
                    " (truncated or corrupt archive)");
      got += static_cast<size_t>(n);
    }
    c->contents.files[path] = std::move(bytes);
  }
}

std::string ReadRegularFile(const std::string& full, const std::string& member, const Collector& c) {
  UniqueFd fd(::open(full.c_str(), O_RDONLY | O_NOFOLLOW | O_CLOEXEC));
  AOTRT_REQUIRE(fd.fd >= 0, kIOError, c.archive, ": member '", member, "': cannot open: ", std::strerror(errno));
  struct stat st;
  AOTRT_REQUIRE(::fstat(fd.fd, &st) == 0 && S_ISREG(st.st_mode), kFormatError, c.archive, ": member '", member,
                "' is not a regular file: refused");
  AOTRT_REQUIRE(static_cast<uint64_t>(st.st_size) <= c.limits.max_member_bytes, kFormatError, c.archive,
                ": member '", member, "' has ", st.st_size, " bytes, over the limit of ", c.limits.max_member_bytes);
  std::string bytes(static_cast<size_t>(st.st_size), '\0');
  AOTRT_REQUIRE(AllAt(::pread, fd.fd, bytes.data(), bytes.size(), 0), kIOError, c.archive, ": member '", member,
                "': reading its ", bytes.size(), " bytes failed",
                errno == ENOSPC ? std::string(" (the file shrank)") : StrCat(": ", std::strerror(errno)));
  return bytes;
}

void ReadFolder(const std::string& dir, const std::string& prefix, int depth, Collector* c) {
  AOTRT_REQUIRE(depth <= c->limits.max_folder_depth, kFormatError, c->archive, ": folder '", prefix,
                "' is nested over ", c->limits.max_folder_depth, " levels deep: refused as absurd for a model archive");
  std::unique_ptr<DIR, int (*)(DIR*)> d(::opendir(dir.c_str()), ::closedir);
  AOTRT_REQUIRE(d != nullptr, kIOError, c->archive, ": cannot list ", prefix.empty() ? std::string("the folder") : "'" + prefix + "'",
                ": ", std::strerror(errno));
  std::vector<std::string> entries;
  while (dirent* e = ::readdir(d.get())) {
    std::string n = e->d_name;
    if (n != "." && n != "..") entries.push_back(n);
  }
  std::sort(entries.begin(), entries.end());  // a stable order, whatever the file system's
  for (const std::string& n : entries) {
    std::string full = dir + "/" + n, member = prefix.empty() ? n : prefix + "/" + n;
    struct stat st;
    AOTRT_REQUIRE(::lstat(full.c_str(), &st) == 0, kIOError, c->archive, ": member '", member, "': ", std::strerror(errno));
    if (S_ISLNK(st.st_mode)) AOTRT_THROW(kFormatError, c->archive, ": member '", member, "' is a symbolic link: refused (aotrt reads regular files only)");
    if (S_ISDIR(st.st_mode)) {
      c->Admit(member, false, -1);
      ReadFolder(full, member, depth + 1, c);
    } else if (S_ISREG(st.st_mode)) {
      if (c->Admit(member, true, st.st_size)) c->contents.files[member] = ReadRegularFile(full, member, *c);
    } else {
      AOTRT_THROW(kFormatError, c->archive, ": member '", member, "' is not a regular file or folder: refused");
    }
  }
}

}  // namespace

ArchiveContents ReadArchive(const std::string& path, ArchiveWant want, const ArchiveLimits& limits) {
  Collector c{path, want, limits, {}};
  struct stat st;
  AOTRT_REQUIRE(::stat(path.c_str(), &st) == 0, kNotFound, path, ": ", std::strerror(errno));
  if (S_ISDIR(st.st_mode)) {
    ReadFolder(path, "", 0, &c);
    return std::move(c.contents);
  }
  const LibArchiveApi& la = LibArchive();
  std::unique_ptr<archive, int (*)(archive*)> a(la.read_new(), la.read_free);
  AOTRT_REQUIRE(a != nullptr, kOutOfMemory, "cannot allocate an archive reader");
  // The filters aotrt accepts (built into libarchive: none runs an external program).
  for (auto support : {la.support_filter_gzip, la.support_filter_xz, la.support_filter_bzip2, la.support_filter_zstd,
                       la.support_format_tar}) {
    support(a.get());
  }
  AOTRT_REQUIRE(la.open_filename(a.get(), path.c_str(), 1 << 16) == ARCHIVE_OK, kIOError, path,
                ": cannot open as an archive: ", ErrorOf(la, a.get()));
  ReadTar(la, a.get(), &c);
  return std::move(c.contents);
}

}  // namespace aotrt
