// libarchive, opened the first time an archive is read rather than linked into libaotrt: linked,
// its 12 libraries cost every process that loads libaotrt page faults, relocated data and symbol
// lookups (bench/README.md, "libarchive is no longer linked"). The types and signatures still come
// from libarchive's own header (Debian libarchive-dev); only the binding is deferred.
//
// Thread-safe: the library is opened once (static initialization); the table is immutable after.
#pragma once

#include <archive.h>
#include <archive_entry.h>

#include <string>

namespace aotrt {

// Each function used: X(field of LibArchiveApi, libarchive's name), bound in this order.
#define AOTRT_LIBARCHIVE_FUNCTIONS(X)                                                                        \
  X(read_new, archive_read_new) X(read_free, archive_read_free)                                              \
  X(support_filter_gzip, archive_read_support_filter_gzip)                                                   \
  X(support_filter_xz, archive_read_support_filter_xz)                                                       \
  X(support_filter_bzip2, archive_read_support_filter_bzip2)                                                 \
  X(support_filter_zstd, archive_read_support_filter_zstd)                                                   \
  X(support_format_tar, archive_read_support_format_tar) X(open_filename, archive_read_open_filename)        \
  X(next_header, archive_read_next_header) X(read_data, archive_read_data)                                   \
  X(error_string, archive_error_string) X(filter_bytes, archive_filter_bytes)                                \
  X(entry_pathname, archive_entry_pathname) X(entry_hardlink, archive_entry_hardlink)                        \
  X(entry_filetype, archive_entry_filetype) X(entry_size_is_set, archive_entry_size_is_set)                  \
  X(entry_size, archive_entry_size)

struct LibArchiveApi {
#define AOTRT_LIBARCHIVE_FIELD(field, function) decltype(&::function) field;
  AOTRT_LIBARCHIVE_FUNCTIONS(AOTRT_LIBARCHIVE_FIELD)
#undef AOTRT_LIBARCHIVE_FIELD
};

// The functions of the system's libarchive (soname AOTRT_LIBARCHIVE_SONAME, found at configure
// time). Throws Error(kNotFound) naming the library, the Debian package and dlerror's reason when
// it cannot be opened or lacks a function; the failure is remembered, not retried.
const LibArchiveApi& LibArchive();
// Opens the library `soname` and binds `api` to it; returns why it cannot ("" when every function
// is bound; then the library stays open). LibArchive() binds AOTRT_LIBARCHIVE_SONAME once; tests
// call this to see the failures.
std::string BindLibArchive(const char* soname, LibArchiveApi* api);

}  // namespace aotrt
