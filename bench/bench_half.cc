// Cost per element of the float16 conversions aotrt exports for model libraries
// (include/aotrt/half.h), called through the dynamic symbol as a model calls them, over 4096
// values spanning normals, subnormals, ties and overflow; the x86 F16C instructions for scale.
#include <benchmark/benchmark.h>
#include <immintrin.h>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <random>
#include <vector>

#include "aotrt/half.h"

namespace {

constexpr size_t kN = 4096;

std::vector<float> Floats() {
  std::mt19937 rng(17);
  std::uniform_real_distribution<float> exponent(-30.f, 17.f);
  std::vector<float> v(kN);
  for (float& x : v) x = std::exp2(exponent(rng)) * (rng() & 1 ? 1.f : -1.f);
  return v;
}

std::vector<uint16_t> Halves() {
  std::vector<uint16_t> v(kN);
  for (size_t i = 0; i < kN; ++i) v[i] = static_cast<uint16_t>(i * 16 + 3);  // every exponent
  return v;
}

void BM_FloatToHalf(benchmark::State& state) {
  std::vector<float> in = Floats();
  std::vector<uint16_t> out(kN);
  for (auto _ : state) {
    for (size_t i = 0; i < kN; ++i) out[i] = __gnu_f2h_ieee(in[i]);
    benchmark::DoNotOptimize(out.data());
  }
  state.SetItemsProcessed(static_cast<int64_t>(state.iterations() * kN));
}
BENCHMARK(BM_FloatToHalf);

void BM_DoubleToHalf(benchmark::State& state) {
  std::vector<float> f = Floats();
  std::vector<double> in(f.begin(), f.end());
  std::vector<uint16_t> out(kN);
  for (auto _ : state) {
    for (size_t i = 0; i < kN; ++i) out[i] = __truncdfhf2(in[i]);
    benchmark::DoNotOptimize(out.data());
  }
  state.SetItemsProcessed(static_cast<int64_t>(state.iterations() * kN));
}
BENCHMARK(BM_DoubleToHalf);

void BM_HalfToFloat(benchmark::State& state) {
  std::vector<uint16_t> in = Halves();
  std::vector<float> out(kN);
  for (auto _ : state) {
    for (size_t i = 0; i < kN; ++i) out[i] = __gnu_h2f_ieee(in[i]);
    benchmark::DoNotOptimize(out.data());
  }
  state.SetItemsProcessed(static_cast<int64_t>(state.iterations() * kN));
}
BENCHMARK(BM_HalfToFloat);

__attribute__((target("f16c"))) void BM_F16CFloatToHalf(benchmark::State& state) {
  if (!__builtin_cpu_supports("f16c")) return state.SkipWithError("no F16C");
  std::vector<float> in = Floats();
  std::vector<uint16_t> out(kN);
  for (auto _ : state) {
    for (size_t i = 0; i < kN; ++i) out[i] = static_cast<uint16_t>(_cvtss_sh(in[i], _MM_FROUND_TO_NEAREST_INT));
    benchmark::DoNotOptimize(out.data());
  }
  state.SetItemsProcessed(static_cast<int64_t>(state.iterations() * kN));
}
BENCHMARK(BM_F16CFloatToHalf);

__attribute__((target("f16c"))) void BM_F16CHalfToFloat(benchmark::State& state) {
  if (!__builtin_cpu_supports("f16c")) return state.SkipWithError("no F16C");
  std::vector<uint16_t> in = Halves();
  std::vector<float> out(kN);
  for (auto _ : state) {
    for (size_t i = 0; i < kN; ++i) out[i] = _cvtsh_ss(in[i]);
    benchmark::DoNotOptimize(out.data());
  }
  state.SetItemsProcessed(static_cast<int64_t>(state.iterations() * kN));
}
BENCHMARK(BM_F16CHalfToFloat);

}  // namespace

BENCHMARK_MAIN();
