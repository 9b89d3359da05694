// cold_start's constant cache figures (issue 25), each the median of new processes, the samples of
// every figure interleaved so that a busy machine weighs on all of them alike:
//   - dlopen + one copy of the constants: dlopen of the file, then a copy of as many bytes as the
//     constant pool from the library's largest segment into fresh memory (what any runtime that
//     copies the constants pays: TVM's create does);
//   - a miss: load + first create with a new, empty cache directory per sample;
//   - the same bytes under a new name (a copy of the file: new inode and mtime) with a warm cache:
//     its first load (its alias misses; the writer finds the pool by content) and its second;
//   - a hit: load of the file with a warm cache, against dlopen alone.
#include <dlfcn.h>
#include <link.h>
#include <sys/mman.h>

#include <cstring>
#include <filesystem>
#include <stdexcept>

#include "aotrt/cache.h"
#include "aotrt/model.h"
#include "cold_start_common.h"

namespace cold_start {
namespace {

namespace fs = std::filesystem;

struct LoadCreate {
  Cost load, create;
  int source;  // aotrt::ConstantSource
};

// Load and first create of `path` in a new process whose cache directory is `dir`.
LoadCreate MeasureLoadCreate(const std::string& path, const std::string& dir) {
  return InChild<LoadCreate>([&] {
    setenv("AOTRT_CACHE_DIR", dir.c_str(), 1);
    LoadCreate r{};
    aotrt::Model model;
    aotrt::Executor ex;
    r.load = Measure([&] { model = aotrt::Model::Load(path); });
    r.create = Measure([&] { ex = model.CreateExecutor(); });
    r.source = static_cast<int>(model.Info().constant_source);
    return r;
  });
}

struct Segment {
  uintptr_t base = 0;  // the library's load address, to find it
  const char* data = nullptr;
  size_t bytes = 0;
};

int FindLargestSegment(dl_phdr_info* info, size_t, void* arg) {
  auto* seg = static_cast<Segment*>(arg);
  if (info->dlpi_addr != seg->base) return 0;
  for (int i = 0; i < info->dlpi_phnum; ++i) {
    const ElfW(Phdr)& ph = info->dlpi_phdr[i];
    if (ph.p_type == PT_LOAD && (ph.p_flags & PF_R) && ph.p_filesz > seg->bytes) {
      seg->data = reinterpret_cast<const char*>(info->dlpi_addr + ph.p_vaddr);
      seg->bytes = ph.p_filesz;
    }
  }
  return 1;
}

// dlopen, then `bytes` copied from the library's largest segment into fresh memory.
Cost MeasureDlopenAndCopy(const std::string& path, size_t bytes) {
  return InChild<Cost>([&] {
    volatile char sink = 0;
    Cost c = Measure([&] {
      void* h = dlopen(path.c_str(), RTLD_LAZY | RTLD_LOCAL);
      if (!h) throw std::runtime_error(dlerror());
      link_map* lm = nullptr;
      if (dlinfo(h, RTLD_DI_LINKMAP, &lm) != 0) throw std::runtime_error(dlerror());
      Segment seg;
      seg.base = lm->l_addr;
      dl_iterate_phdr(&FindLargestSegment, &seg);
      void* dst = mmap(nullptr, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
      if (dst == MAP_FAILED) throw std::runtime_error("mmap failed");
      for (size_t done = 0; done < bytes && seg.bytes > 0; done += seg.bytes) {  // the segment again if smaller
        std::memcpy(static_cast<char*>(dst) + done, seg.data, std::min(seg.bytes, bytes - done));
      }
      sink = static_cast<char*>(dst)[bytes / 2];
    });
    (void)sink;
    return c;
  });
}

Cost MeasureDlopen(const std::string& path) {
  return InChild<Cost>([&] {
    return Measure([&] {
      if (!dlopen(path.c_str(), RTLD_LAZY | RTLD_LOCAL)) throw std::runtime_error(dlerror());
    });
  });
}

const char* SourceName(int s) {
  switch (static_cast<aotrt::ConstantSource>(s)) {
    case aotrt::ConstantSource::kMappedCache: return "mapped from cache";
    case aotrt::ConstantSource::kBuiltCache: return "own copy, cache file written";
    case aotrt::ConstantSource::kPrivateCopy: return "private copy (no cache)";
    default: return "no constant pool";
  }
}

void Print(const char* what, const Cost& c, const char* note = "") {
  std::printf("  %-46s %9.3f ms %7ld faults  %s\n", what, c.ms, c.minflt, note);
}

}  // namespace

void ReportCacheFigures(const std::string& path, int samples, const std::string& scratch) {
  size_t pool = InChild<size_t>([&] { return aotrt::Model::Load(path).ConstantBytes(); });
  std::printf("  constant cache (issue 25), medians of %d new processes:\n", samples);
  if (pool == 0) std::printf("  (no constant pool: the cache is not used; the hit row is the load)\n");
  std::string warm = scratch + "/warm";
  fs::create_directories(warm);
  MeasureLoadCreate(path, warm);  // fills the warm directory (the writer finishes before the child exits)
  std::vector<Cost> dl_copy, miss_load, miss_lc, renamed_lc, renamed_dl_copy, renamed_hit;
  int miss_source = 0, renamed_source = 0, renamed_hit_source = 0;
  for (int i = 0; i < samples; ++i) {
    if (pool > 0) dl_copy.push_back(MeasureDlopenAndCopy(path, pool));
    std::string fresh = scratch + "/miss-" + std::to_string(i);
    fs::create_directories(fresh);
    LoadCreate m = MeasureLoadCreate(path, fresh);
    miss_load.push_back(m.load);
    miss_lc.push_back({m.load.ms + m.create.ms, m.load.minflt + m.create.minflt, m.load.majflt + m.create.majflt});
    miss_source = m.source;
    fs::remove_all(fresh);
    std::string copy = scratch + "/renamed-" + std::to_string(i) + ".so";
    CopyFileFlushed(path, copy);
    LoadCreate r = MeasureLoadCreate(copy, warm);
    renamed_lc.push_back({r.load.ms + r.create.ms, r.load.minflt + r.create.minflt, 0});
    renamed_source = r.source;
    if (pool > 0) renamed_dl_copy.push_back(MeasureDlopenAndCopy(copy, pool));  // a new file: its own baseline
    LoadCreate rh = MeasureLoadCreate(copy, warm);
    renamed_hit.push_back(rh.load);
    renamed_hit_source = rh.source;
    fs::remove(copy);
  }
  Cost miss = Median(miss_lc);
  if (pool > 0) {
    Cost dc = Median(dl_copy);
    char note[96];
    std::snprintf(note, sizeof note, "(%.2f MiB copied)", static_cast<double>(pool) / (1 << 20));
    Print("dlopen + one copy of the constants", dc, note);
    Print("miss (fresh cache dir): load + first create", miss, SourceName(miss_source));
    Print("  of which load", Median(miss_load));
    Print("same bytes, new name: load + first create", Median(renamed_lc), SourceName(renamed_source));
    Print("  against dlopen + copy of the new file", Median(renamed_dl_copy));
    Print("same new name again: load", Median(renamed_hit), SourceName(renamed_hit_source));
    std::printf("  miss: load + create / (dlopen + copy) = %.2fx (target <= 1.1x); same bytes, new name: %.2fx\n",
                miss.ms / dc.ms, Median(renamed_lc).ms / Median(renamed_dl_copy).ms);
  }
  fs::remove_all(warm);
  // A hit against dlopen, apart from the work above: a miss and a copy leave the file system busy
  // (journal commits, writeback) for a while, and whatever runs right after them pays for it. The
  // two are paired, in alternating order, with nothing between the pairs.
  fs::create_directories(warm);
  MeasureLoadCreate(path, warm);
  std::vector<Cost> dl, hit, hit_lc;
  int hit_source = 0;
  for (int i = 0; i < 2 * samples; ++i) {
    if (i % 2 == 0) dl.push_back(MeasureDlopen(path));
    LoadCreate h = MeasureLoadCreate(path, warm);
    if (i % 2 == 1) dl.push_back(MeasureDlopen(path));
    hit.push_back(h.load);
    hit_lc.push_back({h.load.ms + h.create.ms, h.load.minflt + h.create.minflt, 0});
    hit_source = h.source;
  }
  Cost d = Median(dl), h = Median(hit);
  std::printf("  hit against dlopen (medians of %d new processes each, paired, alternating):\n", 2 * samples);
  Print("dlopen alone", d);
  Print("hit: load", h, SourceName(hit_source));
  Print("hit: load + first create", Median(hit_lc));
  std::printf("  hit: load / dlopen = %.2fx (target <= 1.5x)\n\n", h.ms / d.ms);
  fs::remove_all(warm);
}

}  // namespace cold_start
