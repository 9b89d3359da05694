// RuntimeConfig: every variable aotrt honours, read in one place, and how it combines with a
// caller's options.
#include <gtest/gtest.h>

#include <cstdlib>
#include <string>
#include <vector>

#include "module/runtime_config.h"
#include "common/expect_error.h"
#include "common/scoped_env.h"

using aotrt::ErrorCode;
using aotrt::LoadOptions;
using aotrt::RuntimeConfig;
using aotrt_test::ScopedEnv;

namespace {

// Every variable RuntimeConfig reads, unset for the test's scope.
class RuntimeConfigTest : public ::testing::Test {
 protected:
  void SetUp() override {
    for (const char* v : {"AOTRT_CONSTANT_CACHE", "AOTRT_CONSTANT_CACHE_VERIFY", "AOTRT_CACHE_DIR", "AOTRT_CACHE_MAX_MB",
                          "XDG_CACHE_HOME", "HOME", "AOTRT_CHECK_BOUNDS", "AOTRT_HUGE_PAGES", "CC", "TMPDIR"}) {
      cleared_.emplace_back(new ScopedEnv(v, ""));
      ::unsetenv(v);
    }
  }
  std::vector<std::unique_ptr<ScopedEnv>> cleared_;
};

TEST_F(RuntimeConfigTest, DefaultsWithAnEmptyEnvironment) {
  RuntimeConfig c = RuntimeConfig::FromEnvironment();
  EXPECT_TRUE(c.constant_cache);
  EXPECT_FALSE(c.verify_constant_cache);
  EXPECT_EQ(c.cache_max_bytes, 0u);
  EXPECT_EQ(c.cache_dir, "");  // no HOME: no directory, so the cache is off
  EXPECT_FALSE(c.check_bounds);
  EXPECT_FALSE(c.huge_pages);
  EXPECT_EQ(c.tools.c_compiler, "cc");
  EXPECT_EQ(c.tools.temp_dir, "/tmp");
}

TEST_F(RuntimeConfigTest, EveryVariableIsRead) {
  ScopedEnv a("AOTRT_CONSTANT_CACHE", "0"), b("AOTRT_CONSTANT_CACHE_VERIFY", "1"), c("AOTRT_CACHE_MAX_MB", "64"),
      d("AOTRT_CACHE_DIR", "/srv/aotrt"), e("AOTRT_CHECK_BOUNDS", "1"), f("AOTRT_HUGE_PAGES", "1"), g("CC", "clang"),
      h("TMPDIR", "/var/tmp");
  RuntimeConfig r = RuntimeConfig::FromEnvironment();
  EXPECT_FALSE(r.constant_cache);
  EXPECT_TRUE(r.verify_constant_cache);
  EXPECT_EQ(r.cache_max_bytes, uint64_t{64} << 20);
  EXPECT_EQ(r.cache_dir, "/srv/aotrt");
  EXPECT_TRUE(r.check_bounds);
  EXPECT_TRUE(r.huge_pages);
  EXPECT_EQ(r.tools.c_compiler, "clang");
  EXPECT_EQ(r.tools.temp_dir, "/var/tmp");
}

TEST_F(RuntimeConfigTest, CacheDirectoryFollowsXdg) {
  ScopedEnv home("HOME", "/home/u");
  EXPECT_EQ(RuntimeConfig::FromEnvironment().cache_dir, "/home/u/.cache/aotrt");
  {
    ScopedEnv xdg("XDG_CACHE_HOME", "relative/dir");  // not absolute: ignored, as the XDG spec says
    EXPECT_EQ(RuntimeConfig::FromEnvironment().cache_dir, "/home/u/.cache/aotrt");
  }
  ScopedEnv xdg("XDG_CACHE_HOME", "/var/cache/u");
  EXPECT_EQ(RuntimeConfig::FromEnvironment().cache_dir, "/var/cache/u/aotrt");
  ScopedEnv dir("AOTRT_CACHE_DIR", "/srv/aotrt");
  EXPECT_EQ(RuntimeConfig::FromEnvironment().cache_dir, "/srv/aotrt");
}

TEST_F(RuntimeConfigTest, BadValuesNameTheVariableTheValueAndWhatIsExpected) {
  struct Case {
    const char* name;
    const char* value;
    const char* expected;
  };
  for (const Case& c : {Case{"AOTRT_CONSTANT_CACHE", "yes", "expected 0 or 1 (share constant pools"},
                        Case{"AOTRT_CONSTANT_CACHE_VERIFY", "2", "expected 0 or 1 (hash a cached constant pool"},
                        Case{"AOTRT_CHECK_BOUNDS", "on", "expected 0 or 1 (check writes past workspace pools"},
                        Case{"AOTRT_HUGE_PAGES", "true", "expected 0 or 1 (back large executor buffers"},
                        Case{"AOTRT_CACHE_MAX_MB", "0", "expected a whole number from 1 to"},
                        Case{"AOTRT_CACHE_MAX_MB", "-5", "expected a whole number from 1 to"},
                        Case{"AOTRT_CACHE_MAX_MB", "12abc", "MiB: the constant cache's size limit"},
                        Case{"AOTRT_CACHE_MAX_MB", "99999999999999999999", "expected a whole number"}}) {
    ScopedEnv bad(c.name, c.value);
    EXPECT_AOTRT_ERROR(RuntimeConfig::FromEnvironment(), ErrorCode::kInvalidArgument,
                       {std::string(c.name) + "='" + c.value + "'", c.expected});
  }
}

TEST_F(RuntimeConfigTest, TheEnvironmentTurnsChecksOnAndTheCacheOffNeverTheReverse) {
  LoadOptions caller;
  caller.cache_dir = "/mine";
  caller.executor.huge_pages = true;
  RuntimeConfig env;
  env.cache_dir = "/from/env";
  env.check_bounds = true;
  env.constant_cache = false;
  aotrt::LoadContext ctx = env.MakeLoadContext(caller, "m.so");
  EXPECT_EQ(ctx.display_name, "m.so");
  EXPECT_EQ(ctx.options.cache_dir, "/mine");  // the caller's directory wins
  EXPECT_FALSE(ctx.options.constant_cache);   // off in the environment: off
  EXPECT_TRUE(ctx.options.executor.check_bounds);
  EXPECT_TRUE(ctx.options.executor.huge_pages);  // the caller's stays on
  RuntimeConfig quiet;
  quiet.cache_dir = "/from/env";
  quiet.cache_max_bytes = 123;
  caller.cache_dir.clear();
  caller.constant_cache = false;
  ctx = quiet.MakeLoadContext(caller, "m.so");
  EXPECT_EQ(ctx.options.cache_dir, "/from/env");
  EXPECT_FALSE(ctx.options.constant_cache);  // the caller turned it off
  EXPECT_FALSE(ctx.options.executor.check_bounds);
  EXPECT_EQ(ctx.options.cache_max_bytes, 123u);
  EXPECT_EQ(ctx.tools.c_compiler, "cc");
  caller.c_compiler = "/opt/bin/clang";  // the caller's compiler wins over $CC
  quiet.tools.c_compiler = "gcc";
  EXPECT_EQ(quiet.MakeLoadContext(caller, "m.so").tools.c_compiler, "/opt/bin/clang");
}

}  // namespace
