// libFuzzer target: the .npz reader of the aotrt command line (minizip + the .npy parser). The
// reader takes a path, so each input is written to one temporary file first.
#include <unistd.h>

#include <cstddef>
#include <cstdint>
#include <fstream>
#include <string>

#include "aotrt/error.h"
#include "aotrt/npy.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  static const std::string path = "/tmp/aotrt_fuzz_npz_" + std::to_string(::getpid()) + ".npz";
  std::ofstream(path, std::ios::binary | std::ios::trunc).write(reinterpret_cast<const char*>(data), size);
  try {
    (void)aotrt::ReadNpz(path);
  } catch (const aotrt::Error&) {
  }
  return 0;
}
