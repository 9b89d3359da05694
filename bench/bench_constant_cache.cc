// The constant cache alone (src/aot/constant_cache.h), on a 32 MiB pool: a hit (open, validate,
// map) followed by a first read of every page, as a model's first run does; the same with the
// full payload check (AOTRT_CONSTANT_CACHE_VERIFY=1); a build (fill, hash, fdatasync, rename);
// and the private copy a process makes without the cache. Counters: page faults per iteration.
#include <benchmark/benchmark.h>

#include <sys/resource.h>
#include <unistd.h>

#include <cstring>
#include <filesystem>
#include <string>

#include "aot/constant_cache.h"

namespace {

constexpr size_t kBytes = 32u << 20;

struct TempCache {
  std::string dir;
  TempCache() {
    char tmpl[] = "/tmp/aotrt_bench_cache_XXXXXX";
    dir = mkdtemp(tmpl) ? tmpl : "/tmp";
  }
  ~TempCache() { std::filesystem::remove_all(dir); }
};

void Fill(uint8_t* p) { std::memset(p, 0x5a, kBytes); }

// Reads one byte per page: the first touch a model's first run makes.
uint64_t TouchPages(const uint8_t* p, size_t n) {
  uint64_t sum = 0;
  for (size_t i = 0; i < n; i += 4096) sum += p[i];
  return sum;
}

long MinorFaults() {
  rusage r;
  getrusage(RUSAGE_SELF, &r);
  return r.ru_minflt;
}

std::string Key() { return "bench"; }

void Run(benchmark::State& state, aotrt::ConstantCacheOptions options, bool rebuild) {
  TempCache cache;
  options.directory = cache.dir;
  aotrt::GetConstantPool(kBytes, Key, Fill, options, "bench");  // warm
  long faults = 0;
  for (auto _ : state) {
    if (rebuild) {
      state.PauseTiming();
      std::filesystem::remove_all(cache.dir);
      state.ResumeTiming();
    }
    long f0 = MinorFaults();
    aotrt::ConstantPoolMemory m = aotrt::GetConstantPool(kBytes, Key, Fill, options, "bench");
    benchmark::DoNotOptimize(TouchPages(m.data(), m.bytes()));
    faults += MinorFaults() - f0;
    state.PauseTiming();
    m = aotrt::ConstantPoolMemory();  // unmapping is not part of a load
    state.ResumeTiming();
  }
  state.counters["minflt"] = benchmark::Counter(static_cast<double>(faults), benchmark::Counter::kAvgIterations);
}

void BM_CacheHitThenTouch(benchmark::State& state) { Run(state, aotrt::ConstantCacheOptions(), false); }
void BM_CacheHitVerifyThenTouch(benchmark::State& state) {
  aotrt::ConstantCacheOptions o;
  o.verify = true;
  Run(state, o, false);
}
void BM_CacheBuildThenTouch(benchmark::State& state) { Run(state, aotrt::ConstantCacheOptions(), true); }
void BM_PrivateCopyThenTouch(benchmark::State& state) {
  aotrt::ConstantCacheOptions o;
  o.enabled = false;
  Run(state, o, false);
}
BENCHMARK(BM_CacheHitThenTouch)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_CacheHitVerifyThenTouch)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_CacheBuildThenTouch)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_PrivateCopyThenTouch)->Unit(benchmark::kMillisecond);

}  // namespace

BENCHMARK_MAIN();
