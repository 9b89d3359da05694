#include "constant_cache/constant_cache.h"

#include "aot/model_program.h"
#include "aotrt/cache.h"

#include <fcntl.h>
#include <gtest/gtest.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <sys/time.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <cstring>
#include <fstream>
#include <functional>
#include <stdexcept>
#include <string>
#include <vector>

#include "base/logging.h"
#include "memory/reserve.h"
#include "common/expect_error.h"

namespace fs = std::filesystem;
using aotrt::ConstantCacheOptions;
using aotrt::ConstantPoolMemory;
using Source = aotrt::ConstantSource;

namespace {

constexpr size_t kSmall = 1000;          // under the sampling threshold: every byte is hashed
constexpr size_t kLarge = 1 << 20;       // 16 evenly spaced 512-byte blocks sampled
constexpr size_t kHeader = 4096;
constexpr size_t kUnsampled = 5000;      // inside block 1 of kLarge; samples are ~68 KiB apart

std::vector<std::string>* g_log = nullptr;
void CollectLog(int, const char* message, void*) { g_log->push_back(message); }

uint8_t Pattern(size_t i, int seed) { return static_cast<uint8_t>(i * 31 + seed); }

// Each key's pools have their own bytes (the cache is keyed by content: equal bytes share a file).
int Seed(const std::string& key) { return static_cast<int>(std::hash<std::string>()(key) % 250) + 1; }

// The pool of exactly `bytes` usable bytes, its alias keyed by `key()` and the size.
ConstantPoolMemory GetPool(size_t bytes, std::function<std::string()> key, std::function<void(uint8_t*)> fill,
                           const ConstantCacheOptions& options, const std::string& what) {
  aotrt::ConstantPoolSource source;
  source.bytes_min = source.bytes_max = bytes;
  source.key = [&] { return key() + "|bytes=" + std::to_string(bytes); };
  source.plan = [bytes] { return bytes; };
  source.fill = std::move(fill);
  return aotrt::GetConstantPool(source, options, what);
}

class ConstantCacheTest : public ::testing::Test {
 protected:
  void SetUp() override {
    char tmpl[] = "/tmp/aotrt_cache_test_XXXXXX";
    ASSERT_NE(mkdtemp(tmpl), nullptr);
    root_ = tmpl;
    options_.directory = root_ + "/cache";
    options_.min_bytes = 0;  // the small pools below go through the cache too
  }
  void TearDown() override {
    chmod(root_.c_str(), 0700);
    fs::remove_all(root_);
  }

  // The pool for `key`, checked byte for byte (pattern, then canary); counts the fills.
  ConstantPoolMemory Get(const std::string& key, size_t bytes = kSmall, int seed = 0) {
    if (seed == 0) seed = Seed(key);
    ConstantPoolMemory m = GetPool(
        bytes, [&] { ++keys_; return key; },
        [&](uint8_t* dst) {
          ++fills_;
          for (size_t i = 0; i < bytes; ++i) {
            if (dst[i] != 0) throw std::runtime_error("fill target not zeroed");
            dst[i] = Pattern(i, seed);
          }
        },
        options_, "test_model");
    EXPECT_EQ(m.bytes(), bytes);
    EXPECT_EQ(m.slack(), aotrt::TailSlack(bytes));
    EXPECT_EQ(reinterpret_cast<uintptr_t>(m.data()) % 4096, 0u);
    for (size_t i = 0; i < bytes; ++i) {
      if (m.data()[i] != Pattern(i, seed)) {
        ADD_FAILURE() << "byte " << i << " differs";
        break;
      }
    }
    EXPECT_EQ(aotrt::CanaryDamage(m.data() + bytes, m.slack()), 0u);
    return m;
  }

  std::vector<std::string> Files(const std::string& dir) const {
    std::vector<std::string> names;
    for (const auto& e : fs::directory_iterator(dir)) names.push_back(e.path().filename().string());
    return names;
  }

  // Overwrites one byte of `path` at `offset` with its complement.
  static void Flip(const std::string& path, size_t offset) {
    std::fstream f(path, std::ios::in | std::ios::out | std::ios::binary);
    f.seekg(static_cast<std::streamoff>(offset));
    char c = 0;
    f.get(c);
    f.seekp(static_cast<std::streamoff>(offset));
    f.put(static_cast<char>(~c));
  }

