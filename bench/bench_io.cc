// Input/output copies on a 4 MiB tensor against plain memcpy of the same bytes
// (target: set_input and get_output(i, out) at >= 90% of memcpy bandwidth).
#include <benchmark/benchmark.h>

#include <cstring>

#include <tvm/runtime/c_runtime_api.h>

#include "aotrt/model.h"
#include "bench_common.h"

namespace {

constexpr size_t kBytes = 4u << 20;
const DLDataType kF32{kDLFloat, 32, 1};

void BM_Memcpy_4MiB(benchmark::State& state) {
  aotrt::NDArray src = aotrt::NDArray::Empty({1024, 1024}, kF32);
  aotrt::NDArray dst = aotrt::NDArray::Empty({1024, 1024}, kF32);
  for (auto _ : state) {
    std::memcpy(dst.data(), src.data(), kBytes);
    benchmark::ClobberMemory();
  }
  state.SetBytesProcessed(static_cast<int64_t>(state.iterations() * kBytes));
}
BENCHMARK(BM_Memcpy_4MiB);

void BM_SetInput_4MiB(benchmark::State& state) {
  aotrt::Executor ex = aotrt::Model::Load(BenchModel("relu_4mib")).CreateExecutor();
  aotrt::NDArray src = aotrt::NDArray::Empty({1024, 1024}, kF32);
  for (auto _ : state) ex.SetInput(0, src.tensor());
  state.SetBytesProcessed(static_cast<int64_t>(state.iterations() * kBytes));
}
BENCHMARK(BM_SetInput_4MiB);

// Through the C ABI, as a host binding calls it: set_input(0, tensor).
void BM_SetInput_4MiB_TVMFuncCall(benchmark::State& state) {
  aotrt::Executor ex = aotrt::Model::Load(BenchModel("relu_4mib")).CreateExecutor();
  aotrt::PackedFunc f = ex.module().GetFunction("set_input");
  aotrt::NDArray src = aotrt::NDArray::Empty({1024, 1024}, kF32);
  TVMValue args[2];
  int codes[2] = {kTVMArgInt, kTVMDLTensorHandle};
  args[0].v_int64 = 0;
  args[1].v_handle = src.handle();
  TVMValue ret;
  int code;
  for (auto _ : state) TVMFuncCall(f.object().get(), args, codes, 2, &ret, &code);
  state.SetBytesProcessed(static_cast<int64_t>(state.iterations() * kBytes));
}
BENCHMARK(BM_SetInput_4MiB_TVMFuncCall);

void BM_GetOutputCopy_4MiB(benchmark::State& state) {
  aotrt::Executor ex = aotrt::Model::Load(BenchModel("relu_4mib")).CreateExecutor();
  aotrt::NDArray dst = aotrt::NDArray::Empty({1024, 1024}, kF32);
  for (auto _ : state) ex.CopyOutputTo(0, dst.handle());
  state.SetBytesProcessed(static_cast<int64_t>(state.iterations() * kBytes));
}
BENCHMARK(BM_GetOutputCopy_4MiB);

// Zero-copy: binding a caller buffer costs the same for any size.
void BM_SetInputZeroCopy_4MiB(benchmark::State& state) {
  aotrt::Executor ex = aotrt::Model::Load(BenchModel("relu_4mib")).CreateExecutor();
  aotrt::NDArray src = aotrt::NDArray::Empty({1024, 1024}, kF32);
  for (auto _ : state) ex.SetInputZeroCopy(0, src.tensor());
}
BENCHMARK(BM_SetInputZeroCopy_4MiB);

}  // namespace

BENCHMARK_MAIN();
