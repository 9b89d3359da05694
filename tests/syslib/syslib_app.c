/* A C application with a system-lib model linked in, driven through the TVM C ABI only, as a user
 * of TVM's runtime would: runtime.SystemLib(), factory["<mod_name>"](cpu), set_input, run,
 * get_output. usage: syslib_app_c MOD_NAME IN_DIR OUT_DIR. Reads IN_DIR/<input name>.bin (raw
 * bytes), writes OUT_DIR/output<i>.bin. On failure prints TVMGetLastError() and exits 1. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <tvm/runtime/c_runtime_api.h>

static int Fail(const char* what) {
  fprintf(stderr, "syslib_app_c: %s: %s\n", what, TVMGetLastError());
  return 1;
}

/* Calls `f` with up to two arguments; the result in *ret, *ret_code. */
static int Call(TVMFunctionHandle f, TVMValue* args, int* codes, int n, TVMValue* ret, int* ret_code) {
  return TVMFuncCall(f, args, codes, n, ret, ret_code);
}

static int GetFunc(TVMModuleHandle m, const char* name, TVMFunctionHandle* f) {
  if (TVMModGetFunction(m, name, 0, f) != 0) return -1;
  if (*f == NULL) {
    TVMAPISetLastError("function not found");
    return -1;
  }
  return 0;
}

static size_t NumBytes(const DLTensor* t) {
  size_t n = (t->dtype.bits * t->dtype.lanes + 7) / 8;
  for (int i = 0; i < t->ndim; ++i) n *= (size_t)t->shape[i];
  return n;
}

static int ReadFile(const char* path, void* data, size_t bytes) {
  FILE* f = fopen(path, "rb");
  if (!f) return -1;
  size_t got = fread(data, 1, bytes, f);
  int extra = fgetc(f);
  fclose(f);
  return got == bytes && extra == EOF ? 0 : -1;
}

static int WriteFile(const char* path, const void* data, size_t bytes) {
  FILE* f = fopen(path, "wb");
  if (!f) return -1;
  size_t put = fwrite(data, 1, bytes, f);
  return fclose(f) == 0 && put == bytes ? 0 : -1;
}

int main(int argc, char** argv) {
  if (argc != 4) {
    fprintf(stderr, "usage: %s MOD_NAME IN_DIR OUT_DIR\n", argv[0]);
    return 2;
  }
  TVMFunctionHandle syslib, create, set_input, run, get_output, get_num, get_name, get_input;
  TVMValue args[2], ret;
  int codes[2], ret_code;
  if (TVMFuncGetGlobal("runtime.SystemLib", &syslib) != 0 || syslib == NULL) return Fail("runtime.SystemLib");
  if (Call(syslib, args, codes, 0, &ret, &ret_code) != 0) return Fail("runtime.SystemLib()");
  TVMModuleHandle factory = ret.v_handle;
  if (GetFunc(factory, argv[1], &create) != 0) return Fail("factory function");
  args[0].v_device.device_type = kDLCPU;
  args[0].v_device.device_id = 0;
  codes[0] = kDLDevice;
  if (Call(create, args, codes, 1, &ret, &ret_code) != 0) return Fail("creating the executor");
  TVMModuleHandle ex = ret.v_handle;
  if (GetFunc(ex, "set_input", &set_input) || GetFunc(ex, "run", &run) || GetFunc(ex, "get_output", &get_output) ||
      GetFunc(ex, "get_num_inputs", &get_num) || GetFunc(ex, "get_input_name", &get_name) ||
      GetFunc(ex, "get_input", &get_input)) {
    return Fail("executor functions");
  }
  char path[4096];
  if (Call(get_num, args, codes, 0, &ret, &ret_code) != 0) return Fail("get_num_inputs");
  for (int64_t i = 0, n = ret.v_int64; i < n; ++i) {
    args[0].v_int64 = i;
    codes[0] = kDLInt;
    if (Call(get_name, args, codes, 1, &ret, &ret_code) != 0) return Fail("get_input_name");
    snprintf(path, sizeof(path), "%s/%s.bin", argv[2], ret.v_str);
    if (Call(get_input, args, codes, 1, &ret, &ret_code) != 0) return Fail("get_input");
    DLTensor* in = (DLTensor*)ret.v_handle;
    if (ReadFile(path, in->data, NumBytes(in)) != 0) {
      fprintf(stderr, "syslib_app_c: cannot read %zu bytes from %s\n", NumBytes(in), path);
      return 1;
    }
    TVMArrayFree(in);
  }
  if (Call(run, args, codes, 0, &ret, &ret_code) != 0) return Fail("run");
  TVMFunctionHandle get_num_out;
  if (GetFunc(ex, "get_num_outputs", &get_num_out) || Call(get_num_out, args, codes, 0, &ret, &ret_code)) {
    return Fail("get_num_outputs");
  }
  for (int64_t i = 0, n = ret.v_int64; i < n; ++i) {
    args[0].v_int64 = i;
    codes[0] = kDLInt;
    if (Call(get_output, args, codes, 1, &ret, &ret_code) != 0) return Fail("get_output");
    DLTensor* out = (DLTensor*)ret.v_handle;
    snprintf(path, sizeof(path), "%s/output%lld.bin", argv[3], (long long)i);
    int rc = WriteFile(path, out->data, NumBytes(out));
    TVMArrayFree(out);
    if (rc != 0) {
      fprintf(stderr, "syslib_app_c: cannot write %s\n", path);
      return 1;
    }
  }
  TVMFuncFree(get_num_out);
  TVMFuncFree(set_input);
  TVMFuncFree(run);
  TVMFuncFree(get_output);
  TVMFuncFree(get_num);
  TVMFuncFree(get_name);
  TVMFuncFree(get_input);
  TVMFuncFree(create);
  TVMFuncFree(syslib);
  TVMModFree(ex);
  TVMModFree(factory);
  return 0;
}
