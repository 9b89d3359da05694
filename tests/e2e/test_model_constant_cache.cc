// The constant cache under real loads (aot/model_program.cc + constant_cache/constant_cache.h): a memory-
// planned model's pool is built into the cache once, mapped by later loads, bit-exact either way;
// options and the environment turn it off or move it; a replaced model file gets a new pool; pools
// under the 64 KiB minimum stay private. `usmp_cached_c` has a 96.8 KiB pool.
#include <gtest/gtest.h>

#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iterator>

#include "aotrt/cache.h"
#include "common/expect_error.h"
#include "common/run_case.h"
#include "common/scoped_env.h"

using namespace aotrt;
using namespace aotrt_test;
namespace fs = std::filesystem;

namespace {

class ModelConstantCache : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::path(::testing::TempDir()) / ("aotrt_model_cache_" + std::to_string(::getpid()) + "_" +
                                             ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::remove_all(dir_);
    options_.cache_dir = dir_.string();
  }
  void TearDown() override { fs::remove_all(dir_); }

  // Load, check where the constants came from, run the reference case bit-exact.
  void LoadRunExpect(const Case& c, const std::string& library, ConstantSource expected, LoadOptions o) {
    Model m = Model::Load(library, o);
    EXPECT_EQ(m.Info().constant_source, expected) << ConstantSourceName(m.Info().constant_source);
    if (expected == ConstantSource::kPrivateCopy) {
      EXPECT_TRUE(m.Info().constant_cache_path.empty());
    } else {
      EXPECT_EQ(fs::path(m.Info().constant_cache_path).parent_path(), dir_);
    }
    ExpectNewExecutorMatches(c, m);
  }

  size_t PoolFiles() const {
    size_t n = 0;
    if (fs::exists(dir_)) {
      for (const auto& e : fs::directory_iterator(dir_)) n += e.path().extension() == ".aotrt-pool";
    }
    return n;
  }

  fs::path dir_;
  LoadOptions options_;
};

}  // namespace

TEST_F(ModelConstantCache, BuiltOnceThenMappedBitExact) {
  Case c = GeneratedCase("usmp_cached_c");
  LoadRunExpect(c, c.library, ConstantSource::kBuiltCache, options_);
  LoadRunExpect(c, c.library, ConstantSource::kMappedCache, options_);
  EXPECT_EQ(PoolFiles(), 1u);
}

TEST_F(ModelConstantCache, OffByOptionOrEnvironment) {
  Case c = GeneratedCase("usmp_both_llvm");
  LoadOptions off = options_;
  off.constant_cache = false;
  LoadRunExpect(c, c.library, ConstantSource::kPrivateCopy, off);
  ::setenv("AOTRT_CONSTANT_CACHE", "0", 1);
  LoadRunExpect(c, c.library, ConstantSource::kPrivateCopy, options_);
  ::setenv("AOTRT_CONSTANT_CACHE", "maybe", 1);
  EXPECT_AOTRT_ERROR(Model::Load(c.library, options_), ErrorCode::kInvalidArgument, {"AOTRT_CONSTANT_CACHE", "maybe"});
  ::unsetenv("AOTRT_CONSTANT_CACHE");
  EXPECT_EQ(PoolFiles(), 0u);
}

TEST_F(ModelConstantCache, SmallPoolsStayPrivate) {
  Case small = GeneratedCase("usmp_both_c");  // a pool of under 200 bytes
  LoadRunExpect(small, small.library, ConstantSource::kPrivateCopy, options_);
  EXPECT_FALSE(fs::exists(dir_));
}

// Every load reads the environment once, at the front door: a bad value fails any load, with or
// without constants, before the file is opened.
TEST_F(ModelConstantCache, ABadVariableFailsEveryLoadNamingIt) {
  ScopedEnv bad("AOTRT_CONSTANT_CACHE", "maybe");
  for (const char* name : {"usmp_ws_only_llvm", "usmp_both_c"}) {
    EXPECT_AOTRT_ERROR(Model::Load(GeneratedCase(name).library, options_), ErrorCode::kInvalidArgument,
                       {"AOTRT_CONSTANT_CACHE='maybe'", "expected 0 or 1"});
  }
}

