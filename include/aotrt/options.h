// Options of loading a model and of creating an executor: plain values, passed as parameters. The
// environment, read once per load, adds to them (README, "Options and the environment"): a
// variable can turn a check on or the cache off, never the reverse.
// Ownership: values, copied by the calls that take them. Thread-safety: none needed (values).
#pragma once

#include <cstdint>
#include <cstddef>
#include <string>
#include <variant>
#include <vector>

namespace aotrt {

// The constant cache's default size limit (LoadOptions::cache_max_bytes 0, AOTRT_CACHE_MAX_MB unset).
constexpr uint64_t kDefaultCacheMaxBytes = uint64_t{1024} << 20;

// Options of one executor, fixed when it is created.
struct ExecutorOptions {
  // Where the executor lives, one choice (so no switch is given where it cannot apply):
  // memory = Heap{...} (the default) or Arena{data, bytes}.
  // Heap: the runtime's own mapping, each workspace pool followed by a reserve (README "When a
  // model writes past its memory").
  struct Heap {
    // After every run, look in the reserve that follows each workspace pool and
    // TVMBackendAllocWorkspace block for writes past them, and throw kModelError naming the model,
    // the pool (or block) and the exact bytes. The outputs of that run are complete; the executor
    // stays usable.
    bool check_bounds = false;
    // Back this executor's buffers of 2 MiB and more (workspace pools, its own inputs and outputs)
    // with transparent huge pages (madvise MADV_HUGEPAGE); why it is off by default: README,
    // AOTRT_HUGE_PAGES. No effect when THP is "never". A huge page is resident whole once touched.
    bool huge_pages = false;
  };
  // Arena: caller-owned memory holding the whole executor, any kind of export (README "The whole
  // executor in your memory"). Creating and running it allocate nothing from the heap (a param
  // input set by SetInput gets storage of its own then). Model::ArenaBytes(options) is the size
  // needed; a smaller arena, a null or not 64-byte aligned `data` are refused (kInvalidArgument).
  // The memory must stay valid, and be used by nothing else, until the executor and every handle
  // to it (Executor, Module, GetInput/GetOutput arrays: views of it) are gone; aotrt never frees it.
  struct Arena {
    void* data = nullptr;
    size_t bytes = 0;
  };
  // (`= Heap()` spelled out: variant's own default needs Heap complete, which it is not here.)
  std::variant<Heap, Arena> memory = Heap();
  // The most threads one operator of this executor runs on, the calling thread included (for the
  // TVMBackendParallelLaunch calls that leave the count to the runtime, as TVM's code does): 1 runs
  // every operator on the calling thread; 0 (default): the load's ExecutorDefaults::num_threads,
  // else the process's count, shared among the executors running at the same time. An operator
  // takes fewer when the pool's threads are busy; it never waits for them. Must be in [0, 1024]
  // (kInvalidArgument). README "Request threads and operator threads".
  int num_threads = 0;
  // Workspace pools the caller provides, used in place of the executor's own: each named as
  // Model::Info().workspace_pools names it, at least that pool's bytes and 64-byte aligned.
  // CreateExecutor throws kNotFound for a name the model has no pool of, kInvalidArgument naming
  // the pool and the size or alignment it needs. The memory must stay valid, and be used by no
  // other running executor, while this executor lives. Heap::check_bounds does not watch it.
  struct Pool {
    std::string name;
    void* data = nullptr;
    size_t bytes = 0;
  };
  std::vector<Pool> workspace_pools;
  // Called once, with `on_destroyed_data`, when the executor is gone and touches the caller's
  // memory (arena, pools) no more. Runs on the thread that drops the last reference; it must not
  // throw or use this executor.
  void (*on_destroyed)(void* data) = nullptr;
  void* on_destroyed_data = nullptr;
};

// What every executor of a model gets (LoadOptions::executor; AOTRT_CHECK_BOUNDS=1 and
// AOTRT_HUGE_PAGES=1 add to it): check_bounds and huge_pages turn on ExecutorOptions::Heap's
// switches in every executor on the heap; num_threads is the count where ExecutorOptions' is 0.
struct ExecutorDefaults {
  bool check_bounds = false;
  bool huge_pages = false;
  int num_threads = 0;
};

// Options of loading a model, fixed for its lifetime.
struct LoadOptions {
  // The per-machine constant cache (README "The constant cache"): a memory-planned model's
  // constant pool of 64 KiB or more is kept once per machine in a file every process maps
  // read-only. Off when false or when AOTRT_CONSTANT_CACHE=0. Any failure of the cache falls back
  // to a private copy, never an error.
  bool constant_cache = true;
  // Hash the whole cached pool at every load (otherwise its header and sampled blocks are
  // checked). Also on with AOTRT_CONSTANT_CACHE_VERIFY=1.
  bool verify_constant_cache = false;
  // The cache's directory; "" means $AOTRT_CACHE_DIR, else $XDG_CACHE_HOME/aotrt, else
  // $HOME/.cache/aotrt (none of them set: the cache is off). The directory must be trusted:
  // whoever can write it can change a model's constants. It also keeps compiled archive libraries.
  std::string cache_dir;
  // The most bytes of pool files the directory keeps (least recently used removed first); 0 means
  // $AOTRT_CACHE_MAX_MB MiB, else 1024 MiB.
  uint64_t cache_max_bytes = 0;
  // The C compiler that compiles a Model Library Format archive's sources (C interface) and links
  // a `.tar`/`.o` object export ("" means $CC, else cc; found in PATH unless it contains a '/'),
  // and whether compiled archive libraries are kept in cache_dir.
  std::string c_compiler;
  bool compile_cache = true;
  // Model Library Format archives: a shared library you compiled from the archive's
  // codegen/host/src/*.c yourself, used instead of compiling; the path loaded is then the archive,
  // its folder or its metadata.json inside it. An archive whose run function passes its own
  // static workspace is refused (executors would share it).
  std::string c_library;
  // For every executor of this model: those created through TVM's packed API
  // (factory["<name>"](device), which takes no options) and those of Model::CreateExecutor, whose
  // own options add to these.
  ExecutorDefaults executor;
};

}  // namespace aotrt
