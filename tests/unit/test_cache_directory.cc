// The cache directory's listing, clearing and pruning (constant_cache/cache_directory.h, aotrt/cache.h): kinds
// by name, pool headers read for their model, aliases resolved, clear under the lock and only of
// the cache's own files, the errors each names.
#include "constant_cache/cache_directory.h"

#include <fcntl.h>
#include <gtest/gtest.h>
#include <sys/file.h>
#include <unistd.h>

#include <cstring>
#include <filesystem>
#include <fstream>
#include <algorithm>
#include <map>

#include "constant_cache/constant_cache.h"
#include "aotrt/cache.h"
#include "common/expect_error.h"

namespace fs = std::filesystem;
using aotrt::CacheEntryKind;

namespace {

class CacheDirectoryTest : public ::testing::Test {
 protected:
  void SetUp() override {
    char tmpl[] = "/tmp/aotrt_cache_dir_test_XXXXXX";
    ASSERT_NE(mkdtemp(tmpl), nullptr);
    dir_ = tmpl;
  }
  void TearDown() override { fs::remove_all(dir_); }

  // A pool of `bytes` (64 KiB or more: the cache's minimum) built for `what`, its file written.
  std::string Pool(const std::string& key, size_t bytes, uint8_t value, const std::string& what) {
    aotrt::ConstantCacheOptions o;
    o.directory = dir_;
    aotrt::ConstantPoolSource s;
    s.bytes_min = s.bytes_max = bytes;
    s.key = [&] { return key + "|bytes=" + std::to_string(bytes); };
    s.plan = [bytes] { return bytes; };
    s.fill = [&](uint8_t* d) { std::memset(d, value, bytes); };
    aotrt::ConstantPoolMemory m = aotrt::GetConstantPool(s, o, what);
    return m.cache_path();
  }

  std::map<CacheEntryKind, std::vector<aotrt::CacheEntry>> ByKind(const aotrt::CacheListing& l) {
    std::map<CacheEntryKind, std::vector<aotrt::CacheEntry>> out;
    for (const auto& e : l.entries) out[e.kind].push_back(e);
    return out;
  }

