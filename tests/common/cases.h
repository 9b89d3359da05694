// Test helper: the reference cases (generated models and real TVM exports converted to .npy).
#pragma once

#include <dirent.h>
#include <sys/stat.h>

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "aotrt/ndarray.h"
#include "npy.h"  // tools/: the CLI's .npy reader

namespace aotrt_test {

struct Case {
  std::string name;
  std::string dir;           // the NAME.case folder
  std::string library;       // the model .so
  std::string mod_name;      // factory module name
  std::vector<std::string> input_names;  // original (unsanitized), in input order
  std::vector<std::string> params;       // inputs supplied by the factory
  std::vector<aotrt::NDArray> inputs;     // same order as input_names (params excluded: undefined)
  std::vector<aotrt::NDArray> expected;
  std::string expect_error;
  bool system_lib = false;
  // Models that write past their workspace on purpose (case.json "overrun"); 0 bytes: none.
  size_t overrun_bytes = 0;
  std::string overrun_pool;       // USMP pool name; empty: a TVMBackendAllocWorkspace block
  size_t overrun_buffer_bytes = 0;
};

inline bool IsDir(const std::string& p) {
  struct stat st {};
  return ::stat(p.c_str(), &st) == 0 && S_ISDIR(st.st_mode);
}

inline std::vector<std::string> ListDir(const std::string& dir) {
  std::vector<std::string> out;
  if (DIR* d = ::opendir(dir.c_str())) {
    while (dirent* e = ::readdir(d)) {
      if (e->d_name[0] != '.') out.push_back(e->d_name);
    }
    ::closedir(d);
  }
  std::sort(out.begin(), out.end());
  return out;
}

inline std::string Sanitize(std::string s) {
  for (char& c : s) {
    if (!std::isalnum(static_cast<unsigned char>(c))) c = '_';
  }
  return s;
}

// Read NAME.case/ (case.json, inputs/<sanitized>.npy, expected/output<i>.npy).
inline Case LoadCase(const std::string& dir, const std::string& library) {
  std::ifstream in(dir + "/case.json");
  nlohmann::ordered_json j = nlohmann::ordered_json::parse(in);
  Case c;
  c.dir = dir;
  c.name = j.value("case", dir);
  c.library = library;
  c.mod_name = j.at("mod_name").get<std::string>();
  c.system_lib = j.value("system_lib", false);
  c.expect_error = j.value("expect_error", "");
  if (j.contains("overrun")) {
    const auto& o = j.at("overrun");
    c.overrun_bytes = o.at("bytes").get<size_t>();
    c.overrun_pool = o.at("pool").is_null() ? "" : o.at("pool").get<std::string>();
    c.overrun_buffer_bytes = o.at("buffer_bytes").get<size_t>();
  }
  if (j.contains("params") && j.contains("constants")) c.params = j.at("params").get<std::vector<std::string>>();
  for (auto& kv : j.at("inputs").items()) {
    c.input_names.push_back(kv.key());
    bool is_param = std::find(c.params.begin(), c.params.end(), kv.key()) != c.params.end();
    c.inputs.push_back(is_param ? aotrt::NDArray() : aotrt_cli::ReadNpy(dir + "/inputs/" + Sanitize(kv.key()) + ".npy"));
  }
  for (size_t i = 0; c.expect_error.empty() && i < j.at("outputs").size(); ++i) {
    c.expected.push_back(aotrt_cli::ReadNpy(dir + "/expected/output" + std::to_string(i) + ".npy"));
  }
  return c;
}

// Directory of generated models (NAME.so + NAME.case/), set by CMake.
inline std::string ModelsDir() { return AOTRT_TEST_MODELS_DIR; }

inline std::string ModelPath(const std::string& name) { return ModelsDir() + "/" + name + ".so"; }

inline Case GeneratedCase(const std::string& name) {
  return LoadCase(ModelsDir() + "/" + name + ".case", ModelPath(name));
}

// Every generated case that is a loadable .so.
inline std::vector<std::string> GeneratedCaseNames() {
  std::vector<std::string> names;
  for (const std::string& e : ListDir(ModelsDir())) {
    if (e.size() > 5 && e.compare(e.size() - 5, 5, ".case") == 0) {
      std::string n = e.substr(0, e.size() - 5);
      std::ifstream so(ModelPath(n));
      if (so.good()) names.push_back(n);
    }
  }
  return names;
}

// Real TVM exports converted to .npy by CMake (empty when ../shared is absent).
inline std::string FixturesDir() { return AOTRT_TEST_FIXTURES_NPY_DIR; }

inline bool BytesEqual(const aotrt::NDArray& a, const aotrt::NDArray& b) {
  return a.NumBytes() == b.NumBytes() && aotrt::DataTypeEqual(a.dtype(), b.dtype()) && a.Shape() == b.Shape() &&
         std::memcmp(a.data(), b.data(), a.NumBytes()) == 0;
}

}  // namespace aotrt_test
