// Load a TVM AOT export with the aotrt C++ API, show its interface, run it on inputs of ones and
// print the outputs' first values, then time `run` with TVM's time evaluator.
//   usage: run_model_cpp model.so
#include <aotrt/model.h>
#include <aotrt/profiling.h>

#include <cstdio>
#include <cstring>
#include <vector>

namespace {

void FillOnes(aotrt::NDArray& a) {
  const DLDataType t = a.dtype();
  size_t n = a.NumBytes() / aotrt::DataTypeBytes(t);
  for (size_t i = 0; i < n; ++i) {
    char* p = static_cast<char*>(a.data()) + i * aotrt::DataTypeBytes(t);
    if (t.code == kDLFloat && t.bits == 32) *reinterpret_cast<float*>(p) = 1.0f;
    else if (t.code == kDLFloat && t.bits == 64) *reinterpret_cast<double*>(p) = 1.0;
    else std::memset(p, 0, aotrt::DataTypeBytes(t)), *p = 1;  // integers: little-endian 1
  }
}

double First(const aotrt::NDArray& a) {
  const DLDataType t = a.dtype();
  if (a.NumBytes() == 0) return 0;
  if (t.code == kDLFloat && t.bits == 32) return *static_cast<float*>(a.data());
  if (t.code == kDLFloat && t.bits == 64) return *static_cast<double*>(a.data());
  if (t.code == kDLInt && t.bits == 32) return *static_cast<int32_t*>(a.data());
  if (t.code == kDLInt && t.bits == 8) return *static_cast<int8_t*>(a.data());
  if (t.code == kDLUInt && t.bits == 8) return *static_cast<uint8_t*>(a.data());
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 2) {
    std::fprintf(stderr, "usage: %s model.so\n", argv[0]);
    return 1;
  }
  try {
    aotrt::Model model = aotrt::Model::Load(argv[1]);
    std::printf("model '%s': %zu input(s), %zu output(s)\n", model.name().c_str(), model.Inputs().size(),
                model.Outputs().size());
    aotrt::Executor ex = model.CreateExecutor();
    for (size_t i = 0; i < model.Inputs().size(); ++i) {
      const aotrt::TensorInfo& in = model.Inputs()[i];
      aotrt::NDArray a = aotrt::NDArray::Empty(in.shape, in.dtype);
      FillOnes(a);
      ex.SetInput(i, a.tensor());
      std::printf("  input  %-12s %s %s\n", in.name.c_str(), aotrt::DataTypeToString(in.dtype).c_str(),
                  aotrt::ShapeToString(in.shape.data(), static_cast<int>(in.shape.size())).c_str());
    }
    ex.Run();
    for (size_t i = 0; i < ex.NumOutputs(); ++i) {
      const aotrt::TensorInfo& out = ex.Output(i);
      std::printf("  output %-12s %s %s  first value %g\n", out.name.c_str(),
                  aotrt::DataTypeToString(out.dtype).c_str(),
                  aotrt::ShapeToString(out.shape.data(), static_cast<int>(out.shape.size())).c_str(),
                  First(ex.GetOutput(i)));
    }
    // TVM's time_evaluator contract: repeat doubles of mean seconds per call, as bytes.
    aotrt::PackedFunc timer = aotrt::TimeEvaluator(ex.module(), "run", DLDevice{kDLCPU, 0}, /*number=*/100, /*repeat=*/3);
    std::vector<double> seconds = aotrt::ParseTimes(timer.Call<std::string>());
    for (size_t r = 0; r < seconds.size(); ++r) std::printf("  repeat %zu: %.3f us per run\n", r, seconds[r] * 1e6);
    // Beyond TVM: every call timed, with percentiles.
    aotrt::BenchmarkOptions opt;
    opt.number = 100;
    opt.repeat = 10;
    aotrt::BenchmarkStats s = aotrt::Benchmark(ex.module().GetFunction("run"), aotrt::TVMArgs(nullptr, nullptr, 0), opt);
    std::printf("  %zu runs: median %.3f us, p99 %.3f us, max %.3f us\n", s.samples.size(), s.median * 1e6,
                s.p99 * 1e6, s.max * 1e6);
  } catch (const aotrt::Error& e) {
    std::fprintf(stderr, "error (%s): %s\n", aotrt::ErrorCodeName(e.code()), e.what());
    return 2;
  }
  return 0;
}
