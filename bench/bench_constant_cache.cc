// The constant cache alone (src/constant_cache/constant_cache.h), on a 32 MiB pool: a hit (read the alias,
// open, validate, map) followed by a first read of every page, as a model's first run does; the
// same with the full payload check (AOTRT_CONSTANT_CACHE_VERIFY=1); a miss (the private copy the
// load returns with), and the background writer's work for it (hash, write, fdatasync, rename,
// link), measured by waiting for it; the private copy a process makes without the cache; and a
// hit alone in a new process (fork per iteration: the first call's costs, as a load pays them).
// Counters: page faults per iteration.
#include <benchmark/benchmark.h>

#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstring>
#include <filesystem>
#include <functional>
#include <string>

#include "constant_cache/constant_cache.h"
#include "aotrt/cache.h"

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

aotrt::ConstantPoolMemory GetPool(const std::function<std::string()>& key, const aotrt::ConstantCacheOptions& options) {
  aotrt::ConstantPoolSource source;
  source.bytes_min = source.bytes_max = kBytes;
  source.key = [&key] { return key() + "|bytes=" + std::to_string(kBytes); };
  source.plan = [] { return kBytes; };
  source.fill = Fill;
  return aotrt::GetConstantPool(source, options, "bench");
}

enum class Mode { kHit, kMiss };

void Run(benchmark::State& state, aotrt::ConstantCacheOptions options, Mode mode) {
  TempCache cache;
  options.directory = cache.dir;
  GetPool(Key, options);  // warm
  long faults = 0;
  for (auto _ : state) {
    if (mode != Mode::kHit) {
      state.PauseTiming();
      std::filesystem::remove_all(cache.dir);
      std::filesystem::create_directories(cache.dir);
      state.ResumeTiming();
    }
    long f0 = MinorFaults();
    aotrt::ConstantPoolMemory m = GetPool(Key, options);
    benchmark::DoNotOptimize(TouchPages(m.data(), m.bytes()));
    faults += MinorFaults() - f0;
    state.PauseTiming();
    m = aotrt::ConstantPoolMemory();  // unmapping is not part of a load
    state.ResumeTiming();
  }
  state.counters["minflt"] = benchmark::Counter(static_cast<double>(faults), benchmark::Counter::kAvgIterations);
}

// A hit in a new process: fork, then time the first GetConstantPool (key: a stat of a file, as a
// model's load makes), without touching the pages. Manual time: the child's measurement.
void BM_CacheHitInNewProcess(benchmark::State& state) {
  TempCache cache;
  aotrt::ConstantCacheOptions options;
  options.directory = cache.dir;
  std::string model = cache.dir + "/model.so";
  { FILE* f = std::fopen(model.c_str(), "w"); if (f) std::fclose(f); }
  auto key = [&] { return aotrt::FileIdentityKey(model); };
  GetPool(key, options);
  double faults = 0;
  for (auto _ : state) {
    int fds[2];
    if (pipe(fds) != 0) return state.SkipWithError("pipe");
    pid_t pid = fork();
    if (pid == 0) {
      long f0 = MinorFaults();
      auto t0 = std::chrono::steady_clock::now();
      aotrt::ConstantPoolMemory m = GetPool(key, options);
      double r[2] = {std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count(),
                     static_cast<double>(MinorFaults() - f0)};
      if (m.source() != aotrt::ConstantSource::kMappedCache) r[0] = -1;
      _exit(write(fds[1], r, sizeof r) == sizeof r ? 0 : 1);
    }
    close(fds[1]);
    double r[2] = {-1, 0};
    bool ok = read(fds[0], r, sizeof r) == sizeof r;
    close(fds[0]);
    waitpid(pid, nullptr, 0);
    if (!ok || r[0] < 0) return state.SkipWithError("the child did not hit");
    state.SetIterationTime(r[0]);
    faults += r[1];
  }
  state.counters["minflt"] = benchmark::Counter(faults, benchmark::Counter::kAvgIterations);
}

void BM_CacheHitThenTouch(benchmark::State& state) { Run(state, aotrt::ConstantCacheOptions(), Mode::kHit); }
void BM_CacheHitVerifyThenTouch(benchmark::State& state) {
  aotrt::ConstantCacheOptions o;
  o.verify = true;
  Run(state, o, Mode::kHit);
}
void BM_CacheMissThenTouch(benchmark::State& state) { Run(state, aotrt::ConstantCacheOptions(), Mode::kMiss); }
void BM_PrivateCopyThenTouch(benchmark::State& state) {
  aotrt::ConstantCacheOptions o;
  o.enabled = false;
  Run(state, o, Mode::kHit);
}
BENCHMARK(BM_CacheHitThenTouch)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_CacheHitVerifyThenTouch)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_CacheMissThenTouch)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_PrivateCopyThenTouch)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_CacheHitInNewProcess)->UseManualTime()->Unit(benchmark::kMicrosecond);

}  // namespace

BENCHMARK_MAIN();