  // A file that was just built, corrupted by `damage`, must be rebuilt, then served as a hit.
  template <typename F>
  void ExpectRebuiltAfter(size_t bytes, F damage) {
    std::string path = Get("k", bytes).cache_path();
    damage(path);
    int before = fills_;
    EXPECT_EQ(Get("k", bytes).source(), Source::kBuiltCache);
    EXPECT_EQ(fills_, before + 1);
    EXPECT_EQ(Get("k", bytes).source(), Source::kMappedCache);
  }

  std::string root_;
  ConstantCacheOptions options_;
  int fills_ = 0;
  int keys_ = 0;  // calls of the key function
};

TEST_F(ConstantCacheTest, MissBuildsThenEveryLaterCallMapsTheFile) {
  ConstantPoolMemory a = Get("k");
  EXPECT_EQ(a.source(), Source::kBuiltCache);
  EXPECT_EQ(fs::path(a.cache_path()).parent_path(), fs::path(options_.directory));
  EXPECT_EQ(fs::file_size(a.cache_path()), kHeader + kSmall + a.slack());
  ConstantPoolMemory b = Get("k");
  EXPECT_EQ(b.source(), Source::kMappedCache);
  EXPECT_EQ(b.cache_path(), a.cache_path());
  EXPECT_EQ(fills_, 1);
  ConstantPoolMemory moved = std::move(b);
  EXPECT_EQ(b.data(), nullptr);
  EXPECT_EQ(moved.source(), Source::kMappedCache);
  EXPECT_EQ(Get("k", kLarge).source(), Source::kBuiltCache);  // the size is part of the key
  EXPECT_EQ(Get("k", kLarge).source(), Source::kMappedCache);
}

TEST_F(ConstantCacheTest, ReplacedModelFileChangesTheKey) {
  std::string model = root_ + "/model.so";
  std::ofstream(model) << "one";
  std::string key1 = aotrt::FileIdentityKey(model);
  ASSERT_NE(key1.find("|ino="), std::string::npos);
  fs::create_symlink(model, root_ + "/link.so");
  EXPECT_EQ(aotrt::FileIdentityKey(root_ + "/link.so"), key1);  // the file, not the path to it
  std::string path1 = Get(key1).cache_path();
  std::ofstream(model + ".new") << "two!";
  fs::rename(model + ".new", model);  // a new inode, as an install does
  std::string key2 = aotrt::FileIdentityKey(model);
  EXPECT_NE(key1, key2);
  ConstantPoolMemory m = Get(key2, kSmall, 2);
  EXPECT_EQ(m.source(), Source::kBuiltCache);
  EXPECT_NE(m.cache_path(), path1);
  EXPECT_EQ(aotrt::FileIdentityKey(root_ + "/missing.so"), "");
}

namespace {

// A library whose file is `file`, for the key of a model's constant pool.
class FileSource : public aotrt::SymbolSource {
 public:
  explicit FileSource(std::string file) : file_(std::move(file)) {}
  void* Lookup(const std::string&) const override { return nullptr; }
  uint64_t SymbolSize(const std::string&) const override { return 0; }
  const std::string& name() const override { return file_; }
  std::string source_file() const override { return file_; }

