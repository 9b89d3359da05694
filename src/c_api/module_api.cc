// C ABI: modules and functions (ABI.md 3), and models' executors with options (caller pools,
// caller-owned arenas) through the C++ Model API.
#include <tvm/runtime/c_runtime_api.h>

#include <memory>

#include "aotrt/c_api.h"
#include "aotrt/model.h"
#include "aotrt/module.h"
#include "aotrt/ndarray.h"
#include "base/error_util.h"
#include "c_api/api_guard.h"
#include "ffi/handle.h"
#include "ffi/registry.h"

using namespace aotrt;

namespace {

ModuleNode* AsModule(void* h, const char* fn) {
  return static_cast<ModuleNode*>(ObjectFromHandle(h, kTypeModule, fn));
}

// Checked on every TVMFuncCall: the test inline (one compare; the live-object registry in checked
// builds), the message out of line.
inline PackedFuncObj* AsFunc(void* h, const char* fn) {
#if !AOTRT_CHECKED_HANDLES
  auto* obj = static_cast<Object*>(h);
  if (__builtin_expect(obj != nullptr && obj->type_index() == kTypePackedFunc, 1)) return static_cast<PackedFuncObj*>(obj);
#endif
  return static_cast<PackedFuncObj*>(ObjectFromHandle(h, kTypePackedFunc, fn));
}

// Reading the versioned option structs: kInvalidArgument unless `struct_size` is this library's
// sizeof the struct named `type`.
void RequireStructSize(uint32_t struct_size, size_t expected, const char* type) {
  AOTRT_REQUIRE(struct_size == expected, kInvalidArgument, type, ".struct_size is ", struct_size, ": expected ", expected,
                " (initialize the struct with ", type, "Init of this library's header)");
}

// A 0/1 field `type`.`field`; kInvalidArgument for anything else.
bool CFlag(int32_t v, const char* type, const char* field) {
  AOTRT_REQUIRE(v == 0 || v == 1, kInvalidArgument, type, ".", field, " is ", v, ": expected 0 or 1");
  return v == 1;
}

LoadOptions LoadOptionsFromC(const AOTRTLoadOptions* c) {
  LoadOptions o;
  if (!c) return o;
  const char* t = "AOTRTLoadOptions";
  RequireStructSize(c->struct_size, sizeof(AOTRTLoadOptions), t);
  o.constant_cache = CFlag(c->constant_cache, t, "constant_cache");
  o.verify_constant_cache = CFlag(c->verify_constant_cache, t, "verify_constant_cache");
  o.cache_dir = c->cache_dir ? c->cache_dir : "";
  o.cache_max_bytes = c->cache_max_bytes;
  o.executor.check_bounds = CFlag(c->check_bounds, t, "check_bounds");
  o.executor.huge_pages = CFlag(c->huge_pages, t, "huge_pages");
  o.c_compiler = c->c_compiler ? c->c_compiler : "";
  o.compile_cache = CFlag(c->compile_cache, t, "compile_cache");
  o.c_library = c->c_library ? c->c_library : "";
  AOTRT_REQUIRE(c->num_threads >= 0 && c->num_threads <= 1024, kInvalidArgument, "AOTRTLoadOptions.num_threads is ",
                c->num_threads, ": expected 0 (the default) or a thread count in [1, 1024]");
  o.executor.num_threads = c->num_threads;
  return o;
}

ExecutorOptions ExecutorOptionsFromC(const AOTRTExecutorOptions* c) {
  ExecutorOptions o;
  if (!c) return o;
  const char* t = "AOTRTExecutorOptions";
  RequireStructSize(c->struct_size, sizeof(AOTRTExecutorOptions), t);
  ExecutorOptions::Heap heap{CFlag(c->check_bounds, t, "check_bounds"), CFlag(c->huge_pages, t, "huge_pages")};
  if (c->arena == nullptr && c->arena_bytes == 0) {
    o.memory = heap;
  } else {
    // C cannot make the choice unrepresentable (aotrt/options.h), so it is refused.
    AOTRT_REQUIRE(!heap.check_bounds && !heap.huge_pages, kInvalidArgument, t, ".",
                  heap.check_bounds ? "check_bounds" : "huge_pages",
                  " is 1 with an arena: it applies to an executor in aotrt's own memory only; clear it or the arena");
    o.memory = ExecutorOptions::Arena{c->arena, c->arena_bytes};
  }
  AOTRT_REQUIRE(c->workspace_pools != nullptr || c->num_workspace_pools == 0, kInvalidArgument,
                "AOTRTExecutorOptions.workspace_pools is null with num_workspace_pools ", c->num_workspace_pools);
  for (size_t i = 0; i < c->num_workspace_pools; ++i) {
    const AOTRTWorkspacePool& p = c->workspace_pools[i];
    AOTRT_REQUIRE(p.name != nullptr, kInvalidArgument, "AOTRTExecutorOptions.workspace_pools[", i, "].name is null");
    o.workspace_pools.push_back(ExecutorOptions::Pool{p.name, p.data, p.bytes});
  }
  o.on_destroyed = c->on_destroyed;
  o.on_destroyed_data = c->on_destroyed_data;
  o.num_threads = c->num_threads;  // checked by the executor
  return o;
}

// The handle of `m` or `f` for a C caller, which owns its reference (null for an undefined `f`).
TVMModuleHandle OwnedHandle(const Module& m) { return ObjectPtr<ModuleNode>(m.node()).release(); }
TVMFunctionHandle OwnedHandle(const PackedFunc& f) { return ObjectPtr<PackedFuncObj>(f.object()).release(); }

Model ModelOf(TVMModuleHandle factory, const char* fn) {
  return Model::FromModule(Module(ObjectPtr<ModuleNode>(AsModule(factory, fn))));
}

}  // namespace

