// libarchive is opened when the first tar is read (module/loader/libarchive_api.h): binding it,
// and what a process without it is told.
#include <gtest/gtest.h>

#include "module/loader/libarchive_api.h"

using namespace aotrt;

namespace {

TEST(LibArchiveApi, BindsEveryFunctionOfTheSystemLibrary) {
  const LibArchiveApi& la = LibArchive();  // throws, saying why, when it cannot be used
  EXPECT_EQ(&LibArchive(), &la);
  archive* a = la.read_new();
  ASSERT_NE(a, nullptr);
  EXPECT_EQ(la.support_format_tar(a), ARCHIVE_OK);
  EXPECT_EQ(la.read_free(a), ARCHIVE_OK);
}

TEST(LibArchiveApi, AMissingLibraryIsNamedWithDlopensReason) {
  LibArchiveApi api{};
  std::string error = BindLibArchive("libarchive-that-is-not-installed.so.99", &api);
  EXPECT_NE(error.find("libarchive-that-is-not-installed.so.99"), std::string::npos) << error;
  EXPECT_EQ(api.read_new, nullptr);
}

TEST(LibArchiveApi, ALibraryWithoutItsFunctionsIsRefusedAndLeftUnbound) {
  LibArchiveApi api{};
  std::string error = BindLibArchive("libc.so.6", &api);
  EXPECT_EQ(error, "libc.so.6: it has no function archive_read_new");
  EXPECT_EQ(api.read_free, nullptr);  // nothing half-bound
  EXPECT_EQ(api.entry_size, nullptr);
}

}  // namespace