 private:
  std::string file_;
};

}  // namespace

TEST_F(ConstantCacheTest, PoolKeyNamesTheFileTheModelAndEachConstantsNameOffsetAndLength) {
  std::string file = root_ + "/model.so";
  std::ofstream(file) << "one";
  uint8_t a[8] = {1}, b[8] = {2};
  aotrt::ModelMetadata md;
  md.mod_name = "tvmgen_default";
  md.constants = {{"w0", 0, 8, a}, {"fused_constant_with_a_long_name", 64, 8, b}};
  FileSource lib(file);
  std::string key = aotrt::ConstantPoolKey(md, &lib);
  EXPECT_EQ(key, aotrt::FileIdentityKey(file) + "|tvmgen_default|w0@0+8|fused_constant_with_a_long_name@64+8");
  auto key_after = [&](const std::function<void(aotrt::ModelMetadata&)>& edit) {
    aotrt::ModelMetadata m = md;
    edit(m);
    return aotrt::ConstantPoolKey(m, &lib);
  };
  EXPECT_NE(key_after([](aotrt::ModelMetadata& m) { m.constants[1].byte_offset = 72; }), key);
  EXPECT_NE(key_after([](aotrt::ModelMetadata& m) { m.constants[1].data_len = 9; }), key);
  EXPECT_NE(key_after([](aotrt::ModelMetadata& m) { m.constants[0].name = "w1"; }), key);
  EXPECT_NE(key_after([](aotrt::ModelMetadata& m) { m.mod_name = "tvmgen_other"; }), key);
  EXPECT_NE(key_after([](aotrt::ModelMetadata& m) { std::swap(m.constants[0], m.constants[1]); }), key);
  EXPECT_EQ(key_after([](aotrt::ModelMetadata&) {}), key);
  std::ofstream(file + ".new") << "two!";
  fs::rename(file + ".new", file);  // the file replaced: another identity
  EXPECT_NE(aotrt::ConstantPoolKey(md, &lib), key);
  // Without a file, the constants' bytes stand for it.
  std::string content = aotrt::ConstantPoolKey(md, nullptr);
  EXPECT_EQ(content.rfind("xxh3-128:", 0), 0u);
  EXPECT_EQ(content.substr(41), "|tvmgen_default|w0@0+8|fused_constant_with_a_long_name@64+8");
  b[7] = 3;
  EXPECT_NE(aotrt::ConstantPoolKey(md, nullptr), content);
}

TEST_F(ConstantCacheTest, ContentKeyCoversEveryByteInOrder) {
  std::string a = "constant a", b = "constant b";
  std::string key = aotrt::ContentKey({{a.data(), a.size()}, {b.data(), b.size()}});
  EXPECT_EQ(key.rfind("xxh3-128:", 0), 0u);
  EXPECT_EQ(key.size(), 9u + 32u);
  EXPECT_EQ(key, aotrt::ContentKey({{a.data(), a.size()}, {b.data(), b.size()}}));
  EXPECT_NE(key, aotrt::ContentKey({{b.data(), b.size()}, {a.data(), a.size()}}));
  b[9] = 'c';
  EXPECT_NE(key, aotrt::ContentKey({{a.data(), a.size()}, {b.data(), b.size()}}));
}

TEST_F(ConstantCacheTest, CorruptHeaderIsRebuilt) {
  ExpectRebuiltAfter(kSmall, [](const std::string& p) { Flip(p, 0); });   // magic
  ExpectRebuiltAfter(kSmall, [](const std::string& p) { Flip(p, 32); });  // the size field
  ExpectRebuiltAfter(kSmall, [](const std::string& p) { Flip(p, 64); });  // the header checksum
}

TEST_F(ConstantCacheTest, CorruptSampledBlocksAreRebuilt) {
  ExpectRebuiltAfter(kLarge, [](const std::string& p) { Flip(p, kHeader); });                    // first block
  ExpectRebuiltAfter(kLarge, [](const std::string& p) { Flip(p, fs::file_size(p) - 1); });      // last (slack)
  ExpectRebuiltAfter(kSmall, [](const std::string& p) { Flip(p, kHeader + kSmall / 2); });  // small: all hashed
}

TEST_F(ConstantCacheTest, ZeroedOrWidelyDamagedPayloadsAreRebuilt) {
  auto overwrite = [](size_t at, size_t n, char c) {
    return [=](const std::string& p) {
      std::fstream f(p, std::ios::in | std::ios::out | std::ios::binary);
      f.seekp(static_cast<std::streamoff>(kHeader + at));
      f << std::string(n, c);
    };
  };
  ExpectRebuiltAfter(kLarge, overwrite(0, kLarge, '\0'));  // a zeroed payload behind a valid header
  // Damage wider than a fifteenth of the pool (and a block), wherever it lies, covers a sample.
  const size_t wide = kLarge / 15 + 4096;
  for (size_t at : {kLarge / 7, kLarge / 2 + 12345, kLarge - wide - 1000}) {
    ExpectRebuiltAfter(kLarge, overwrite(at, wide, '\x5a'));
  }
}

TEST_F(ConstantCacheTest, CorruptUnsampledBlockNeedsVerify) {
  std::string path = Get("k", kLarge).cache_path();
  Flip(path, kHeader + kUnsampled);
  {
    // The documented limit of the cheap check: the flipped byte is served.
    ConstantPoolMemory m = GetPool(kLarge, [] { return "k"; }, [](uint8_t*) {}, options_, "m");
    EXPECT_EQ(m.source(), Source::kMappedCache);
    EXPECT_NE(m.data()[kUnsampled], Pattern(kUnsampled, Seed("k")));
  }
  options_.verify = true;
  EXPECT_EQ(Get("k", kLarge).source(), Source::kBuiltCache);
  EXPECT_EQ(Get("k", kLarge).source(), Source::kMappedCache);
}

TEST_F(ConstantCacheTest, TruncatedEmptyAndForeignFilesAreRebuilt) {
  ExpectRebuiltAfter(kLarge, [](const std::string& p) { fs::resize_file(p, fs::file_size(p) - 1); });
  ExpectRebuiltAfter(kLarge, [](const std::string& p) { fs::resize_file(p, kHeader); });
  ExpectRebuiltAfter(kSmall, [](const std::string& p) { fs::resize_file(p, 0); });
  // Another key's valid file (same size) under this key's name.
  std::string other = Get("other").cache_path();
  ExpectRebuiltAfter(kSmall, [&](const std::string& p) { fs::copy_file(other, p, fs::copy_options::overwrite_existing); });
  // A file of the right size that is not a pool at all.
  ExpectRebuiltAfter(kSmall, [](const std::string& p) {
    std::ofstream(p, std::ios::binary | std::ios::trunc) << std::string(kHeader + kSmall + aotrt::TailSlack(kSmall), 'x');
  });
}

// `procs` processes get the pool of `key` at once, each checking every byte; their reports: 'b'
// (a private copy, its file written by this process), 'p' (a private copy: another process was
// writing), 'm' (mapped) or 'x'.
std::string GetInProcesses(const ConstantCacheOptions& options, const char* key, int procs) {
  int fds[2];
  if (pipe(fds) != 0) return "pipe failed";
  std::vector<pid_t> pids;
  for (int i = 0; i < procs; ++i) {
    pid_t pid = fork();
    if (pid == 0) {
      ConstantPoolMemory m = GetPool(
          kLarge, [key] { return key; }, [](uint8_t* d) { for (size_t j = 0; j < kLarge; ++j) d[j] = Pattern(j, 7); },
          options, "m");
      bool ok = true;
      for (size_t j = 0; ok && j < kLarge; ++j) ok = m.data()[j] == Pattern(j, 7);
      char report = !ok ? 'x' : m.source() == Source::kBuiltCache ? 'b' : m.source() == Source::kMappedCache ? 'm' : 'p';
      _exit(write(fds[1], &report, 1) == 1 ? 0 : 1);
    }
    pids.push_back(pid);
  }
  close(fds[1]);
  bool all_exited = true;
  for (pid_t pid : pids) {
    int status = 0;
    all_exited &= waitpid(pid, &status, 0) == pid && WIFEXITED(status) && WEXITSTATUS(status) == 0;
  }
  std::string reports(static_cast<size_t>(procs) + 1, '\0');
  reports.resize(static_cast<size_t>(std::max<ssize_t>(0, read(fds[0], &reports[0], reports.size()))));
  close(fds[0]);
  return all_exited ? reports : "a process failed: " + reports;
}

TEST_F(ConstantCacheTest, ConcurrentFirstUseWritesOneFileThenEveryProcessMapsIt) {
  constexpr int kProcs = 6;
  // A process that comes before the file writes it under the lock, or, finding the lock held, uses
  // its own copy at once (no process waits for another's write); the file is written once. A
  // process that comes after maps it.
  std::string first = GetInProcesses(options_, "race", kProcs);
  EXPECT_EQ(first.size(), static_cast<size_t>(kProcs)) << first;
  EXPECT_GE(std::count(first.begin(), first.end(), 'b'), 1) << first;
  EXPECT_EQ(std::count(first.begin(), first.end(), 'x'), 0) << first;
  std::vector<std::string> files;
  for (const std::string& f : Files(options_.directory)) {
    files.push_back(f == ".lock" ? f : fs::path(f).extension().string());
  }
  std::sort(files.begin(), files.end());
  // The lock, the alias, the pool: no temporary file left.
  EXPECT_EQ(files, (std::vector<std::string>{".aotrt-alias", ".aotrt-pool", ".lock"}));
  EXPECT_EQ(GetInProcesses(options_, "race", kProcs), std::string(kProcs, 'm'));
}

TEST_F(ConstantCacheTest, UncreatableOrUnwritableDirectoryFallsBackToAPrivateCopy) {
  std::vector<std::string> log;
  g_log = &log;
  aotrt::log::SetCallback(&CollectLog, nullptr);
  aotrt::log::SetLevel(aotrt::log::kDebug);
  std::ofstream(root_ + "/file") << "x";
  for (std::string dir : {std::string("/dev/null/x"), root_ + "/file/sub"}) {  // not a directory: uncreatable
    options_.directory = dir;
    ConstantPoolMemory m = Get("k");
    EXPECT_EQ(m.source(), Source::kPrivateCopy) << dir;
    EXPECT_EQ(m.cache_path(), "");
  }
  if (geteuid() != 0) {  // root writes regardless of the mode
    options_.directory = root_ + "/readonly";
    ASSERT_EQ(mkdir(options_.directory.c_str(), 0500), 0);
    EXPECT_EQ(Get("k").source(), Source::kPrivateCopy);
  }
  EXPECT_EQ(fills_, geteuid() != 0 ? 3 : 2);
  aotrt::log::SetCallback(nullptr, nullptr);
  aotrt::log::SetLevel(aotrt::log::kWarn);
  const std::string expected = "test_model: constant cache: cannot create directory /dev/null/x; using a private copy";
  EXPECT_EQ(std::count(log.begin(), log.end(), expected), 1) << ::testing::PrintToString(log);
}

TEST_F(ConstantCacheTest, DisabledByOption) {
  options_.enabled = false;
  EXPECT_EQ(Get("k").source(), Source::kPrivateCopy);
  EXPECT_FALSE(fs::exists(options_.directory));
}

TEST_F(ConstantCacheTest, LoadOptionsTurnIntoCacheOptions) {
  aotrt::LoadOptions load;
  EXPECT_FALSE(ConstantCacheOptions::From(load).enabled);  // no directory: nowhere to put a file
  load.cache_dir = "/srv/aotrt";
  ConstantCacheOptions o = ConstantCacheOptions::From(load);
  EXPECT_TRUE(o.enabled);
  EXPECT_FALSE(o.verify);
  EXPECT_EQ(o.directory, "/srv/aotrt");
  EXPECT_EQ(o.max_bytes, uint64_t{1024} << 20);
  load.constant_cache = false;
  load.verify_constant_cache = true;
  load.cache_max_bytes = uint64_t{64} << 20;
  o = ConstantCacheOptions::From(load);
  EXPECT_FALSE(o.enabled);
  EXPECT_TRUE(o.verify);
  EXPECT_EQ(o.max_bytes, uint64_t{64} << 20);
}

TEST_F(ConstantCacheTest, DirectoryIsMadePrivate) {
  options_.directory = root_ + "/explicit/nested";
  EXPECT_EQ(fs::path(Get("k").cache_path()).parent_path(), fs::path(options_.directory));
  EXPECT_EQ(fs::status(options_.directory).permissions() & fs::perms::all, fs::perms::owner_all);  // 0700 (XDG)
}

TEST_F(ConstantCacheTest, NoDirectoryMeansAPrivateCopy) {
  options_.directory.clear();
  EXPECT_EQ(Get("k").source(), Source::kPrivateCopy);  // nowhere to put it
}

TEST_F(ConstantCacheTest, FillErrorPropagatesAndLeavesNoFile) {
  auto boom = [](uint8_t*) { throw std::runtime_error("constant 'w': bad bytes"); };
  EXPECT_THROW(GetPool(kSmall, [] { return "k"; }, boom, options_, "m"), std::runtime_error);
  EXPECT_EQ(Files(options_.directory), std::vector<std::string>{});  // nothing queued, nothing written
  options_.enabled = false;
  EXPECT_THROW(GetPool(kSmall, [] { return "k"; }, boom, options_, "m"), std::runtime_error);
}

TEST_F(ConstantCacheTest, TemporaryFilesOfDeadWritersAreRemovedWhenWriting) {
  // Writers hold the directory lock while writing: a writer that has the lock knows every
  // temporary file left is a dead writer's, however recent.
  ASSERT_TRUE(fs::create_directories(options_.directory));
  std::string stale = options_.directory + "/.tmp-crashed-1-0", recent = options_.directory + "/.tmp-killed-2-0";
  std::ofstream(stale) << "x";
  std::ofstream(recent) << "x";
  struct timeval two_hours_ago[2] = {{time(nullptr) - 7200, 0}, {time(nullptr) - 7200, 0}};
  ASSERT_EQ(utimes(stale.c_str(), two_hours_ago), 0);
  EXPECT_EQ(Get("k").source(), Source::kBuiltCache);
  EXPECT_FALSE(fs::exists(stale));
  EXPECT_FALSE(fs::exists(recent));
}

}  // namespace

