// A model held in a static and released only as the process exits, after the OpenCL platform's own
// libraries have begun tearing down (pocl's LLVM): the process must still end cleanly (a program
// binary taken then is compiled through the torn-down LLVM, and crashed). Run once, the program cache
// holds every kernel, the one the graph never launches too (cached as the first run ends); created
// only ("create-only"), it holds none: nothing is saved at exit.
//   static_model_at_exit MODEL.so CACHE_DIR [create-only]
// Exit status 0: passed; 1: failed; 77: skipped (no model or device).
#include <cstdio>
#include <filesystem>
#include <string>

#include "aotrt/model.h"

namespace {
aotrt::Model model;  // constructed before the OpenCL platform loads, so destroyed after it tears down
aotrt::Executor executor;
}  // namespace

int main(int argc, char** argv) {
  namespace fs = std::filesystem;
  if (argc < 3 || !fs::exists(argv[1])) return std::puts("skipped: no model"), 77;
  bool run = argc < 4 || std::string(argv[3]) != "create-only";
  fs::remove_all(argv[2]);
  try {
    aotrt::LoadOptions o;
    o.cache_dir = argv[2];
    model = aotrt::Model::Load(argv[1], o);
    executor = model.CreateExecutor(DLDevice{kDLOpenCL, 0});
  } catch (const aotrt::Error& e) {
    return std::printf("skipped: %s\n", e.what()), 77;
  }
  for (size_t i = 0; run && i < executor.NumInputs(); ++i) {
    aotrt::NDArray zeros = aotrt::NDArray::Empty(executor.Input(i).shape, executor.Input(i).dtype);
    executor.SetInput(i, zeros.tensor());
  }
  if (run) executor.Run();
  executor.Synchronize();
  size_t cached = 0;
  for (const auto& e : fs::directory_iterator(argv[2])) cached += e.path().extension() == ".bin";
  std::printf("%zu programs cached\n", cached);
  return cached == (run ? 27 : 0) ? 0 : 1;  // MobileNet's OpenCL module has 27 kernels
}