extern "C" {

int TVMModLoadFromFile(const char* file_name, const char* format, TVMModuleHandle* out) {
  AOTRT_API_BEGIN();
  AOTRT_REQUIRE(file_name && out, kInvalidArgument, "TVMModLoadFromFile: null argument");
  *out = OwnedHandle(Module::LoadFromFile(file_name, format ? format : ""));
  AOTRT_API_END();
}

void AOTRTLoadOptionsInit(AOTRTLoadOptions* options) {
  if (!options) return;
  LoadOptions d;  // in the order of the struct's fields; strings NULL, num_threads 0
  *options = AOTRTLoadOptions{sizeof(AOTRTLoadOptions), d.constant_cache, d.verify_constant_cache, nullptr,
                              d.cache_max_bytes, d.executor.check_bounds, d.executor.huge_pages, nullptr,
                              d.compile_cache, nullptr, 0};
}

int AOTRTModLoadFromFileWithOptions(const char* file_name, const char* format, const AOTRTLoadOptions* options,
                                    TVMModuleHandle* out) {
  AOTRT_API_BEGIN();
  AOTRT_REQUIRE(file_name && out, kInvalidArgument, "AOTRTModLoadFromFileWithOptions: null argument");
  *out = OwnedHandle(Module::LoadFromFile(file_name, format ? format : "", LoadOptionsFromC(options)));
  AOTRT_API_END();
}

int AOTRTModLoadFromMemory(const void* data, size_t size, TVMModuleHandle* out) {
  AOTRT_API_BEGIN();
  AOTRT_REQUIRE(out, kInvalidArgument, "AOTRTModLoadFromMemory: null out");
  *out = OwnedHandle(Module::LoadFromMemory(data, size));
  AOTRT_API_END();
}

int TVMModImport(TVMModuleHandle mod, TVMModuleHandle dep) {
  AOTRT_API_BEGIN();
  AsModule(mod, "TVMModImport")->Import(ObjectPtr<ModuleNode>(AsModule(dep, "TVMModImport")));
  AOTRT_API_END();
}

int TVMModGetFunction(TVMModuleHandle mod, const char* func_name, int query_imports, TVMFunctionHandle* out) {
  AOTRT_API_BEGIN();
  AOTRT_REQUIRE(func_name && out, kInvalidArgument, "TVMModGetFunction: null argument");
  *out = nullptr;
  Module m{ObjectPtr<ModuleNode>(AsModule(mod, "TVMModGetFunction"))};
  *out = OwnedHandle(m.GetFunction(func_name, query_imports != 0));
  AOTRT_API_END();
}

int TVMModFree(TVMModuleHandle mod) {
  AOTRT_API_BEGIN();
  AsModule(mod, "TVMModFree")->DecRef();
  AOTRT_API_END();
}

int TVMFuncFree(TVMFunctionHandle func) {
  AOTRT_API_BEGIN();
  AsFunc(func, "TVMFuncFree")->DecRef();
  AOTRT_API_END();
}

int TVMFuncCall(TVMFunctionHandle func, TVMValue* args, int* codes, int num_args, TVMValue* ret_val, int* ret_code) {
  AOTRT_API_BEGIN();
  AOTRT_REQUIRE(num_args == 0 || (args && codes), kInvalidArgument, "TVMFuncCall: null argument arrays");
  AOTRT_REQUIRE(ret_val && ret_code, kInvalidArgument, "TVMFuncCall: null return slots");
  TVMRetValue rv;
  AsFunc(func, "TVMFuncCall")->Call(TVMArgs(args, codes, num_args), &rv);
  rv.MoveToC(ret_val, ret_code);
  AOTRT_API_END();
}

int TVMCFuncSetReturn(TVMRetValueHandle ret, TVMValue* value, int* type_code, int num_ret) {
  AOTRT_API_BEGIN();
  AOTRT_REQUIRE(ret && value && type_code, kInvalidArgument, "TVMCFuncSetReturn: null argument");
  AOTRT_REQUIRE(num_ret == 1, kInvalidArgument, "TVMCFuncSetReturn: num_ret must be 1, got ", num_ret);
  static_cast<TVMRetValue*>(ret)->SetFromC(value[0], type_code[0]);
  AOTRT_API_END();
}

int TVMCbArgToReturn(TVMValue* value, int* code) {
  AOTRT_API_BEGIN();
  AOTRT_REQUIRE(value && code, kInvalidArgument, "TVMCbArgToReturn: null argument");
  switch (*code) {
    case kTVMModuleHandle:
    case kTVMPackedFuncHandle:
    case kTVMObjectHandle:
    case kTVMNDArrayHandle:
      if (Object* obj = ObjectFromValue(value->v_handle, *code, "TVMCbArgToReturn")) obj->IncRef();
      break;
    case kTVMObjectRValueRefArg: {  // the callee takes the caller's reference
      auto** slot = static_cast<Object**>(value->v_handle);
      value->v_handle = slot ? *slot : nullptr;
      if (slot) *slot = nullptr;
      *code = kTVMObjectHandle;
      break;
    }
    default:
      break;
  }
  AOTRT_API_END();
}

int TVMFuncCreateFromCFunc(TVMPackedCFunc func, void* resource_handle, TVMPackedCFuncFinalizer fin,
                           TVMFunctionHandle* out) {
  AOTRT_API_BEGIN();
  AOTRT_REQUIRE(func && out, kInvalidArgument, "TVMFuncCreateFromCFunc: null argument");
  // The resource, finalized with the last reference to the function.
  std::shared_ptr<void> resource(resource_handle, [fin](void* r) {
    if (fin) fin(r);
  });
  PackedFunc f([func, resource](TVMArgs args, TVMRetValue* rv) {
    uint64_t before = LastErrorSequence();
    int rc = func(const_cast<TVMValue*>(args.values()), const_cast<int*>(args.type_codes()), args.size(), rv,
                  resource.get());
    if (rc != 0) {
      ThrowIfPythonErrorSince(before);
      const char* msg = LastErrorMessageSince(before);
      ErrorCode code = msg ? LastErrorCode() : ErrorCode::kModelError;
      throw Error(code, msg ? msg : "C callback returned an error without a message");
    }
  });
  *out = OwnedHandle(f);
  AOTRT_API_END();
}

int TVMFuncRegisterGlobal(const char* name, TVMFunctionHandle f, int override) {
  AOTRT_API_BEGIN();
  AOTRT_REQUIRE(name, kInvalidArgument, "TVMFuncRegisterGlobal: null name");
  Registry::Global().Register(name, PackedFunc(ObjectPtr<PackedFuncObj>(AsFunc(f, "TVMFuncRegisterGlobal"))),
                              override != 0);
  AOTRT_API_END();
}

int TVMFuncGetGlobal(const char* name, TVMFunctionHandle* out) {
  AOTRT_API_BEGIN();
  AOTRT_REQUIRE(name && out, kInvalidArgument, "TVMFuncGetGlobal: null argument");
  *out = OwnedHandle(Registry::Global().Get(name));
  AOTRT_API_END();
}

int TVMFuncListGlobalNames(int* out_size, const char*** out_array) {
  AOTRT_API_BEGIN();
  AOTRT_REQUIRE(out_size && out_array, kInvalidArgument, "TVMFuncListGlobalNames: null argument");
  static thread_local std::vector<std::string> names;
  static thread_local std::vector<const char*> ptrs;
  names = Registry::Global().ListNames();
  ptrs.clear();
  for (const auto& n : names) ptrs.push_back(n.c_str());
  *out_size = static_cast<int>(ptrs.size());
  *out_array = ptrs.data();
  AOTRT_API_END();
}

int TVMFuncRemoveGlobal(const char* name) {
  AOTRT_API_BEGIN();
  AOTRT_REQUIRE(name, kInvalidArgument, "TVMFuncRemoveGlobal: null name");
  Registry::Global().Remove(name);
  AOTRT_API_END();
}

void AOTRTExecutorOptionsInit(AOTRTExecutorOptions* options) {
  if (!options) return;
  ExecutorOptions::Heap d;  // the default memory; no pools, no arena, no callback, num_threads 0
  *options = AOTRTExecutorOptions{sizeof(AOTRTExecutorOptions), d.check_bounds, d.huge_pages, nullptr, 0, nullptr, 0,
                                  nullptr, nullptr, 0};
}

int AOTRTExecutorCreate(TVMModuleHandle factory, int device_type, int device_id, const AOTRTExecutorOptions* options,
                        TVMModuleHandle* out) {
  AOTRT_API_BEGIN();
  AOTRT_REQUIRE(out != nullptr, kInvalidArgument, "AOTRTExecutorCreate: null out");
  *out = nullptr;
  Model m = ModelOf(factory, "AOTRTExecutorCreate");
  DLDevice device{static_cast<DLDeviceType>(device_type), device_id};
  *out = OwnedHandle(m.CreateExecutor(device, ExecutorOptionsFromC(options)).module());
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