  std::string dir_;
};

TEST_F(CacheDirectoryTest, KindsComeFromNames) {
  EXPECT_EQ(aotrt::CacheEntryKindOf("0123456789abcdef0123456789abcdef.aotrt-pool"), CacheEntryKind::kConstantPool);
  EXPECT_EQ(aotrt::CacheEntryKindOf("x.aotrt-alias"), CacheEntryKind::kAlias);
  EXPECT_EQ(aotrt::CacheEntryKindOf("mlf-abc.so"), CacheEntryKind::kArchiveLibrary);
  EXPECT_EQ(aotrt::CacheEntryKindOf("opencl-0123abcd.bin"), CacheEntryKind::kProgramBinary);
  EXPECT_EQ(aotrt::CacheEntryKindOf("vulkan-0123abcd.bin"), CacheEntryKind::kProgramBinary);
  EXPECT_EQ(aotrt::CacheEntryKindOf(".tmp-opencl-1-2"), CacheEntryKind::kTemporary);
  EXPECT_EQ(aotrt::CacheEntryKindOf("mlf-build-x1y2z3"), CacheEntryKind::kOther);  // a compile in progress
  EXPECT_EQ(aotrt::CacheEntryKindOf(".tmp-pool-1-2"), CacheEntryKind::kTemporary);
  EXPECT_EQ(aotrt::CacheEntryKindOf(".lock"), CacheEntryKind::kLock);
  EXPECT_EQ(aotrt::CacheEntryKindOf(".aotrt-pool"), CacheEntryKind::kOther);  // a suffix alone
  EXPECT_EQ(aotrt::CacheEntryKindOf("notes.txt"), CacheEntryKind::kOther);
  EXPECT_STREQ(aotrt::CacheEntryKindName(CacheEntryKind::kAlias), "alias");
  EXPECT_STREQ(aotrt::CacheEntryKindName(CacheEntryKind::kProgramBinary), "program binary");
}

TEST_F(CacheDirectoryTest, ListShowsPoolsWithTheirModelAndAliasesWithTheirPool) {
  std::string a = Pool("model-a", 100 << 10, 1, "a.so (model 'a')");
  Pool("model-a-copy", 100 << 10, 1, "copy.so");  // the same bytes: one pool, two aliases
  Pool("model-b", 200 << 10, 2, "b.so");
  std::ofstream(dir_ + "/mlf-123.so") << "abc";
  aotrt::CacheListing l = aotrt::ListCacheDirectory(dir_);
  EXPECT_TRUE(l.exists);
  EXPECT_EQ(l.directory, dir_);
  auto k = ByKind(l);
  ASSERT_EQ(k[CacheEntryKind::kConstantPool].size(), 2u);
  ASSERT_EQ(k[CacheEntryKind::kAlias].size(), 3u);
  ASSERT_EQ(k[CacheEntryKind::kArchiveLibrary].size(), 1u);
  EXPECT_EQ(k[CacheEntryKind::kArchiveLibrary][0].bytes, 3u);
  std::string pool_a = fs::read_symlink(a).string();
  uint64_t pools = 0;
  for (const auto& p : k[CacheEntryKind::kConstantPool]) {
    EXPECT_TRUE(p.valid);
    EXPECT_EQ(p.model, p.name == pool_a ? "a.so (model 'a')" : "b.so") << p.name;  // the first it was built for
    EXPECT_EQ(p.bytes, fs::file_size(dir_ + "/" + p.name));
    pools += p.bytes;
  }
  EXPECT_EQ(l.pool_bytes, pools);
  EXPECT_EQ(l.total_bytes, pools + 3);
  for (const auto& alias : k[CacheEntryKind::kAlias]) {
    EXPECT_TRUE(alias.valid);
    EXPECT_EQ(alias.bytes, 0u);
    EXPECT_TRUE(fs::exists(dir_ + "/" + alias.target)) << alias.target;
  }
  // A damaged pool lists as invalid; an alias to it still lists its target.
  fs::resize_file(dir_ + "/" + pool_a, 100);
  fs::remove(dir_ + "/" + fs::read_symlink(dir_ + "/" + k[CacheEntryKind::kAlias][0].name).string());
  l = aotrt::ListCacheDirectory(dir_);
  size_t invalid = 0;
  for (const auto& e : l.entries) invalid += !e.valid;
  EXPECT_GE(invalid, 2u);
}

TEST_F(CacheDirectoryTest, MissingDirectoryListsEmptyAndClearsNothing) {
  aotrt::CacheListing l = aotrt::ListCacheDirectory(dir_ + "/never");
  EXPECT_FALSE(l.exists);
  EXPECT_TRUE(l.entries.empty());
  EXPECT_EQ(aotrt::ClearCacheDirectory(dir_ + "/never", 0).files_removed, 0u);
  EXPECT_FALSE(fs::exists(dir_ + "/never"));
}

TEST_F(CacheDirectoryTest, BadDirectoriesAreNamedErrors) {
  std::ofstream(dir_ + "/file") << "x";
  EXPECT_TRUE(aotrt_test::ThrowsAotrtError([&] { aotrt::ListCacheDirectory(dir_ + "/file"); },
                                            aotrt::ErrorCode::kInvalidArgument, {"is not a directory"}));
  EXPECT_TRUE(aotrt_test::ThrowsAotrtError([&] { aotrt::ClearCacheDirectory(dir_ + "/file", 0); },
                                            aotrt::ErrorCode::kInvalidArgument, {"is not a directory"}));
  EXPECT_TRUE(aotrt_test::ThrowsAotrtError([&] { aotrt::ListCacheDirectory(""); },
                                            aotrt::ErrorCode::kInvalidArgument, {"no cache directory"}));
}

TEST_F(CacheDirectoryTest, ClearRemovesOnlyTheCachesFilesUnderTheLock) {
  Pool("model-a", 100 << 10, 1, "a.so");
  std::ofstream(dir_ + "/mlf-1.so") << "lib";
  std::ofstream(dir_ + "/.tmp-dead-1") << "t";
  std::ofstream(dir_ + "/notes.txt") << "keep";
  fs::create_directory(dir_ + "/mlf-build-abc");
  int held = open((dir_ + "/.lock").c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0644);
  ASSERT_GE(held, 0);
  ASSERT_EQ(flock(held, LOCK_EX), 0);  // a writer mid-write
  EXPECT_TRUE(aotrt_test::ThrowsAotrtError([&] { aotrt::ClearCacheDirectory(dir_, 30); },
                                            aotrt::ErrorCode::kIOError, {"/.lock for over 30 ms"}));
  EXPECT_TRUE(fs::exists(dir_ + "/mlf-1.so"));  // nothing removed while the lock is held
  close(held);
  aotrt::CacheClearResult r = aotrt::ClearCacheDirectory(dir_, 1000);
  EXPECT_EQ(r.files_removed, 4u);  // the pool, its alias, the archive library, the temporary
  EXPECT_GT(r.bytes_removed, uint64_t{100} << 10);
  std::vector<std::string> left;
  for (const auto& e : fs::directory_iterator(dir_)) left.push_back(e.path().filename().string());
  std::sort(left.begin(), left.end());
  EXPECT_EQ(left, (std::vector<std::string>{".lock", "mlf-build-abc", "notes.txt"}));
}

TEST_F(CacheDirectoryTest, PruneRemovesAliasesWhosePoolIsGone) {
  std::string a = Pool("model-a", 100 << 10, 1, "a.so");
  std::string b = Pool("model-b", 100 << 10, 2, "b.so");
  fs::remove(fs::path(dir_) / fs::read_symlink(a));
  std::vector<std::string> log;
  aotrt::PruneCacheDirectory(dir_, "", uint64_t{1} << 30, [&](const std::string& m) { log.push_back(m); });
  EXPECT_FALSE(fs::is_symlink(a));
  EXPECT_TRUE(fs::exists(b));
  aotrt::PruneCacheDirectory(dir_, "", 1, [&](const std::string& m) { log.push_back(m); });  // over any limit
  EXPECT_FALSE(fs::is_symlink(b));
  EXPECT_EQ(log.size(), 1u);  // one pool removed and logged
}

}  // namespace
