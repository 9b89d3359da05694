// C-interface exports (Model Library Format archives, ../shared/fixtures/mlf): load with a cold
// compile cache (the archive's sources compiled) and a warm one (the cached library opened), and
// run() against a direct call of the archive's own tvmgen_default_run on structs of the same
// buffers, in the same compiled library (the goal: run() within 1.2x on the smallest archive).
#include <benchmark/benchmark.h>
#include <dirent.h>
#include <dlfcn.h>
#include <unistd.h>

#include <cstdlib>
#include <string>

#include "aotrt/model.h"

namespace {

std::string Archive(const char* name) { return std::string(AOTRT_MLF_FIXTURES_DIR) + "/" + name + "/model.tar"; }

std::string NewDir() {
  char tmpl[] = "/tmp/aotrt-bench-mlf-XXXXXX";
  return ::mkdtemp(tmpl) ? tmpl : "/tmp";
}

void BM_LoadColdCompileCache(benchmark::State& state, const char* name) {
  for (auto _ : state) {
    state.PauseTiming();
    aotrt::LoadOptions o;
    o.cache_dir = NewDir();
    state.ResumeTiming();
    aotrt::Model m = aotrt::Model::Load(Archive(name), o);
    benchmark::DoNotOptimize(m);
    state.PauseTiming();
    std::system(("rm -rf " + o.cache_dir).c_str());
    state.ResumeTiming();
  }
}
BENCHMARK_CAPTURE(BM_LoadColdCompileCache, mlf_conv_usmp, "mlf_conv_usmp")->Unit(benchmark::kMillisecond)->Iterations(5);

void BM_LoadWarmCompileCache(benchmark::State& state, const char* name) {
  aotrt::LoadOptions o;
  o.cache_dir = NewDir();
  aotrt::Model::Load(Archive(name), o);  // fills the cache
  for (auto _ : state) {
    aotrt::Model m = aotrt::Model::Load(Archive(name), o);
    benchmark::DoNotOptimize(m);
  }
  std::system(("rm -rf " + o.cache_dir).c_str());
}
BENCHMARK_CAPTURE(BM_LoadWarmCompileCache, mlf_conv_usmp, "mlf_conv_usmp")->Unit(benchmark::kMicrosecond);
BENCHMARK_CAPTURE(BM_LoadWarmCompileCache, mlf_user_pool, "mlf_user_pool")->Unit(benchmark::kMicrosecond);

void BM_Run(benchmark::State& state, const char* name) {
  aotrt::LoadOptions o;
  o.cache_dir = NewDir();
  aotrt::Executor ex = aotrt::Model::Load(Archive(name), o).CreateExecutor();
  for (auto _ : state) ex.Run();
  std::system(("rm -rf " + o.cache_dir).c_str());
}
BENCHMARK_CAPTURE(BM_Run, mlf_conv_usmp, "mlf_conv_usmp")->Unit(benchmark::kMicrosecond);
BENCHMARK_CAPTURE(BM_Run, mlf_user_pool, "mlf_user_pool")->Unit(benchmark::kMicrosecond);

// tvmgen_default_run(inputs*, outputs*[, pools*]) of the library aotrt compiled (it keeps the
// archive's run function), on structs pointing at the executor's own buffers.
void BM_DirectRun(benchmark::State& state, const char* name) {
  aotrt::LoadOptions o;
  o.cache_dir = NewDir();
  aotrt::Executor ex = aotrt::Model::Load(Archive(name), o).CreateExecutor();
  std::string lib;
  if (DIR* d = ::opendir(o.cache_dir.c_str())) {
    while (dirent* e = ::readdir(d)) {
      if (std::string(e->d_name).rfind("mlf-", 0) == 0) lib = o.cache_dir + "/" + e->d_name;
    }
    ::closedir(d);
  }
  void* h = ::dlopen(lib.c_str(), RTLD_NOW | RTLD_LOCAL);  // the same library: one handle
  auto run = reinterpret_cast<int32_t (*)(void**, void**, void**)>(h ? ::dlsym(h, "tvmgen_default_run") : nullptr);
  if (!run) {
    state.SkipWithError("tvmgen_default_run not found");
    return;
  }
  void* in[8] = {ex.GetInput(0).data()};
  void* out[8] = {};
  for (size_t i = 0; i < ex.NumOutputs(); ++i) out[i] = ex.GetOutput(i).data();
  std::vector<uint8_t> pool(ex.Info().workspace_bytes + 64);
  void* pools[8] = {pool.data()};  // the user-pool archive takes it; the other uses its static one
  for (auto _ : state) benchmark::DoNotOptimize(run(in, out, pools));
  ::dlclose(h);
  std::system(("rm -rf " + o.cache_dir).c_str());
}
BENCHMARK_CAPTURE(BM_DirectRun, mlf_conv_usmp, "mlf_conv_usmp")->Unit(benchmark::kMicrosecond);
BENCHMARK_CAPTURE(BM_DirectRun, mlf_user_pool, "mlf_user_pool")->Unit(benchmark::kMicrosecond);

}  // namespace

BENCHMARK_MAIN();