TEST_F(ConstantCacheTest, PoolsUnderTheMinimumArePrivateCopiesWithoutAKey) {
  options_.min_bytes = ConstantCacheOptions().min_bytes;
  EXPECT_EQ(options_.min_bytes, size_t{64} << 10);
  EXPECT_EQ(Get("k", kSmall).source(), Source::kPrivateCopy);
  EXPECT_EQ(Get("k", options_.min_bytes - 1).source(), Source::kPrivateCopy);
  EXPECT_EQ(keys_, 0);  // no stat of the model file, no content hash
  EXPECT_FALSE(fs::exists(options_.directory));
  EXPECT_EQ(Get("k", options_.min_bytes).source(), Source::kBuiltCache);
  EXPECT_EQ(keys_, 1);
}

namespace {

// Sets the modification time of `path` to `seconds_ago` seconds in the past.
void Age(const std::string& path, int seconds_ago) {
  struct timespec times[2];
  clock_gettime(CLOCK_REALTIME, &times[0]);
  times[0].tv_sec -= seconds_ago;
  times[1] = times[0];
  ASSERT_EQ(utimensat(AT_FDCWD, path.c_str(), times, 0), 0) << path;
}

}  // namespace

TEST_F(ConstantCacheTest, BuildingPrunesTheLeastRecentlyUsedPoolFilesOverTheLimit) {
  std::string a = Get("a", kLarge).cache_path();
  std::string b = Get("b", kLarge).cache_path();
  ConstantPoolMemory mapped_b = Get("b", kLarge);
  ASSERT_EQ(mapped_b.source(), Source::kMappedCache);
  options_.max_bytes = fs::file_size(a) + fs::file_size(b);  // room for two
  Age(a, 3 * 3600);
  Age(b, 2 * 3600);
  EXPECT_EQ(Get("a", kLarge).source(), Source::kMappedCache);  // a hit: `a` is now the most recent
  ConstantPoolMemory c = Get("c", kLarge);
  EXPECT_EQ(c.source(), Source::kBuiltCache);
  EXPECT_TRUE(fs::exists(a));
  EXPECT_FALSE(fs::exists(b)) << "the least recently used file stays";  // its pool gone, its alias too
  EXPECT_FALSE(fs::is_symlink(b));
  EXPECT_EQ(mapped_b.data()[0], Pattern(0, Seed("b")));  // a removed file's mapping stays valid
  EXPECT_TRUE(fs::exists(c.cache_path()));
  // A limit below one file keeps the file just built, and nothing else.
  options_.max_bytes = 1;
  ConstantPoolMemory d = Get("d", kLarge);
  EXPECT_TRUE(fs::exists(d.cache_path()));
  EXPECT_FALSE(fs::exists(a));
  EXPECT_FALSE(fs::exists(c.cache_path()));
  EXPECT_EQ(c.data()[0], Pattern(0, Seed("c")));
}