TEST_F(ModelConstantCache, EnvironmentMovesTheDirectory) {
  Case c = GeneratedCase("usmp_cached_c");
  ::setenv("AOTRT_CACHE_DIR", dir_.c_str(), 1);
  LoadRunExpect(c, c.library, ConstantSource::kBuiltCache, LoadOptions());
  ::unsetenv("AOTRT_CACHE_DIR");
  EXPECT_EQ(PoolFiles(), 1u);
}

TEST_F(ModelConstantCache, UnusableDirectoryFallsBackToAPrivateCopy) {
  Case c = GeneratedCase("usmp_cached_c");
  LoadOptions bad = options_;
  bad.cache_dir = "/dev/null/aotrt-cache";  // under a file: cannot be created, even by root
  LoadRunExpect(c, c.library, ConstantSource::kPrivateCopy, bad);
}

TEST_F(ModelConstantCache, ACopyOfTheSameBytesSharesThePoolFile) {
  Case c = GeneratedCase("usmp_cached_c");
  fs::create_directories(dir_);
  fs::path copy = dir_ / "model.so";
  fs::copy_file(c.library, copy);
  LoadRunExpect(c, copy.string(), ConstantSource::kBuiltCache, options_);
  // The same bytes written again: a new inode and modification time, so a new alias; its first load
  // uses its own copy, and the writer finds the pool file of that content instead of writing one.
  fs::remove(copy);
  fs::copy_file(c.library, copy);
  LoadRunExpect(c, copy.string(), ConstantSource::kBuiltCache, options_);
  fs::copy_file(c.library, dir_ / "renamed.so");
  LoadRunExpect(c, (dir_ / "renamed.so").string(), ConstantSource::kBuiltCache, options_);
  LoadRunExpect(c, (dir_ / "renamed.so").string(), ConstantSource::kMappedCache, options_);
  LoadRunExpect(c, copy.string(), ConstantSource::kMappedCache, options_);
  EXPECT_EQ(PoolFiles(), 1u);
  size_t aliases = 0;
  for (const auto& e : fs::directory_iterator(dir_)) aliases += e.path().extension() == ".aotrt-alias";
  EXPECT_EQ(aliases, 3u);  // the first copy's alias stays until its pool is pruned
}

TEST_F(ModelConstantCache, AnotherPathToTheSameFileSharesItsPool) {
  Case c = GeneratedCase("usmp_cached_c");
  fs::create_directories(dir_);
  fs::path link = dir_ / "link.so";
  fs::create_symlink(fs::absolute(c.library), link);
  LoadRunExpect(c, c.library, ConstantSource::kBuiltCache, options_);
  LoadRunExpect(c, link.string(), ConstantSource::kMappedCache, options_);
  EXPECT_EQ(PoolFiles(), 1u);
}

TEST_F(ModelConstantCache, MemoryLoadsKeyOnContent) {
  Case c = GeneratedCase("usmp_cached_c");
  std::ifstream in(c.library, std::ios::binary);
  std::string bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  for (ConstantSource expected : {ConstantSource::kBuiltCache, ConstantSource::kMappedCache}) {
    Model m = Model::LoadFromMemory(bytes.data(), bytes.size(), options_);
    EXPECT_EQ(m.Info().constant_source, expected) << ConstantSourceName(m.Info().constant_source);
    ExpectNewExecutorMatches(c, m);
  }
}

TEST_F(ModelConstantCache, CorruptCacheFileIsRebuiltNotUsed) {
  Case c = GeneratedCase("usmp_cached_c");
  LoadRunExpect(c, c.library, ConstantSource::kBuiltCache, options_);
  fs::path pool;
  for (const auto& e : fs::directory_iterator(dir_)) {
    if (e.path().extension() == ".aotrt-pool") pool = e.path();
  }
  ASSERT_FALSE(pool.empty());
  {
    std::fstream f(pool, std::ios::in | std::ios::out | std::ios::binary);
    f.seekp(4096);  // the first payload byte: a constant
    f.put('\x5a');
  }
  LoadRunExpect(c, c.library, ConstantSource::kBuiltCache, options_);
  fs::resize_file(pool, 4096 + 16);  // truncated
  LoadRunExpect(c, c.library, ConstantSource::kBuiltCache, options_);
  LoadRunExpect(c, c.library, ConstantSource::kMappedCache, options_);
}
