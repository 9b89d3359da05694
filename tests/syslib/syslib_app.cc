// A C++ application with a system-lib model linked in, driven through aotrt's C++ API.
// usage: syslib_app_cc MOD_NAME IN_DIR OUT_DIR (the same files as syslib_app.c). On failure prints
// the error and exits 1.
#include <cstring>
#include <fstream>
#include <iostream>
#include <iterator>
#include <string>
#include <vector>

#include <aotrt/model.h>

namespace {

std::vector<char> ReadFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw std::runtime_error("cannot read " + path);
  return std::vector<char>(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
}

void WriteFile(const std::string& path, const void* data, size_t bytes) {
  std::ofstream out(path, std::ios::binary);
  out.write(static_cast<const char*>(data), static_cast<std::streamsize>(bytes));
  if (!out) throw std::runtime_error("cannot write " + path);
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 4) {
    std::cerr << "usage: " << argv[0] << " MOD_NAME IN_DIR OUT_DIR\n";
    return 2;
  }
  try {
    aotrt::Model model = aotrt::Model::FromModule(aotrt::Module::SystemLib());
    if (model.name() != argv[1]) throw std::runtime_error("model is named '" + model.name() + "', not " + argv[1]);
    aotrt::Executor ex = model.CreateExecutor();
    for (size_t i = 0; i < ex.NumInputs(); ++i) {
      const aotrt::TensorInfo& info = ex.Input(i);
      std::vector<char> bytes = ReadFile(std::string(argv[2]) + "/" + info.name + ".bin");
      if (bytes.size() != info.bytes) throw std::runtime_error("input " + info.name + ": wrong byte count");
      aotrt::NDArray in = aotrt::NDArray::Empty(info.shape, info.dtype);
      std::memcpy(in.data(), bytes.data(), bytes.size());
      ex.SetInput(i, in.tensor());
    }
    ex.Run();
    for (size_t i = 0; i < ex.NumOutputs(); ++i) {
      aotrt::NDArray out = ex.GetOutput(i);
      WriteFile(std::string(argv[3]) + "/output" + std::to_string(i) + ".bin", out.data(), out.NumBytes());
    }
  } catch (const std::exception& e) {
    std::cerr << "syslib_app_cc: " << e.what() << "\n";
    return 1;
  }
  return 0;
}