TEST_F(ConstantCacheTest, AHitMarksItsFileUsedAtMostOnceAnHour) {
  std::string path = Get("k", kSmall).cache_path();
  Age(path, 600);
  auto before = fs::last_write_time(path);
  Get("k", kSmall);
  EXPECT_EQ(fs::last_write_time(path), before);  // used 10 minutes ago: left alone
  Age(path, 2 * 3600);
  before = fs::last_write_time(path);
  Get("k", kSmall);
  EXPECT_GT(fs::last_write_time(path), before);
}

TEST_F(ConstantCacheTest, AnotherWriterHoldingTheLockLeavesTheModelOnItsCopyNotHung) {
  std::vector<std::string> log;
  g_log = &log;
  aotrt::log::SetCallback(&CollectLog, nullptr);
  aotrt::log::SetLevel(aotrt::log::kDebug);
  fs::create_directories(options_.directory);
  int held = open((options_.directory + "/.lock").c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0644);
  ASSERT_GE(held, 0);
  ASSERT_EQ(flock(held, LOCK_EX), 0);  // another open file description: conflicts even in-process
  EXPECT_EQ(Get("k", kLarge).source(), Source::kPrivateCopy);  // the load never waits for the lock
  EXPECT_EQ(Files(options_.directory), std::vector<std::string>{".lock"});  // nothing written
  close(held);  // released
  EXPECT_EQ(Get("k", kLarge).source(), Source::kBuiltCache);
  EXPECT_EQ(Get("k", kLarge).source(), Source::kMappedCache);
  aotrt::log::SetCallback(nullptr, nullptr);
  aotrt::log::SetLevel(aotrt::log::kWarn);
  const std::string expected = "test_model: constant cache: another process holds " + options_.directory +
                               "/.lock; not written (the private copy serves)";
  EXPECT_EQ(std::count(log.begin(), log.end(), expected), 1) << ::testing::PrintToString(log);
}

