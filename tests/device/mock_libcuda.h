// The control interface of the mock libcuda.so.1 (mock_libcuda.cc), which tests find with dlsym on the
// library the runtime opened (dlopen("libcuda.so.1", RTLD_NOLOAD)).
#pragma once

// What the mock recorded of one cuLaunchKernel.
struct MockCudaLaunch {
  char kernel[128];
  int device;                     // the device whose context was current in the launching thread
  unsigned grid[3], block[3], shared_bytes;
  void* stream;
  int num_params;                 // from the kernel's PTX signature
  int param_bytes[32];            // each .param's size (.u64: 8, .u32/.f32: 4, ...)
  unsigned char params[32][8];    // the bytes kernelParams[i] pointed to
};

struct MockCudaStats {
  long live_allocations, live_modules, live_streams;
  long module_loads, function_lookups, launches, syncs, retains;
  long func_attribute_sets, live_events;
  int last_func_attribute, last_func_attribute_value;
};

extern "C" {
using MockCudaNumLaunchesFn = int (*)();
using MockCudaLaunchFn = const MockCudaLaunch* (*)(int i);
using MockCudaClearFn = void (*)();
using MockCudaStatsFn = void (*)(MockCudaStats* out);
// The next call of `fn` after `skip` successful ones returns `result` (once).
using MockCudaFailFn = void (*)(const char* fn, int result, int skip);
// Makes no context current in the calling thread, as other code using CUDA there might.
using MockCudaDropContextFn = void (*)();
}
