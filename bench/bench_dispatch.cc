// Dispatch overhead.
//  - BM_TVMFuncCall_NoOp: TVMFuncCall on a packed function that does nothing (target < 30 ns).
//  - BM_Run_TVMFuncCall vs BM_Run_DirectEntry: `run` of the one-element add model through the C
//    ABI against calling the generated entry function directly with the same tensors
//    (target: ratio <= 1.2). BM_Run_Executor: the C++ API's Executor::Run.
#include <benchmark/benchmark.h>

#include <vector>

#include "aotrt/model.h"
#include "bench_common.h"

namespace {

void BM_TVMFuncCall_NoOp(benchmark::State& state) {
  aotrt::PackedFunc noop([](aotrt::TVMArgs, aotrt::TVMRetValue*) {});
  void* handle = noop.object().get();
  TVMValue ret;
  int code;
  for (auto _ : state) {
    TVMFuncCall(handle, nullptr, nullptr, 0, &ret, &code);
    benchmark::ClobberMemory();
  }
}
BENCHMARK(BM_TVMFuncCall_NoOp);

struct AddModel {
  aotrt::Model model = aotrt::Model::Load(BenchModel("add_c"));
  aotrt::Executor ex = model.CreateExecutor();
  aotrt::NDArray a = aotrt::NDArray::Empty({1}, DLDataType{kDLFloat, 32, 1});
  aotrt::NDArray b = aotrt::NDArray::Empty({1}, DLDataType{kDLFloat, 32, 1});
  AddModel() {
    ex.SetInput("a", a.tensor());
    ex.SetInput("b", b.tensor());
  }
};

void BM_Run_TVMFuncCall(benchmark::State& state) {
  AddModel m;
  aotrt::PackedFunc run = m.ex.module().GetFunction("run");
  void* handle = run.object().get();
  TVMValue ret;
  int code;
  for (auto _ : state) {
    if (TVMFuncCall(handle, nullptr, nullptr, 0, &ret, &code) != 0) state.SkipWithError(TVMGetLastError());
  }
}
BENCHMARK(BM_Run_TVMFuncCall);

void BM_Run_Executor(benchmark::State& state) {
  AddModel m;
  for (auto _ : state) m.ex.Run();
}
BENCHMARK(BM_Run_Executor);

void BM_Run_DirectEntry(benchmark::State& state) {
  AddModel m;  // same library loaded, same tensors
  TVMBackendPackedCFunc entry = DirectEntry(BenchModel("add_c"), "tvmgen_default___tvm_main__");
  aotrt::NDArray out = aotrt::NDArray::Empty({1}, DLDataType{kDLFloat, 32, 1});
  TVMValue args[3];
  int codes[3] = {kTVMDLTensorHandle, kTVMDLTensorHandle, kTVMDLTensorHandle};
  args[0].v_handle = m.a.handle();
  args[1].v_handle = m.b.handle();
  args[2].v_handle = out.handle();
  TVMValue ret;
  for (auto _ : state) {
    int code = kTVMNullptr;
    if (entry(args, codes, 3, &ret, &code, nullptr) != 0) state.SkipWithError("entry failed");
    benchmark::ClobberMemory();
  }
}
BENCHMARK(BM_Run_DirectEntry);

}  // namespace

BENCHMARK_MAIN();