TEST_F(ConstantCacheTest, TwoNamesForTheSameBytesShareOnePoolFile) {
  // Two model files (two identities) whose constants are the same bytes: one pool file, two aliases.
  ConstantPoolMemory a = Get("file-one", kLarge, 9);
  ConstantPoolMemory b = Get("file-two", kLarge, 9);
  EXPECT_EQ(a.source(), Source::kBuiltCache);
  EXPECT_EQ(b.source(), Source::kBuiltCache);  // its own copy; its load only links the alias
  EXPECT_NE(a.cache_path(), b.cache_path());
  EXPECT_TRUE(fs::equivalent(a.cache_path(), b.cache_path()));  // both aliases name one pool
  size_t pools = 0;
  for (const std::string& f : Files(options_.directory)) pools += fs::path(f).extension() == ".aotrt-pool";
  EXPECT_EQ(pools, 1u);
  EXPECT_EQ(Get("file-two", kLarge, 9).source(), Source::kMappedCache);
  EXPECT_EQ(fills_, 2);
}

TEST_F(ConstantCacheTest, TornOrForeignAliasesAreRebuiltNeverFollowed) {
  std::string alias = Get("k", kLarge).cache_path();
  ASSERT_TRUE(fs::is_symlink(alias));
  std::string pool = fs::read_symlink(alias).string();
  std::ofstream(root_ + "/outside.aotrt-pool") << "x";
  auto relink = [&](const std::string& target) {
    fs::remove(alias);
    fs::create_symlink(target, alias);
  };
  std::vector<std::function<void()>> damages = {
      [&] { fs::remove(alias); std::ofstream(alias) << pool; },  // a regular file, not a link
      [&] { relink("0123456789abcdef0123456789abcdef.aotrt-pool"); },  // dangling
      [&] { relink("../outside.aotrt-pool"); },                        // out of the directory
      [&] { relink(root_ + "/outside.aotrt-pool"); },                  // absolute
      [&] { relink("0123456789ABCDEF0123456789abcdef.aotrt-pool"); },  // not a name the cache writes
      [&] { relink("short.aotrt-pool"); },
  };
  for (size_t i = 0; i < damages.size(); ++i) {
    damages[i]();
    int before = fills_;
    EXPECT_EQ(Get("k", kLarge).source(), Source::kBuiltCache) << "damage " << i;
    EXPECT_EQ(fills_, before + 1);
    EXPECT_EQ(Get("k", kLarge).source(), Source::kMappedCache) << "damage " << i;
    EXPECT_EQ(fs::read_symlink(alias).string(), pool) << "damage " << i;  // relinked to the same pool
  }
}

