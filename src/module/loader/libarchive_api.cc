#include "module/loader/libarchive_api.h"

#include <dlfcn.h>

#include <string>

#include "base/error_util.h"

#ifndef AOTRT_LIBARCHIVE_SONAME
#define AOTRT_LIBARCHIVE_SONAME "libarchive.so.13"
#endif

namespace aotrt {
namespace {

struct Binding {
  LibArchiveApi api{};
  std::string error;  // empty once every function is bound
};

template <typename Fn>
void Bind(void* handle, const char* name, Fn* fn, std::string* error) {
  *fn = reinterpret_cast<Fn>(::dlsym(handle, name));
  if (!*fn && error->empty()) *error = StrCat("it has no function ", name);
}

const Binding& TheBinding() {
  static const Binding binding = [] {
    Binding b;
    b.error = BindLibArchive(AOTRT_LIBARCHIVE_SONAME, &b.api);
    return b;
  }();
  return binding;
}

}  // namespace

std::string BindLibArchive(const char* soname, LibArchiveApi* api) {
  // RTLD_LOCAL: its symbols (and its dependencies') stay out of the global scope models resolve
  // in. Kept open for the life of the process, as a linked library would be.
  void* h = ::dlopen(soname, RTLD_NOW | RTLD_LOCAL);
  if (!h) {
    const char* why = ::dlerror();
    return why ? why : StrCat("dlopen of ", soname, " failed");
  }
  std::string error;
  LibArchiveApi& a = *api;
  Bind(h, "archive_read_new", &a.read_new, &error);
  Bind(h, "archive_read_free", &a.read_free, &error);
  Bind(h, "archive_read_support_filter_gzip", &a.support_filter_gzip, &error);
  Bind(h, "archive_read_support_filter_xz", &a.support_filter_xz, &error);
  Bind(h, "archive_read_support_filter_bzip2", &a.support_filter_bzip2, &error);
  Bind(h, "archive_read_support_filter_zstd", &a.support_filter_zstd, &error);
  Bind(h, "archive_read_support_format_tar", &a.support_format_tar, &error);
  Bind(h, "archive_read_open_filename", &a.open_filename, &error);
  Bind(h, "archive_read_open_memory", &a.open_memory, &error);
  Bind(h, "archive_read_next_header", &a.next_header, &error);
  Bind(h, "archive_read_data", &a.read_data, &error);
  Bind(h, "archive_error_string", &a.error_string, &error);
  Bind(h, "archive_filter_bytes", &a.filter_bytes, &error);
  Bind(h, "archive_entry_pathname", &a.entry_pathname, &error);
  Bind(h, "archive_entry_hardlink", &a.entry_hardlink, &error);
  Bind(h, "archive_entry_filetype", &a.entry_filetype, &error);
  Bind(h, "archive_entry_size_is_set", &a.entry_size_is_set, &error);
  Bind(h, "archive_entry_size", &a.entry_size, &error);
  if (!error.empty()) {
    ::dlclose(h);
    *api = LibArchiveApi{};
    return StrCat(soname, ": ", error);
  }
  return std::string();
}

std::string LibArchiveMissingReason() {
  const Binding& b = TheBinding();
  if (b.error.empty()) return std::string();
  return StrCat("reading a tar archive needs libarchive (", AOTRT_LIBARCHIVE_SONAME,
                ", Debian package libarchive13), which cannot be used: ", b.error);
}

const LibArchiveApi& LibArchive() {
  const Binding& b = TheBinding();
  if (!b.error.empty()) throw Error(ErrorCode::kNotFound, LibArchiveMissingReason());
  return b.api;
}

const LibArchiveApi* LibArchiveIfAvailable() {
  const Binding& b = TheBinding();
  return b.error.empty() ? &b.api : nullptr;
}

}  // namespace aotrt
