// The Relay VM's overhead per call against the graph executor's, each over the same work: a one-kernel
// static model (TVM's element-wise add) run whole, and its kernel called alone with the same tensors.
// The difference is what the executor adds: for the VM, the interpreter (AllocStorage, AllocTensor,
// InvokePacked, Ret from its pool); for the graph executor, its planned call. Fixtures:
// ../shared/fixtures/vm/v_add_split (float32[4, 4]) and ../shared/fixtures/graph/g_add_c (uint8[1, 2]).
//   build/bench/bench_vm_overhead [--benchmark_repetitions=5]
#include <benchmark/benchmark.h>

#include <string>

#include "aotrt/model.h"
#include "aotrt/module.h"
#include "aotrt/packed_func_call.h"
#include "aotrt/vm.h"

namespace {

const std::string kVM = std::string(AOTRT_ALL_FIXTURES_DIR) + "/vm/v_add_split";
const std::string kGraph = std::string(AOTRT_ALL_FIXTURES_DIR) + "/graph/g_add_c/model.so";
constexpr DLDataType kF32{kDLFloat, 32, 1}, kU8{kDLUInt, 8, 1};

void BM_VMInvoke(benchmark::State& state) {
  aotrt::Module exe = aotrt::LoadVMExecutable(kVM + "/code.ro", kVM + "/lib.so");
  aotrt::Module vm = exe.GetFunctionOrThrow("vm_load_executable")().As<aotrt::Module>();
  vm.GetFunctionOrThrow("init")(static_cast<int>(kDLCPU), 0, 2);  // pooled allocator, as TVM's Python
  aotrt::NDArray a = aotrt::NDArray::Empty({4, 4}, kF32), b = aotrt::NDArray::Empty({4, 4}, kF32);
  vm.GetFunctionOrThrow("set_input")("main", a, b);
  aotrt::PackedFunc invoke = vm.GetFunctionOrThrow("invoke");
  for (auto _ : state) benchmark::DoNotOptimize(invoke("main"));
}
BENCHMARK(BM_VMInvoke);

// The same VM export through aotrt::Model / Executor (Model::Load of the two files' folder): Run() is
// invoke("main") by index, with no lookup by name, and the outputs' TensorInfo updated in place.
void BM_VMExecutorRun(benchmark::State& state) {
  aotrt::Executor ex = aotrt::Model::Load(kVM).CreateExecutor();
  aotrt::NDArray a = aotrt::NDArray::Empty({4, 4}, kF32), b = aotrt::NDArray::Empty({4, 4}, kF32);
  ex.SetInput(0, a.tensor());
  ex.SetInput(1, b.tensor());
  for (auto _ : state) ex.Run();
}
BENCHMARK(BM_VMExecutorRun);

void BM_VMKernelAlone(benchmark::State& state) {
  aotrt::Module lib = aotrt::Module::LoadFromFile(kVM + "/lib.so");
  aotrt::PackedFunc add = lib.GetFunctionOrThrow("vm_mod_fused_add");
  aotrt::NDArray a = aotrt::NDArray::Empty({4, 4}, kF32), b = aotrt::NDArray::Empty({4, 4}, kF32),
                 c = aotrt::NDArray::Empty({4, 4}, kF32);
  for (auto _ : state) add(a, b, c);
}
BENCHMARK(BM_VMKernelAlone);

void BM_GraphRun(benchmark::State& state) {
  aotrt::Executor ex = aotrt::Model::Load(kGraph).CreateExecutor();
  aotrt::NDArray a = aotrt::NDArray::Empty({1, 2}, kU8), b = aotrt::NDArray::Empty({1, 2}, kU8);
  ex.SetInput("a", a.tensor());
  ex.SetInput("b", b.tensor());
  for (auto _ : state) ex.Run();
}
BENCHMARK(BM_GraphRun);

void BM_GraphKernelAlone(benchmark::State& state) {
  aotrt::Module lib = aotrt::Module::LoadFromFile(kGraph);
  aotrt::PackedFunc add = lib.GetFunctionOrThrow("tvmgen_default_fused_add", /*query_imports=*/true);
  aotrt::NDArray a = aotrt::NDArray::Empty({1, 2}, kU8), b = aotrt::NDArray::Empty({1, 2}, kU8),
                 c = aotrt::NDArray::Empty({1, 2}, kU8);
  for (auto _ : state) add(a, b, c);
}
BENCHMARK(BM_GraphKernelAlone);

}  // namespace

BENCHMARK_MAIN();
