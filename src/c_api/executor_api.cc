// C ABI: executors with options (caller pools, caller-owned arenas) through the C++ Model API.
#include "aotrt/c_api.h"
#include "aotrt/model.h"
#include "base/error_util.h"
#include "c_api/api_guard.h"
#include "c_api/c_options.h"
#include "ffi/handle.h"

using namespace aotrt;

namespace {

bool Flag(int32_t v, const char* field) { return CFlag(v, "AOTRTExecutorOptions", field); }

ExecutorOptions ExecutorOptionsFromC(const AOTRTExecutorOptions* c) {
  ExecutorOptions o;
  if (!c) return o;
  RequireStructSize(c->struct_size, sizeof(AOTRTExecutorOptions), "AOTRTExecutorOptions");
  o.check_bounds = Flag(c->check_bounds, "check_bounds");
  o.huge_pages = Flag(c->huge_pages, "huge_pages");
  AOTRT_REQUIRE(c->workspace_pools != nullptr || c->num_workspace_pools == 0, kInvalidArgument,
                "AOTRTExecutorOptions.workspace_pools is null with num_workspace_pools ", c->num_workspace_pools);
  for (size_t i = 0; i < c->num_workspace_pools; ++i) {
    const AOTRTWorkspacePool& p = c->workspace_pools[i];
    AOTRT_REQUIRE(p.name != nullptr, kInvalidArgument, "AOTRTExecutorOptions.workspace_pools[", i, "].name is null");
    o.workspace_pools.push_back(ExecutorOptions::Pool{p.name, p.data, p.bytes});
  }
  o.arena = c->arena;
  o.arena_bytes = c->arena_bytes;
  o.on_destroyed = c->on_destroyed;
  o.on_destroyed_data = c->on_destroyed_data;
  o.num_threads = c->num_threads;  // checked by the executor
  return o;
}

Model ModelOf(TVMModuleHandle factory, const char* fn) {
  auto* node = static_cast<ModuleNode*>(ObjectFromHandle(factory, kTypeModule, fn));
  return Model::FromModule(Module(ObjectPtr<ModuleNode>(node)));
}

}  // namespace

extern "C" {

void AOTRTExecutorOptionsInit(AOTRTExecutorOptions* options) {
  if (!options) return;
  ExecutorOptions d;
  *options = AOTRTExecutorOptions{};
  options->struct_size = sizeof(AOTRTExecutorOptions);
  options->check_bounds = d.check_bounds;
  options->huge_pages = d.huge_pages;
}

int AOTRTExecutorCreate(TVMModuleHandle factory, int device_type, int device_id, const AOTRTExecutorOptions* options,
                        TVMModuleHandle* out) {
  AOTRT_API_BEGIN();
  AOTRT_REQUIRE(out != nullptr, kInvalidArgument, "AOTRTExecutorCreate: null out");
  *out = nullptr;
  Model m = ModelOf(factory, "AOTRTExecutorCreate");
  DLDevice device{static_cast<DLDeviceType>(device_type), device_id};
  Executor ex = m.CreateExecutor(device, ExecutorOptionsFromC(options));
  *out = ObjectPtr<ModuleNode>(ex.module().node()).release();
  AOTRT_API_END();
}

int AOTRTExecutorArenaBytes(TVMModuleHandle factory, const AOTRTExecutorOptions* options, size_t* out) {
  AOTRT_API_BEGIN();
  AOTRT_REQUIRE(out != nullptr, kInvalidArgument, "AOTRTExecutorArenaBytes: null out");
  *out = 0;
  *out = ModelOf(factory, "AOTRTExecutorArenaBytes").ArenaBytes(ExecutorOptionsFromC(options));
  AOTRT_API_END();
}

}  // extern "C"