TEST_F(ConstantCacheTest, APoolWhoseBytesDoNotMatchItsNameIsRewrittenNotLinked) {
  std::string alias = Get("k", kLarge).cache_path();
  Flip(alias, kHeader + kUnsampled);  // through the link: the pool file, outside the sampled blocks
  // A second model file with the same bytes: its writer compares the existing pool byte for byte,
  // finds it damaged (its bytes no longer hash to its name) and rewrites it.
  EXPECT_EQ(Get("copy-of-k", kLarge, Seed("k")).source(), Source::kBuiltCache);
  ConstantPoolMemory m = Get("k", kLarge);
  EXPECT_EQ(m.source(), Source::kMappedCache);
  EXPECT_EQ(m.data()[kUnsampled], Pattern(kUnsampled, Seed("k")));
}

TEST_F(ConstantCacheTest, AProcessKilledRightAfterAMissStillLeavesTheFile) {
  pid_t pid = fork();
  ASSERT_GE(pid, 0);
  if (pid == 0) {
    ConstantPoolMemory m = GetPool(
        kLarge, [] { return "short-lived"; }, [](uint8_t* d) { std::memset(d, 3, kLarge); }, options_, "m");
    _exit(m.source() == Source::kBuiltCache ? 0 : 1);  // no exit hook: the load wrote the file
  }
  int status = 0;
  ASSERT_EQ(waitpid(pid, &status, 0), pid);
  ASSERT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0);
  ConstantPoolMemory m = GetPool(
      kLarge, [] { return "short-lived"; }, [](uint8_t*) { FAIL() << "filled again"; }, options_, "m");
  EXPECT_EQ(m.source(), Source::kMappedCache);
  EXPECT_EQ(m.data()[kLarge - 1], 3);
}

