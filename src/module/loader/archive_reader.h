// Reading an archive's members into memory, never onto disk: a tar (plain, or compressed with
// gzip, xz, bzip2 or zstd; libarchive) or an unpacked folder. Used for Model Library Format
// archives (aot/c_interface), graph and VM packages and object exports (.tar).
//
// Refused with kFormatError naming the archive and the member: a path that is absolute or climbs
// out of the archive (a `..` component), a link (symbolic or hard, in a folder too), a device or
// pipe, a member over ArchiveLimits::max_member_bytes, a wanted member that appears twice, more
// than max_members members, or more than max_stream_bytes of (decompressed) archive; and a
// truncated or corrupt archive (libarchive's message). Members are read only when `want` says so.
// Thread-safe: no shared state.
#pragma once

#include <cstddef>
#include <cstdint>
#include <map>
#include <string>
#include <vector>

namespace aotrt {

struct ArchiveLimits {
  uint64_t max_member_bytes = uint64_t{1} << 30;  // any member, read or not
  uint64_t max_stream_bytes = uint64_t{8} << 30;  // the whole tar stream, after decompression
  size_t max_members = 100000;
  int max_folder_depth = 16;
};

struct ArchiveContents {
  std::map<std::string, std::string> files;  // wanted regular members: normalized path -> bytes
  std::vector<std::string> names;            // every member's normalized path (folders too), as met
};

// Members are named by their normalized path: no leading "./" or "/", no "." components, no
// empty ones ("codegen/host/src/default_lib0.c"); folders without a trailing slash.
using ArchiveWant = bool (*)(const std::string& path);

// `path` is a folder or an archive file. Throws kNotFound (no such path), kIOError (cannot read),
// kFormatError (above), kOutOfMemory.
ArchiveContents ReadArchive(const std::string& path, ArchiveWant want, const ArchiveLimits& limits = {});

// A graph export as files (tvmc's package; relay.build's classic triple in a folder): the
// library, its graph JSON and its params under these names.
constexpr const char* kGraphPackageLibrary = "mod.so";
constexpr const char* kGraphPackageJson = "mod.json";
constexpr const char* kGraphPackageParams = "mod.params";
// A Relay VM export as files: tvmc's VM package (a tar holding lib.so, a one-file VM export), or a
// folder or tar with the two-file form (code.ro beside lib.so).
constexpr const char* kVMPackageLibrary = "lib.so";
constexpr const char* kVMPackageBytecode = "code.ro";

}  // namespace aotrt
