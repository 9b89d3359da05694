// TVM's texture storage on OpenCL (Adreno and Mali schedules) through the public API: what an
// image cannot hold, and a graph whose storages are images (the texel layout and the image copies:
// tests/unit/test_opencl_textures.cc).
#include <gtest/gtest.h>
#include <tvm/runtime/c_runtime_api.h>

#include <cstring>
#include <fstream>
#include <numeric>
#include <vector>

#include <nlohmann/json.hpp>

#include "aotrt/model.h"
#include "common/expect_error.h"

using namespace aotrt;

namespace {

constexpr DLDevice kCL{kDLOpenCL, 0};
constexpr DLDataType kF32{kDLFloat, 32, 1};

bool HaveImages() {
  void* p = nullptr;
  int64_t shape[3] = {1, 1, 4};
  if (TVMDeviceAllocDataSpaceWithScope(kCL, 3, shape, kF32, "global.texture", &p) != 0) return false;
  TVMDeviceFreeDataSpace(kCL, p);
  return true;
}
#define SKIP_WITHOUT_IMAGES() \
  if (!HaveImages()) GTEST_SKIP() << "no OpenCL device with images here: " << TVMGetLastError()

DLTensor On(DLDevice dev, void* data, std::vector<int64_t>& shape) {
  return DLTensor{data, dev, static_cast<int>(shape.size()), kF32, shape.data(), nullptr, 0};
}

TEST(OpenCLTextures, ShapesAndScopesAnImageCannotHoldAreRefused) {
  SKIP_WITHOUT_IMAGES();
  void* p = nullptr;
  int64_t three[3] = {2, 3, 3}, two[2] = {2, 4}, ok[3] = {2, 3, 4};
  EXPECT_NE(TVMDeviceAllocDataSpaceWithScope(kCL, 3, three, kF32, "global.texture", &p), 0);
  EXPECT_NE(std::string(TVMGetLastError()).find("last dimension is 4"), std::string::npos) << TVMGetLastError();
  EXPECT_NE(TVMDeviceAllocDataSpaceWithScope(kCL, 2, two, kF32, "global.texture", &p), 0);
  EXPECT_NE(TVMDeviceAllocDataSpaceWithScope(kCL, 3, ok, kF32, "global.texture-odd", &p), 0);
  EXPECT_NE(std::string(TVMGetLastError()).find("unknown memory scope 'global.texture-odd'"), std::string::npos);
  EXPECT_NE(TVMDeviceAllocDataSpaceWithScope(kCL, 3, ok, DLDataType{kDLFloat, 64, 1}, "global.texture", &p), 0);
  EXPECT_NE(std::string(TVMGetLastError()).find("an image cannot hold float64"), std::string::npos);
  EXPECT_NE(TVMDeviceAllocDataSpaceWithScope(DLDevice{kDLCPU, 0}, 3, ok, kF32, "global.texture", &p), 0);
  EXPECT_AOTRT_ERROR(NDArray::Empty({2, 3, 4}, kF32, DLDevice{kDLCPU, 0}, "global.texture"), ErrorCode::kNotImplemented,
                     {"memory scope 'global.texture' is not supported on the CPU"});
}

// A graph of __copy nodes only (no kernels): the host input into an image, the image into a
// buffer, the buffer back to the host; a second input set straight into an image and copied out.
std::string CopyThroughTexturesGraph() {
  nlohmann::json copy = {{"op", "tvm_op"}, {"attrs", {{"func_name", "__copy"}, {"num_inputs", "1"}, {"num_outputs", "1"}}}};
  auto node = [&](const char* name, int src) {
    nlohmann::json n = copy;
    n["name"] = name;
    n["inputs"] = {{src, 0, 0}};
    return n;
  };
  nlohmann::json g = {
      {"nodes", {{{"op", "null"}, {"name", "data"}, {"inputs", nlohmann::json::array()}},
                 {{"op", "null"}, {"name", "weight"}, {"inputs", nlohmann::json::array()}},
                 node("to_image", 0), node("to_buffer", 2), node("to_host", 3), node("weight_out", 1)}},
      {"arg_nodes", {0, 1}},
      {"heads", {{4, 0, 0}, {5, 0, 0}}},
      {"node_row_ptr", {0, 1, 2, 3, 4, 5, 6}}};
  std::vector<std::vector<int64_t>> shapes = {{1, 2, 3, 4}, {2, 2, 2, 4}, {1, 2, 3, 4}, {1, 2, 3, 4}, {1, 2, 3, 4}, {2, 2, 2, 4}};
  g["attrs"] = {{"dltype", {"list_str", std::vector<std::string>(6, "float32")}},
                {"shape", {"list_shape", shapes}},
                {"storage_id", {"list_int", {0, 1, 2, 3, 4, 5}}},
                {"device_index", {"list_int", {1, 4, 4, 4, 1, 4}}},
                {"storage_scope", {"list_str", {"", "global.texture-weight", "global.texture", "global", "", ""}}}};
  return g.dump();
}

std::string AnOpenCLLibrary() {
  std::ifstream in(std::string(AOTRT_TEST_GPU_FIXTURES_NPY_DIR) + "/o_classic/case.json");
  return in ? nlohmann::json::parse(in).at("artifact").get<std::string>() + "/mod.so" : "";
}

TEST(OpenCLTextures, AGraphWithTextureStorageRunsThroughImages) {
  SKIP_WITHOUT_IMAGES();
  std::string lib = AnOpenCLLibrary();
  if (lib.empty()) GTEST_SKIP() << "../shared/fixtures/gpu not present";
  Model m = Model::LoadGraph(lib, CopyThroughTexturesGraph());
  Executor ex = m.CreateExecutor(kCL);
  std::vector<float> data(24), weight(32);
  std::iota(data.begin(), data.end(), 1.0f);
  std::iota(weight.begin(), weight.end(), 100.0f);
  std::vector<int64_t> ds = {1, 2, 3, 4}, ws = {2, 2, 2, 4};
  ex.SetInput("data", On(DLDevice{kDLCPU, 0}, data.data(), ds));
  ex.SetInput("weight", On(DLDevice{kDLCPU, 0}, weight.data(), ws));  // host -> image
  ex.Run();
  std::vector<float> out(24), wout(32);
  DLTensor o = On(DLDevice{kDLCPU, 0}, out.data(), ds), wo = On(DLDevice{kDLCPU, 0}, wout.data(), ws);
  ex.CopyOutputTo(0, &o);
  ex.CopyOutputTo(1, &wo);
  EXPECT_EQ(out, data);
  EXPECT_EQ(wout, weight);
  NDArray buf = NDArray::Empty(ws, kF32, kCL);
  EXPECT_AOTRT_ERROR(ex.SetInputZeroCopy(1, buf.tensor()), ErrorCode::kInvalidArgument,
                     {"input 1 ('weight') lives in texture storage", "zero-copy takes buffers"});
}

TEST(OpenCLTextures, TextureStorageAGraphCannotHoldIsRefusedAtLoad) {
  std::string lib = AnOpenCLLibrary();
  if (lib.empty()) GTEST_SKIP() << "../shared/fixtures/gpu not present";
  auto edited = [](auto edit) {
    nlohmann::json g = nlohmann::json::parse(CopyThroughTexturesGraph());
    edit(g);
    return g.dump();
  };
  EXPECT_AOTRT_ERROR(Model::LoadGraph(lib, edited([](nlohmann::json& g) { g["attrs"]["storage_scope"][1][4] = "global.texture"; })),
                     ErrorCode::kFormatError, {"node entry 4", "texture storage", "on the CPU"});
  EXPECT_AOTRT_ERROR(Model::LoadGraph(lib, edited([](nlohmann::json& g) { g["attrs"]["shape"][1][2] = {1, 2, 3, 3}; g["attrs"]["shape"][1][0] = {1, 2, 3, 3}; g["attrs"]["shape"][1][3] = {1, 2, 3, 3}; g["attrs"]["shape"][1][4] = {1, 2, 3, 3}; })),
                     ErrorCode::kFormatError, {"node entry 2", "last dimension is 4"});
  EXPECT_AOTRT_ERROR(Model::LoadGraph(lib, edited([](nlohmann::json& g) { g["attrs"]["storage_id"][1][3] = 2; })),
                     ErrorCode::kFormatError, {"storage 2 holds texture entries and node entry 3, a buffer"});
  EXPECT_AOTRT_ERROR(Model::LoadGraph(lib, edited([](nlohmann::json& g) { g["attrs"]["storage_scope"][1][2] = "shared"; })),
                     ErrorCode::kNotImplemented, {"node entry 2", "storage scope \"shared\""});
}

}  // namespace
