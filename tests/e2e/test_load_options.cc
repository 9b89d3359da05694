// Load options through every front door: C++ (Model::Load, Module::LoadFromFile) and the C ABI
// (AOTRTModLoadFromFileWithOptions), and how they reach executors made through TVM's packed API.
#include <gtest/gtest.h>

#include "aotrt/cache.h"

#include <filesystem>
#include <string>

#include <aotrt/c_api.h>
#include <tvm/runtime/c_runtime_api.h>

#include "common/expect_error.h"
#include "common/run_case.h"

using namespace aotrt;
using namespace aotrt_test;
namespace fs = std::filesystem;

namespace {

// factory["default"](cpu0) through the C ABI; the executor handle (owned by the caller).
void* CreatePacked(void* factory) {
  void* create = nullptr;
  EXPECT_EQ(TVMModGetFunction(factory, "default", 0, &create), 0) << TVMGetLastError();
  TVMValue dev, ret;
  dev.v_device = DLDevice{kDLCPU, 0};
  int code = kDLDevice, ret_code = 0;
  EXPECT_EQ(TVMFuncCall(create, &dev, &code, 1, &ret, &ret_code), 0) << TVMGetLastError();
  TVMFuncFree(create);
  return ret.v_handle;
}

// Runs the executor once through its packed "run"; the call's return code.
int RunPacked(void* executor) {
  void* run = nullptr;
  EXPECT_EQ(TVMModGetFunction(executor, "run", 0, &run), 0);
  TVMValue ret;
  int ret_code = 0;
  int rc = TVMFuncCall(run, nullptr, nullptr, 0, &ret, &ret_code);
  TVMFuncFree(run);
  return rc;
}

TEST(LoadOptions, CheckBoundsThroughTheCAbiReachesPackedExecutors) {
  Case c = GeneratedCase("overrun_usmp_c");
  AOTRTLoadOptions o;
  AOTRTLoadOptionsInit(&o);
  EXPECT_EQ(o.struct_size, sizeof(AOTRTLoadOptions));
  EXPECT_EQ(o.constant_cache, 1);
  EXPECT_EQ(o.check_bounds, 0);
  o.check_bounds = 1;
  void* factory = nullptr;
  ASSERT_EQ(AOTRTModLoadFromFileWithOptions(c.library.c_str(), nullptr, &o, &factory), 0) << TVMGetLastError();
  void* ex = CreatePacked(factory);
  EXPECT_EQ(RunPacked(ex), -1);
  EXPECT_EQ(AOTRTGetLastErrorCode(), static_cast<int>(ErrorCode::kModelError));
  EXPECT_NE(std::string(TVMGetLastError()).find("bytes past workspace pool"), std::string::npos) << TVMGetLastError();
  TVMModFree(ex);
  TVMModFree(factory);
  // Without the option (NULL options: the defaults), the same run succeeds: the slack absorbs it.
  ASSERT_EQ(AOTRTModLoadFromFileWithOptions(c.library.c_str(), "so", nullptr, &factory), 0) << TVMGetLastError();
  ex = CreatePacked(factory);
  EXPECT_EQ(RunPacked(ex), 0) << TVMGetLastError();
  TVMModFree(ex);
  TVMModFree(factory);
}

TEST(LoadOptions, CAbiRefusesWhatItCannotRead) {
  Case c = GeneratedCase("add_c");
  AOTRTLoadOptions o;
  AOTRTLoadOptionsInit(&o);
  void* factory = nullptr;
  o.struct_size = sizeof(AOTRTLoadOptions) + 8;  // a newer header's struct
  EXPECT_EQ(AOTRTModLoadFromFileWithOptions(c.library.c_str(), "", &o, &factory), -1);
  EXPECT_EQ(AOTRTGetLastErrorCode(), static_cast<int>(ErrorCode::kInvalidArgument));
  EXPECT_NE(std::string(TVMGetLastError()).find("struct_size"), std::string::npos) << TVMGetLastError();
  AOTRTLoadOptionsInit(&o);
  o.huge_pages = 2;
  EXPECT_EQ(AOTRTModLoadFromFileWithOptions(c.library.c_str(), "", &o, &factory), -1);
  EXPECT_NE(std::string(TVMGetLastError()).find("AOTRTLoadOptions.huge_pages is 2: expected 0 or 1"), std::string::npos)
      << TVMGetLastError();
  AOTRTLoadOptionsInit(&o);
  o.num_threads = -1;
  EXPECT_EQ(AOTRTModLoadFromFileWithOptions(c.library.c_str(), "", &o, &factory), -1);
  EXPECT_NE(std::string(TVMGetLastError()).find("AOTRTLoadOptions.num_threads is -1: expected 0"), std::string::npos)
      << TVMGetLastError();
  EXPECT_EQ(AOTRTModLoadFromFileWithOptions(nullptr, "", &o, &factory), -1);
  EXPECT_EQ(AOTRTModLoadFromFileWithOptions(c.library.c_str(), "", &o, nullptr), -1);
  EXPECT_EQ(factory, nullptr);
  AOTRTLoadOptionsInit(nullptr);  // ignored, never a crash
}

TEST(LoadOptions, CacheDirectoryThroughEveryFrontDoor) {
  Case c = GeneratedCase("usmp_cached_c");  // a constant pool large enough for the cache
  fs::path root = fs::temp_directory_path() / ("aotrt_load_options_" + std::to_string(::getpid()));
  fs::remove_all(root);
  LoadOptions cpp;
  cpp.cache_dir = (root / "cpp").string();
  EXPECT_EQ(Model::Load(c.library, cpp).Info().constant_source, ConstantSource::kBuiltCache);
  EXPECT_TRUE(WaitForCacheWrites(30000));  // written in the background
  EXPECT_EQ(Model::FromModule(Module::LoadFromFile(c.library, "", cpp)).Info().constant_source,
            ConstantSource::kMappedCache);
  AOTRTLoadOptions o;
  AOTRTLoadOptionsInit(&o);
  std::string dir = (root / "c").string();
  o.cache_dir = dir.c_str();
  void* factory = nullptr;
  ASSERT_EQ(AOTRTModLoadFromFileWithOptions(c.library.c_str(), "", &o, &factory), 0) << TVMGetLastError();
  TVMModFree(factory);
  EXPECT_TRUE(fs::exists(root / "c"));
  o.constant_cache = 0;
  std::string off = (root / "off").string();
  o.cache_dir = off.c_str();
  ASSERT_EQ(AOTRTModLoadFromFileWithOptions(c.library.c_str(), "", &o, &factory), 0) << TVMGetLastError();
  TVMModFree(factory);
  EXPECT_FALSE(fs::exists(root / "off"));
  EXPECT_TRUE(WaitForCacheWrites(30000));
  fs::remove_all(root);
}

}  // namespace
