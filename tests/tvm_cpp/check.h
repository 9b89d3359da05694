// Shared by the programs written against TVM's C++ runtime API (tests/tvm_cpp): the fixtures'
// reference data (aotrt/npy.h) and a check that fails the program. Exit 77 means skipped.
#pragma once

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include <aotrt/npy.h>
#include <dlpack/dlpack.h>
#include <sys/stat.h>

namespace tvm_cpp_test {

constexpr int kSkip = 77;

inline int& Failures() {
  static int n = 0;
  return n;
}

inline void Expect(bool ok, const std::string& what) {
  if (!ok) {
    ++Failures();
    std::fprintf(stderr, "FAILED: %s\n", what.c_str());
  }
}

inline bool Exists(const std::string& path) {
  struct stat st;
  return stat(path.c_str(), &st) == 0;
}

inline std::vector<aotrt::NamedArray> Npz(const std::string& path) { return aotrt::ReadNpz(path); }

// Whether `got` holds exactly the bytes of `want` (the same dtype and element count).
inline bool SameBytes(const DLTensor& got, const aotrt::NDArray& want) {
  size_t n = aotrt::TensorBytes(got);
  return n == want.NumBytes() && aotrt::DataTypeEqual(got.dtype, want.dtype()) &&
         std::memcmp(static_cast<const char*>(got.data) + got.byte_offset, want.data(), n) == 0;
}

inline int Finish(const char* program, int checks) {
  std::printf("%s: %d checks, %d failed\n", program, checks, Failures());
  return Failures() == 0 ? 0 : 1;
}

}  // namespace tvm_cpp_test
