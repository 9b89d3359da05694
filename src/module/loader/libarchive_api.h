// libarchive, opened the first time an archive is read rather than linked into libaotrt.
//
// Why: linked, libarchive and what it pulls in (libxml2, ICU, nettle, acl and five compressors, 12
// libraries) are mapped and relocated in every process that loads libaotrt, and every symbol
// lookup of every dlopened model walks past them. That costs each process ~0.2 MiB of private,
// relocated data and start-up time, for a feature (Model Library Format archives) most processes
// never use. The types and signatures still come from libarchive's own header (Debian
// libarchive-dev); only the binding is deferred.
//
// Thread-safe: the library is opened once (static initialization); the table is immutable after.
#pragma once

#include <archive.h>
#include <archive_entry.h>

#include <string>

namespace aotrt {

struct LibArchiveApi {
  decltype(&::archive_read_new) read_new;
  decltype(&::archive_read_free) read_free;
  decltype(&::archive_read_support_filter_gzip) support_filter_gzip;
  decltype(&::archive_read_support_filter_xz) support_filter_xz;
  decltype(&::archive_read_support_filter_bzip2) support_filter_bzip2;
  decltype(&::archive_read_support_filter_zstd) support_filter_zstd;
  decltype(&::archive_read_support_format_tar) support_format_tar;
  decltype(&::archive_read_open_filename) open_filename;
  decltype(&::archive_read_open_memory) open_memory;
  decltype(&::archive_read_next_header) next_header;
  decltype(&::archive_read_data) read_data;
  decltype(&::archive_error_string) error_string;
  decltype(&::archive_filter_bytes) filter_bytes;
  decltype(&::archive_entry_pathname) entry_pathname;
  decltype(&::archive_entry_hardlink) entry_hardlink;
  decltype(&::archive_entry_filetype) entry_filetype;
  decltype(&::archive_entry_size_is_set) entry_size_is_set;
  decltype(&::archive_entry_size) entry_size;
};

// The functions of the system's libarchive (soname AOTRT_LIBARCHIVE_SONAME, found at configure
// time). Throws Error(kNotFound) naming the library, the Debian package and dlerror's reason when
// it cannot be opened or lacks a function; the failure is remembered, not retried.
const LibArchiveApi& LibArchive();

// LibArchive(), or nullptr when it cannot be opened (callers that only probe). Never throws.
const LibArchiveApi* LibArchiveIfAvailable();
// Opens the library `soname` and binds `api` to it; returns why it cannot ("" when every function
// is bound; then the library stays open). LibArchive() binds AOTRT_LIBARCHIVE_SONAME once; tests
// call this to see the failures.
std::string BindLibArchive(const char* soname, LibArchiveApi* api);
// Why LibArchive() throws (the message it throws with), or "" when it does not.
std::string LibArchiveMissingReason();

}  // namespace aotrt
