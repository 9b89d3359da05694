// One-call inference (Executor::Run(inputs) -> output copies) against the same work done with
// SetInput + Run + CopyOutputTo into preallocated outputs, and against SetInput + Run + GetOutput
// (an alias, no output copy), on the smallest real export: TVM's tiny_add_c (two float32[1]
// inputs, one output), where the per-call overhead is all there is.
//   build/bench/bench_one_call [--benchmark_repetitions=5]   (fixtures folder: the CMake cache
//   variable AOTRT_BENCH_FIXTURES_DIR)
#include <benchmark/benchmark.h>

#include <string>
#include <utility>
#include <vector>

#include "aotrt/model.h"

namespace {

std::string TinyAdd() { return std::string(AOTRT_FIXTURES_DIR) + "/tiny_add_c/model.so"; }

struct Setup {
  aotrt::Executor ex = aotrt::Model::Load(TinyAdd()).CreateExecutor();
  std::vector<aotrt::NDArray> in, out;
  Setup() {
    for (size_t i = 0; i < ex.NumInputs(); ++i) in.push_back(aotrt::NDArray::Empty(ex.Input(i).shape, ex.Input(i).dtype));
    for (size_t i = 0; i < ex.NumOutputs(); ++i) {
      out.push_back(aotrt::NDArray::Empty(ex.Output(i).shape, ex.Output(i).dtype));
    }
  }
};

void BM_SetInputRunCopyOutput(benchmark::State& state) {
  Setup s;
  for (auto _ : state) {
    for (size_t i = 0; i < s.in.size(); ++i) s.ex.SetInput(i, s.in[i].tensor());
    s.ex.Run();
    for (size_t i = 0; i < s.out.size(); ++i) s.ex.CopyOutputTo(i, s.out[i].handle());
  }
}
BENCHMARK(BM_SetInputRunCopyOutput);

void BM_SetInputByNameRunGetOutputAlias(benchmark::State& state) {
  Setup s;
  for (auto _ : state) {
    s.ex.SetInput("a", s.in[0].tensor());
    s.ex.SetInput("b", s.in[1].tensor());
    s.ex.Run();
    benchmark::DoNotOptimize(s.ex.GetOutput(0));
  }
}
BENCHMARK(BM_SetInputByNameRunGetOutputAlias);

void BM_OneCallByPosition(benchmark::State& state) {
  Setup s;
  std::vector<DLTensor> in = {s.in[0].tensor(), s.in[1].tensor()};
  for (auto _ : state) benchmark::DoNotOptimize(s.ex.Run(in));
}
BENCHMARK(BM_OneCallByPosition);

void BM_OneCallByName(benchmark::State& state) {
  Setup s;
  std::vector<std::pair<std::string, DLTensor>> in = {{"a", s.in[0].tensor()}, {"b", s.in[1].tensor()}};
  for (auto _ : state) benchmark::DoNotOptimize(s.ex.Run(in));
}
BENCHMARK(BM_OneCallByName);

}  // namespace

BENCHMARK_MAIN();
