// Options of loading a model and of creating an executor: plain values, passed as parameters
// (Model::Load, Module::LoadFromFile, AOTRTModLoadFromFileWithOptions, Python's load_module
// keywords). The environment adds to them at the front door, read once per load (README,
// "Environment variables"): a variable can turn a check on or the cache off, never the reverse.
//
// Ownership: values, copied by the calls that take them. Thread-safety: none needed (values).
#pragma once

#include <cstdint>
#include <cstddef>
#include <string>
#include <vector>

namespace aotrt {

// The constant cache's default size limit (LoadOptions::cache_max_bytes 0, AOTRT_CACHE_MAX_MB unset).
constexpr uint64_t kDefaultCacheMaxBytes = uint64_t{1024} << 20;

// Options of one executor, fixed when it is created.
struct ExecutorOptions {
  // Checking mode for models whose generated code writes past the memory planned for it (a
  // compiler bug). Every workspace pool and TVMBackendAllocWorkspace block is followed by room
  // at least its own size that absorbs such a write, committed only where written (a reserve of
  // address space; README "When a model writes past its memory"); with check_bounds, Run() also
  // looks after every run for what was written there and throws kModelError naming the model, the
  // pool (or block) and the exact bytes, e.g. "model 'default' wrote 1,247,056 bytes past
  // workspace pool 'global_workspace' (5,233,328 bytes) in m.so: ...". The outputs of that run
  // are complete; the executor stays usable. It reads only the reserve's resident pages (mincore),
  // so checking keeps the reserve free; bench/README.md has the cost per run.
  // AOTRT_CHECK_BOUNDS=1 turns it on for every executor of the models loaded while it is set.
  bool check_bounds = false;
  // Back this executor's buffers of 2 MiB and more (workspace pools, its own inputs and outputs)
  // with transparent huge pages (madvise MADV_HUGEPAGE): the first run then faults in one zeroed
  // 2 MiB page where it would fault 512 small ones, about 10x less time for those faults here
  // (bench/README.md). Off by default because it does not pay everywhere: with THP defrag set to
  // "madvise" a fault may compact memory synchronously, and in a VM that returns free memory to
  // its host (virtio-balloon free page reporting) a huge page may first have to be faulted in by
  // the host (9-20 ms outliers measured). No effect when THP is "never". Memory: a huge page is
  // resident whole once touched. AOTRT_HUGE_PAGES=1 turns it on for every executor of the models
  // loaded while it is set.
  bool huge_pages = false;
  // The most threads one operator of this executor runs on, the calling thread included (its
  // TVMBackendParallelLaunch calls that leave the count to the runtime, as TVM's code does): 1 runs
  // every operator on the calling thread. 0 (default): the process's count (TVM_NUM_THREADS, else
  // the physical cores; runtime.config_threadpool changes it), shared among the executors running
  // at the same time so that they do not oversubscribe the cores. An operator takes fewer when the
  // pool's threads are busy with other executors' operators; it never waits for them. Must be in
  // [0, 1024] (kInvalidArgument). README "Request threads and operator threads".
  int num_threads = 0;
  // Workspace pools the caller provides, used in place of the executor's own: each named as
  // Model::Info().workspace_pools names it (e.g. "app_pool" of a C-interface archive), at least
  // that pool's bytes and 64-byte aligned. CreateExecutor throws kNotFound for a name the model
  // has no pool of, kInvalidArgument naming the pool and the size or alignment it needs. The
  // memory must stay valid, and be used by no other executor running at the same time, while this
  // executor lives. It has no tail slack: check_bounds does not watch it.
  struct Pool {
    std::string name;
    void* data = nullptr;
    size_t bytes = 0;
  };
  std::vector<Pool> workspace_pools;
  // Caller-owned memory: build the executor entirely inside [arena, arena + arena_bytes), for
  // packed exports, C-interface archives and graph exports alike. Its object, argument arrays,
  // inputs, outputs and workspace pools (those not given above; a graph's storage block) are cut
  // from the front; the rest serves the run-time
  // workspace of a model without memory planning (its TVMBackendAllocWorkspace requests, last-in
  // first-out; parallel workers keep their own pools). Creating and running such an executor
  // allocate nothing from the heap (a param input set by SetInput gets storage of its own then).
  // Model::ArenaBytes(options) is the size needed; a smaller arena is refused with kInvalidArgument
  // naming it, as is one not 64-byte aligned. The memory must stay valid, and be used by nothing
  // else, until the executor and every handle to it (Executor, Module, GetInput/GetOutput arrays,
  // which are views of it) are gone; aotrt never frees it. check_bounds and huge_pages do not
  // apply (no room after the caller's buffers; the caller's memory is the caller's to advise).
  // Both null/0: the heap.
  void* arena = nullptr;
  size_t arena_bytes = 0;
  // Called once, with `on_destroyed_data`, when the executor is gone and touches the caller's
  // memory (arena, pools) no more: for hosts whose memory is collected (the Python binding frees
  // the buffers it passed then, whichever handle went last). Runs on the thread that drops the last
  // reference; it must not throw or use this executor.
  void (*on_destroyed)(void* data) = nullptr;
  void* on_destroyed_data = nullptr;
};

// Options of loading a model, fixed for its lifetime.
struct LoadOptions {
  // The per-machine constant cache: a memory-planned model's constant pool of 64 KiB or more is
  // assembled once per machine into a file that every process then maps read-only (the same
  // page-cache pages), not copied into each process. Off when false or when
  // AOTRT_CONSTANT_CACHE=0. Any failure of the cache (directory not writable, disk full, another
  // process building for over a minute) falls back to a private copy, never an error.
  // Details: src/constant_cache/constant_cache.h.
  bool constant_cache = true;
  // Hash the whole cached pool at every load (otherwise its header and sampled blocks are
  // checked). Also on with AOTRT_CONSTANT_CACHE_VERIFY=1.
  bool verify_constant_cache = false;
  // The cache's directory; "" means $AOTRT_CACHE_DIR, else $XDG_CACHE_HOME/aotrt, else
  // $HOME/.cache/aotrt (none of them set: the cache is off). The directory must be trusted:
  // whoever can write it can change a model's constants. A Model Library Format archive (C
  // interface) keeps its compiled library there too (mlf-<content hash>.so), so that a second
  // load of the same archive compiles nothing.
  std::string cache_dir;
  // The most bytes of pool files the directory keeps (least recently used removed first); 0 means
  // $AOTRT_CACHE_MAX_MB MiB, else 1024 MiB (60 MobileNet-sized pools: sized for a developer laptop).
  uint64_t cache_max_bytes = 0;
  // The C compiler that compiles a Model Library Format archive's sources (C interface) and links
  // a `.tar`/`.o` object export ("" means $CC, else cc; found in PATH unless it contains a '/'),
  // and whether compiled archive libraries are kept in cache_dir.
  std::string c_compiler;
  bool compile_cache = true;
  // Model Library Format archives: a shared library you compiled from the archive's
  // codegen/host/src/*.c yourself (e.g. cc -shared -fPIC -O2 ...), used instead of compiling; the
  // path loaded is then the archive, its folder or its metadata.json inside the folder. Its
  // tvmgen_<name>_run is called on structs of the executor's pointers; an archive whose run
  // function passes its own static workspace is refused (executors would share it).
  std::string c_library;
  // Turned on for every executor of this model: those created through TVM's packed API
  // (factory["<name>"](device), which takes no options) and those of Model::CreateExecutor, whose
  // own options add to these.
  ExecutorOptions executor;
};

}  // namespace aotrt