TEST_F(ConstantCacheTest, AHitReadsNoConstantsButItsSizeMustFitTheMetadata) {
  // A model's load knows its pool's size only within bounds until it parses the constants (plan):
  // a hit takes the size from the file, within those bounds, and never plans.
  int plans = 0;
  auto source = [&](size_t bytes_min, size_t bytes_max, size_t bytes) {
    aotrt::ConstantPoolSource s;
    s.bytes_min = bytes_min;
    s.bytes_max = bytes_max;
    s.key = [] { return std::string("model-file"); };
    s.plan = [&plans, bytes] { ++plans; return bytes; };
    s.fill = [bytes](uint8_t* d) { std::memset(d, 4, bytes); };
    return s;
  };
  ConstantPoolMemory built = aotrt::GetConstantPool(source(kLarge - 100, kLarge + 100, kLarge), options_, "m");
  EXPECT_EQ(built.source(), Source::kBuiltCache);
  EXPECT_EQ(plans, 1);
  ConstantPoolMemory hit = aotrt::GetConstantPool(source(kLarge - 100, kLarge + 100, kLarge), options_, "m");
  EXPECT_EQ(hit.source(), Source::kMappedCache);
  EXPECT_EQ(hit.bytes(), kLarge);
  EXPECT_EQ(plans, 1);  // no plan on a hit
  // The same identity with bounds that rule the file's size out: not used, planned and rebuilt.
  ConstantPoolMemory other = aotrt::GetConstantPool(source(kLarge + 1, kLarge + 200, kLarge + 64), options_, "m");
  EXPECT_EQ(other.source(), Source::kBuiltCache);
  EXPECT_EQ(other.bytes(), kLarge + 64);
  EXPECT_EQ(plans, 2);
}
