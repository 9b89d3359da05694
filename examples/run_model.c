/* Load a TVM AOT export through the TVM C ABI alone (as any host binding does), set every input
 * to zeros, run, and print output 0's byte size.   usage: run_model_c model.so */
#include <aotrt/c_api.h>
#include <tvm/runtime/c_runtime_api.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define CHECK(call)                                                            \
  do {                                                                         \
    if ((call) != 0) {                                                         \
      fprintf(stderr, "error %d: %s\n", AOTRTGetLastErrorCode(), TVMGetLastError()); \
      return 2;                                                                \
    }                                                                          \
  } while (0)

/* Call mod[name](args) and put the result in *ret. */
static int Call(TVMModuleHandle mod, const char* name, TVMValue* args, int* codes, int n, TVMValue* ret,
                int* ret_code) {
  TVMFunctionHandle f = NULL;
  if (TVMModGetFunction(mod, name, 0, &f) != 0) return -1;
  if (!f) {
    TVMAPISetLastError("function not found");
    return -1;
  }
  int rc = TVMFuncCall(f, args, codes, n, ret, ret_code);
  TVMFuncFree(f);
  return rc;
}

int main(int argc, char** argv) {
  if (argc != 2) {
    fprintf(stderr, "usage: %s model.so\n", argv[0]);
    return 1;
  }
  TVMModuleHandle factory, executor;
  CHECK(TVMModLoadFromFile(argv[1], "so", &factory));
  TVMValue ret, arg;
  int code, arg_code;
  /* list_module_names()[0] is the name to call with the device. */
  CHECK(Call(factory, "list_module_names", NULL, NULL, 0, &ret, &code));
  TVMObjectHandle names = ret.v_handle;
  TVMFunctionHandle get_item;
  CHECK(TVMFuncGetGlobal("runtime.ArrayGetItem", &get_item));
  TVMValue item_args[2];
  int item_codes[2] = {kTVMObjectHandle, kTVMArgInt};
  item_args[0].v_handle = names;
  item_args[1].v_int64 = 0;
  CHECK(TVMFuncCall(get_item, item_args, item_codes, 2, &ret, &code));
  /* The item is a String object, as in TVM: runtime.GetFFIString gives its characters. */
  TVMObjectHandle name_obj = ret.v_handle;
  TVMFunctionHandle to_str;
  CHECK(TVMFuncGetGlobal("runtime.GetFFIString", &to_str));
  TVMValue obj_arg;
  obj_arg.v_handle = name_obj;
  int obj_code = kTVMObjectHandle;
  CHECK(TVMFuncCall(to_str, &obj_arg, &obj_code, 1, &ret, &code));
  char name[256];
  snprintf(name, sizeof(name), "%s", ret.v_str);
  TVMFuncFree(to_str);
  TVMObjectFree(name_obj);
  TVMFuncFree(get_item);
  TVMObjectFree(names);

  arg.v_device.device_type = kDLCPU;
  arg.v_device.device_id = 0;
  arg_code = kDLDevice;
  CHECK(Call(factory, name, &arg, &arg_code, 1, &ret, &code));
  executor = ret.v_handle;
  CHECK(Call(executor, "get_num_inputs", NULL, NULL, 0, &ret, &code));
  printf("model '%s' has %lld input(s); running on zeros\n", name, (long long)ret.v_int64);
  CHECK(Call(executor, "run", NULL, NULL, 0, &ret, &code));
  arg.v_int64 = 0;
  arg_code = kTVMArgInt;
  CHECK(Call(executor, "get_output", &arg, &arg_code, 1, &ret, &code));
  DLTensor* out = (DLTensor*)ret.v_handle; /* an NDArray handle: free with TVMArrayFree */
  size_t n = (out->dtype.bits * out->dtype.lanes + 7) / 8;
  for (int d = 0; d < out->ndim; ++d) n *= (size_t)out->shape[d];
  printf("output 0: %d-d tensor of %zu bytes\n", out->ndim, n);
  TVMArrayFree(out);
  TVMModFree(executor);
  TVMModFree(factory);
  return 0;
}
