// Test helpers for the real C-interface archives (../shared/fixtures/mlf, converted to .npy at
// build time): their cases, a private cache/scratch folder per test, and archive variants made
// with the system `tar`.
#pragma once

#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdlib>
#include <cstring>
#include <fstream>
#include <string>

#include "aotrt/model.h"
#include "common/cases.h"

namespace aotrt_test {

inline std::string MlfFixturesDir() { return AOTRT_TEST_MLF_FIXTURES_NPY_DIR; }

// The case `name` (mlf_conv_usmp, mlf_user_pool); its library is the archive. name empty when absent.
inline Case MlfCase(const std::string& name) {
  if (MlfFixturesDir().empty()) return Case();
  std::string dir = MlfFixturesDir() + "/" + name;
  std::ifstream in(dir + "/case.json");
  if (!in) return Case();
  std::string archive = nlohmann::json::parse(in).at("artifact").get<std::string>();
  return LoadCase(dir, archive);
}

// A fresh folder, removed with its contents at the end of the test.
class ScratchDir {
 public:
  ScratchDir() {
    char tmpl[] = "/tmp/aotrt-mlf-test-XXXXXX";
    path_ = ::mkdtemp(tmpl) ? tmpl : "";
  }
  ~ScratchDir() { Sh("rm -rf '" + path_ + "'"); }
  const std::string& path() const { return path_; }
  static int Sh(const std::string& cmd) { return std::system(cmd.c_str()); }

 private:
  std::string path_;
};

// The bytes of every output equal the expected ones (C-interface outputs may be flat).
inline void ExpectOutputBytesMatch(const Case& c, const aotrt::Executor& ex) {
  ASSERT_EQ(ex.NumOutputs(), c.expected.size()) << c.name;
  for (size_t i = 0; i < c.expected.size(); ++i) {
    aotrt::NDArray got = ex.GetOutput(i);
    ASSERT_EQ(got.NumBytes(), c.expected[i].NumBytes()) << c.name << ": output " << i;
    EXPECT_EQ(std::memcmp(got.data(), c.expected[i].data(), got.NumBytes()), 0) << c.name << ": output " << i << " differs";
  }
}

inline aotrt::LoadOptions CacheIn(const ScratchDir& d) {
  aotrt::LoadOptions o;
  o.cache_dir = d.path() + "/cache";
  return o;
}

}  // namespace aotrt_test

#define AOTRT_SKIP_WITHOUT_MLF(c) \
  if ((c).name.empty()) GTEST_SKIP() << "../shared/fixtures/mlf not present"
