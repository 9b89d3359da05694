"""C source of one model, shaped like a TVM v0.14 AOT export (ABI.md sections 2, 4, 5, 7).

One translation unit holds what TVM splits over lib0.c (runner + operators), lib1.c (metadata)
and devc.c (blob). Types are declared here rather than taken from any header, so the generated
libraries check aotrt's headers instead of sharing them.
"""
from . import binfmt

PREAMBLE = r"""#include <stddef.h>
#include <stdint.h>

/* TVM / DLPack types, layouts from ABI.md 1.4 and 7.1 (LP64). */
typedef struct { uint8_t code; uint8_t bits; uint16_t lanes; } DLDataType;
typedef struct { int32_t device_type; int32_t device_id; } DLDevice;
typedef struct {
  void* data;
  DLDevice device;
  int32_t ndim;
  DLDataType dtype;
  int64_t* shape;
  int64_t* strides;
  uint64_t byte_offset;
} DLTensor;
typedef union {
  int64_t v_int64;
  double v_float64;
  void* v_handle;
  const char* v_str;
  DLDataType v_type;
  DLDevice v_device;
} TVMValue;
struct TVMTensorInfo {
  const char* name;
  const int64_t* shape;
  int64_t num_shape;
  DLDataType dtype;
};
struct TVMConstantInfo {
  const char* name_hint;
  int64_t byte_offset;
  int64_t data_len;
  const void* data_bytes;
};
struct TVMMetadata {
  int64_t version;
  const struct TVMTensorInfo* inputs;
  int64_t num_inputs;
  const struct TVMTensorInfo* outputs;
  int64_t num_outputs;
  const struct TVMTensorInfo* workspace_pools;
  int64_t num_workspace_pools;
  const struct TVMConstantInfo* constant_pools;
  int64_t num_constant_pools;
  const char* mod_name;
};
typedef struct { void* sync_handle; int32_t num_task; } TVMParallelGroupEnv;
typedef int (*FTVMParallelLambda)(int task_id, TVMParallelGroupEnv* penv, void* cdata);

_Static_assert(sizeof(DLTensor) == 48 && offsetof(DLTensor, byte_offset) == 40, "DLTensor layout");
_Static_assert(sizeof(TVMValue) == 8, "TVMValue layout");
_Static_assert(sizeof(struct TVMTensorInfo) == 32 && offsetof(struct TVMTensorInfo, dtype) == 24,
               "TVMTensorInfo layout");
_Static_assert(sizeof(struct TVMConstantInfo) == 32, "TVMConstantInfo layout");
_Static_assert(sizeof(struct TVMMetadata) == 80 && offsetof(struct TVMMetadata, mod_name) == 72,
               "TVMMetadata layout");
"""

PACKED_PARAMS = ("TVMValue* args, int32_t* type_codes, int32_t num_args, "
                 "TVMValue* out_ret_value, int32_t* out_ret_tcode, void* resource_handle")

# The seven context pointers of ABI 2.1 plus the module context, in TVM's declaration style.
LLVM_CONTEXT_VARS = [
    ("__TVMFuncCall", "int32_t (*{})(void*, TVMValue*, int32_t*, int32_t, TVMValue*, int32_t*)"),
    ("__TVMAPISetLastError", "void (*{})(const char*)"),
    ("__TVMBackendGetFuncFromEnv", "int32_t (*{})(void*, const char*, void**)"),
    ("__TVMBackendParallelLaunch", "int32_t (*{})(FTVMParallelLambda, void*, int32_t)"),
    ("__TVMBackendParallelBarrier", "int32_t (*{})(int32_t, TVMParallelGroupEnv*)"),
    ("__TVMBackendAllocWorkspace", "void* (*{})(int32_t, int32_t, uint64_t, int32_t, int32_t)"),
    ("__TVMBackendFreeWorkspace", "int32_t (*{})(int32_t, int32_t, void*)"),
    ("__tvm_module_ctx", "void* {}"),
]
RUNTIME_PROTOS = {
    "TVMAPISetLastError": "void TVMAPISetLastError(const char* msg);",
    "TVMBackendAllocWorkspace": "void* TVMBackendAllocWorkspace(int device_type, int device_id, "
                                "uint64_t nbytes, int dtype_code_hint, int dtype_bits_hint);",
    "TVMBackendFreeWorkspace": "int TVMBackendFreeWorkspace(int device_type, int device_id, void* ptr);",
    "TVMBackendRegisterSystemLibSymbol": "int TVMBackendRegisterSystemLibSymbol(const char* name, void* ptr);",
    "TVMBackendGetFuncFromEnv": "int TVMBackendGetFuncFromEnv(void* mod_node, const char* func_name, void** out);",
    "TVMBackendParallelLaunch": "int TVMBackendParallelLaunch(FTVMParallelLambda flambda, void* cdata, int num_task);",
    "TVMFuncCall": "int TVMFuncCall(void* func, TVMValue* arg_values, int* type_codes, int num_args, "
                   "TVMValue* ret_val, int* ret_type_code);",
}


def c_string(s):
    out = []
    for ch in s.encode("utf-8"):
        c = chr(ch)
        if c in '"\\':
            out.append("\\" + c)
        elif 32 <= ch < 127 and c != "?":        # '?' avoids trigraphs
            out.append(c)
        else:
            out.append("\\%03o" % ch)
    return '"' + "".join(out) + '"'


def bytes_literal(raw, per_line=64):
    """Hex-escaped string literal lines. gcc parses one big literal far faster than an
    initializer list (16 MiB: ~1 s instead of ~30 s); the array is sized exactly, so no NUL."""
    if not raw:
        return ['""']
    text = "\\x" + raw.hex("|").replace("|", "\\x")       # 4 characters per byte
    step = 4 * per_line
    return ['"%s"' % text[i:i + step] for i in range(0, len(text), step)]


class Emitter:
    def __init__(self, model):
        self.m = model
        self.lines = []
        self.syslib = model.system_lib
        # llvm and system-lib builds validate arguments like TVM's LLVM codegen.
        self.validate = model.flavour == "llvm" or self.syslib
        self.uses_workspace = bool(model.intermediates) and not model.usmp

    # -- helpers ------------------------------------------------------------------------------
    def w(self, *lines):
        self.lines.extend(lines)

    def rt(self, fn):
        """How generated code calls runtime function `fn` (ABI 2.1, 10.2)."""
        if self.m.flavour == "llvm" and not self.syslib:
            return "__" + fn
        return fn

    def linkage(self):
        return "static " if self.syslib else "AOTGEN_EXPORT "

    def set_error(self, msg):
        return "%s(%s);" % (self.rt("TVMAPISetLastError"), c_string(msg))

    def needs_set_last_error(self):
        return self.validate or any(n.op.name == "fail" for n in self.m.nodes)

    def launches(self):
        """Operators that run their rows on the thread pool (attr "parallel": tasks)."""
        return any(n.attrs.get("parallel") for n in self.m.nodes)

    def calls_env(self):
        """Operators that call runtime globals through TVMBackendGetFuncFromEnv + TVMFuncCall."""
        return any(n.op.name == "argsort" for n in self.m.nodes)

    # -- sections -----------------------------------------------------------------------------
    def emit(self):
        m = self.m
        self.w("/* Generated by tests/models/aotgen from spec %r: do not edit. */" % m.name,
               "/* flavour=%s system_lib=%s usmp=%s mod_name=%s */" % (m.flavour, m.system_lib, m.usmp, m.mod_name))
        self.w(PREAMBLE)
        self.w('#define AOTGEN_EXPORT __attribute__((visibility("default")))', "")
        self.emit_half_helpers()
        self.emit_extern_decls()
        self.emit_runtime_decls()
        self.emit_constants()
        for node in m.nodes:
            self.emit_operator(node)
        self.emit_entry()
        self.emit_metadata()
        self.emit_blob()
        if self.syslib:
            self.emit_syslib_ctor()
        return "\n".join(self.lines) + "\n"

    def uses_half(self):
        m = self.m
        tensors = m.inputs + m.outputs + m.constants + m.intermediates
        return any(t.dtype.is_half for t in tensors)

    def emit_half_helpers(self):
        """float16 <-> float. llvm: calls to the helpers an export of TVM built against LLVM 14
        leaves undefined for the runtime to provide (ABI 10.2, "Half precision"). c: gcc's _Float16,
        whose conversions come from libgcc, linked in: independent of the runtime's; compilers without
        _Float16 (clang 14 on x86) get the same conversions in portable C."""
        if not self.uses_half():
            return
        if self.m.flavour == "llvm":
            self.w("/* float16 helpers: undefined here, provided by the runtime (as for LLVM <= 14 exports). */",
                   "extern uint16_t __gnu_f2h_ieee(float);",
                   "extern float __gnu_h2f_ieee(uint16_t);",
                   "#define AOTGEN_H2F(x) __gnu_h2f_ieee(x)",
                   "#define AOTGEN_F2H(x) __gnu_f2h_ieee(x)", "")
            return
        self.w(*C_HALF_HELPERS.splitlines())
        self.w("")

    def emit_extern_decls(self):
        names = sorted({n.attrs["function"] for n in self.m.nodes if n.op.name == "call_extern"})
        if names:
            self.w("/* External functions the operators call (left undefined, like call_pure_extern). */")
            self.w(*["extern float %s(float);" % n for n in names])
            self.w("")

    def emit_runtime_decls(self):
        m = self.m
        if m.flavour == "llvm" and not self.syslib:
            used = {"__TVMAPISetLastError"}
            if self.uses_workspace:
                used |= {"__TVMBackendAllocWorkspace", "__TVMBackendFreeWorkspace"}
            if self.calls_env():
                used |= {"__TVMBackendGetFuncFromEnv", "__TVMFuncCall", "__tvm_module_ctx"}
            if self.launches():
                used |= {"__TVMBackendParallelLaunch"}
            self.w("/* Context pointers filled by the loader (ABI 2.1): weak, zero, exported. */")
            for name, decl in LLVM_CONTEXT_VARS:
                if m.context_vars == "all" or name in used:
                    self.w("__attribute__((weak)) AOTGEN_EXPORT %s = 0;" % decl.format(name))
            self.w("")
            return
        needed = []
        if self.needs_set_last_error():
            needed.append("TVMAPISetLastError")
        if self.uses_workspace:
            needed += ["TVMBackendAllocWorkspace", "TVMBackendFreeWorkspace"]
        if self.syslib:
            needed.append("TVMBackendRegisterSystemLibSymbol")
        if self.calls_env():
            needed += ["TVMBackendGetFuncFromEnv", "TVMFuncCall"]
        if self.launches():
            needed.append("TVMBackendParallelLaunch")
        self.w("/* TVM runtime functions, resolved from the global scope (ABI 10.2). */")
        for fn in needed:
            self.w(RUNTIME_PROTOS[fn])
        if self.syslib:
            self.w("static void* __tvm_module_ctx = NULL;")
        else:
            self.w("AOTGEN_EXPORT void* __tvm_module_ctx = NULL;")
        self.w("")

    def emit_constants(self):
        if self.m.usmp:
            return
        for c in self.m.constants:
            self.w("/* constant %s: %s%s */" % (c.name, c.dtype.name, c.shape),
                   "static const unsigned char aotgen_const_%d[%d] __attribute__((aligned(64))) ="
                   % (c.index, c.nbytes))
            self.w(*bytes_literal(c.raw))
            self.w(";", "")

    # -- argument validation (llvm flavour) ------------------------------------------------------
    def emit_checks(self, fn, params):
        """params: [(name, shape, dtype)]; mirrors the asserts of ABI 2.4."""
        n = len(params)
        self.w("  if (num_args != %d) {" % n,
               "    " + self.set_error("%s: num_args should be %d" % (fn, n)),
               "    return -1;", "  }")
        for i, (name, shape, dt) in enumerate(params):
            t = "((DLTensor*)args[%d].v_handle)" % i
            arg = "%s.%s" % (fn, name)
            checks = [
                ("!(type_codes[%d] == 3 || type_codes[%d] == 4 || type_codes[%d] == 7 || type_codes[%d] == 13)"
                 % (i, i, i, i), "%s: Expect arg[%d] to be pointer" % (fn, i)),
                ("%s == NULL" % t, "%s is expected to have non-NULL DLTensor* pointer" % arg),
                ("%s->ndim != %d" % (t, len(shape)), "%s.ndim is expected to equal %d" % (arg, len(shape))),
                ("!(%s->dtype.code == %d && %s->dtype.bits == %d && %s->dtype.lanes == 1)"
                 % (t, dt.code, t, dt.bits, t), "%s.dtype is expected to be %s" % (arg, dt.name)),
            ]
            for d, extent in enumerate(shape):
                checks.append(("%s->shape[%d] != %d" % (t, d, extent),
                               "Argument %s.shape[%d] has an unsatisfied constraint: %d == %s.shape[%d]"
                               % (arg, d, extent, name, d)))
            # strides: NULL, or exactly the compact row-major strides
            compact = []
            stride = 1
            for d in reversed(range(len(shape))):
                compact.append("%s->strides[%d] == %d" % (t, d, stride))
                stride *= shape[d]
            cond = "%s->strides != NULL" % t
            if compact:
                cond += " && !(%s)" % " && ".join(compact)
            checks += [
                (cond, "%s.strides: expected to be compact array" % arg),
                ("%s->byte_offset != 0" % t,
                 "Argument %s.byte_offset has an unsatisfied constraint: 0 == %s.byte_offset" % (arg, name)),
                ("%s->device.device_type != 1" % t,
                 "Argument %s.device_type has an unsatisfied constraint: 1 == %s.device_type" % (arg, name)),
            ]
            if i > 0:
                checks.append(("%s->device.device_id != dev_id" % t,
                               "Argument %s.device_id has an unsatisfied constraint: dev_id == %s.device_id"
                               % (arg, name)))
            for cond, msg in checks:
                self.w("  if (%s) {" % cond, "    " + self.set_error(msg), "    return -1;", "  }")
            if i == 0:
                self.w("  int32_t dev_id = %s->device.device_id;" % t)
        if n:
            self.w("  (void)dev_id;")

    def func_open(self, fn):
        self.w("%sint32_t %s(%s) {" % (self.linkage(), fn, PACKED_PARAMS))

    # -- operators ------------------------------------------------------------------------------
    def emit_parallel_lambda(self, node, index):
        """The body of a parallel operator: rows [task * ceil(n / tasks), ...) of its first loop, as
        TVM's LLVM codegen outlines a parallel loop into a lambda for TVMBackendParallelLaunch. Named
        __tvm_parallel_lambda_<k>, after nothing of its operator, so that a profiler can only tell
        which operator runs it from the launch."""
        n = node.out.shape[0]
        cdata = "aotgen_cdata_%s" % node.symbol
        self.w("typedef struct { %s } %s;" % (" ".join("const %s* p%d;" % (a.dtype.ctype, i)
                                                       for i, a in enumerate(node.args)) + " %s* out;" % node.out.dtype.ctype, cdata),
               "static int32_t __tvm_parallel_lambda_%d(int32_t task_id, TVMParallelGroupEnv* penv, void* cdata) {" % index)
        for i, a in enumerate(node.args):
            self.w("  const %s* p%d = ((%s*)cdata)->p%d;" % (a.dtype.ctype, i, cdata, i))
        self.w("  %s* out = ((%s*)cdata)->out;" % (node.out.dtype.ctype, cdata),
               "  int64_t per = (%d + penv->num_task - 1) / penv->num_task;" % n,
               "  int64_t begin = task_id * per, end = begin + per < %d ? begin + per : %d;" % (n, n))
        lines = node.op.kernel(node.args, node.out, node.attrs)
        first = "for (int64_t i = 0; i < %d; ++i) {" % n
        if lines[0] != first:
            raise ValueError("parallel: %s's kernel does not start with its row loop" % node.op.name)
        lines[0] = "for (int64_t i = begin; i < end; ++i) {"
        for line in lines:
            self.w("  " + line)
        self.w("  return 0;", "}", "")

    def emit_operator(self, node):
        fn = node.symbol
        tasks = node.attrs.get("parallel")
        if tasks:
            self.emit_parallel_lambda(node, self.m.nodes.index(node))
        params = [("p%d" % i, a.shape, a.dtype) for i, a in enumerate(node.args)]
        params.append(("T_%s" % node.op.name, node.out.shape, node.out.dtype))
        self.func_open(fn)
        if self.validate:
            self.emit_checks(fn, params)
        if node.op.name == "argsort":
            self.emit_env_call(node)
            return
        for i, a in enumerate(node.args):
            self.w("  const %s* p%d = (const %s*)(((DLTensor*)args[%d].v_handle)->data);"
                   % (a.dtype.ctype, i, a.dtype.ctype, i))
        o = node.out.dtype.ctype
        self.w("  %s* out = (%s*)(((DLTensor*)args[%d].v_handle)->data);" % (o, o, len(node.args)))
        if node.op.name == "fail":
            self.w("  (void)out;")
            for i in range(len(node.args)):
                self.w("  (void)p%d;" % i)
            self.w("  " + self.set_error(node.attrs["message"]), "  return -1;", "}", "")
            return
        if tasks:
            self.w("  aotgen_cdata_%s cdata = { %s };" % (fn, ", ".join(["p%d" % i for i in range(len(node.args))] + ["out"])),
                   "  return %s(__tvm_parallel_lambda_%d, &cdata, %d);" % (self.rt("TVMBackendParallelLaunch"),
                                                                         self.m.nodes.index(node), tasks),
                   "}", "")
            return
        for line in node.op.kernel(node.args, node.out, node.attrs):
            self.w("  " + line)
        if node.attrs.get("overrun"):
            # A compiler bug on purpose: store past the end of the result's buffer (spec.py checks
            # that nothing of the model lies there). volatile: the stores must not be elided.
            # Bytes 0xE1..0xFF: never 0 (what untouched reserve holds) nor the canary 0xA5, so a
            # bounds check can count every byte up to the last.
            self.w("  for (int64_t i = 0; i < %d; ++i) {" % node.attrs["overrun"],
                   "    ((volatile uint8_t*)out)[%d + i] = (uint8_t)(0xE1 + i %% 31);" % node.out.nbytes,
                   "  }")
        self.w("  return 0;", "}", "")

    def emit_env_call(self, node):
        """tvm_call_packed as TVM lowers it: the handle from TVMBackendGetFuncFromEnv, cached in a
        static for the library's lifetime, then TVMFuncCall with stack-built arguments."""
        cache = "aotgen_packed_%s" % node.symbol
        axis = node.attrs.get("axis", -1)
        ascend = 1 if node.attrs.get("is_ascend", True) else 0
        # TVM v0.18+ lowers a boolean scalar of a packed call with type code 15 (kTVMArgBool).
        ascend_code = 15 if node.attrs.get("is_ascend_as_bool", False) else 0
        self.w("  static void* %s = NULL;" % cache,
               "  if (%s == NULL &&" % cache,
               "      %s(__tvm_module_ctx, %s, &%s) != 0) {"
               % (self.rt("TVMBackendGetFuncFromEnv"), c_string(node.op.function), cache),
               "    return -1;",
               "  }",
               "  TVMValue call_args[4];",
               "  int32_t call_codes[4] = {7, 7, 0, %d};  /* DLTensor*, DLTensor*, int, %s */"
               % (ascend_code, "bool" if ascend_code else "int"),
               "  call_args[0].v_handle = args[0].v_handle;",
               "  call_args[1].v_handle = args[1].v_handle;",
               "  call_args[2].v_int64 = %d;  /* axis */" % axis,
               "  call_args[3].v_int64 = %d;  /* is_ascend */" % ascend,
               "  TVMValue call_ret;",
               "  int32_t call_ret_code = 4;",
               "  if (%s(%s, call_args, call_codes, 4, &call_ret, &call_ret_code) != 0) return -1;"
               % (self.rt("TVMFuncCall"), cache),
               "  return 0;", "}", "")

    # -- entry (AOT runner) -----------------------------------------------------------------------
    def entry_params(self):
        m = self.m
        params = [(san, t.shape, t.dtype) for san, t in zip(m.sanitized_inputs, m.inputs)]
        params += [("output%d" % t.index, t.shape, t.dtype) for t in m.outputs]
        params += [(var, [size], _UINT8) for var, _, size in m.pools()]
        return params

    def emit_entry(self):
        m = self.m
        fn = m.entry
        params = self.entry_params()
        self.func_open(fn)
        if self.validate:
            self.emit_checks(fn, params)
        else:
            self.w("  int32_t dev_id = ((DLTensor*)args[0].v_handle)->device.device_id;")
        names = {}   # tensor name -> C expression of its data pointer
        for i, t in enumerate(m.inputs + m.outputs):
            var = "arg%d" % i
            self.w("  void* %s = ((DLTensor*)args[%d].v_handle)->data;" % (var, i))
            names[t.name] = var
        argi = len(m.inputs) + len(m.outputs)
        for var, kind, _ in m.pools():
            self.w("  uint8_t* %s = (uint8_t*)((DLTensor*)args[%d].v_handle)->data;" % (var, argi))
            argi += 1
            for t in (m.constants if kind == "const" else m.intermediates):
                names[t.name] = "(void*)(%s + %d)" % (var, t.offset)
        if not m.usmp:
            for c in m.constants:
                names[c.name] = "(void*)aotgen_const_%d" % c.index
        if self.uses_workspace:
            # every intermediate comes from the runtime's workspace allocator, each run
            for k, (nbytes, dt) in enumerate(m.storages):
                sid = "sid_%d" % (k + 1)
                self.w("  void* %s = %s(1, dev_id, (uint64_t)%d, %d, %d);"
                       % (sid, self.rt("TVMBackendAllocWorkspace"), nbytes, dt.code, dt.bits),
                       "  if (%s == NULL) {" % sid, "    return -1;", "  }")
                # TVM marks the result 64-byte aligned and may use aligned vector ops on it.
                self.w("  if (((uintptr_t)%s & 63) != 0) {" % sid)
                if self.validate:
                    self.w("    " + self.set_error("%s: workspace %s is not 64-byte aligned" % (fn, sid)))
                self.w("    return -1;", "  }")
            for t in m.intermediates:
                names[t.name] = "sid_%d" % (t.storage + 1)
        for node in m.nodes:
            self.emit_call(node, names)
        if self.uses_workspace:
            for k in reversed(range(len(m.storages))):
                self.w("  if (%s(1, dev_id, sid_%d) != 0) {" % (self.rt("TVMBackendFreeWorkspace"), k + 1),
                       "    return -1;", "  }")
        self.w("  (void)dev_id;", "  return 0;", "}", "")

    def emit_call(self, node, names):
        """A C-packed call as TVM emits it: DLTensors, TVMValues and type codes on the stack."""
        tensors = node.args + [node.out]
        n = len(tensors)
        self.w("  {  /* %s */" % node.symbol)
        for i, t in enumerate(tensors):
            self.w("    int64_t shape_%d[%d] = {%s};" % (i, max(1, len(t.shape)),
                                                    ", ".join(str(d) for d in t.shape) or "0"))
        self.w("    DLTensor tensors[%d];" % n, "    TVMValue values[%d];" % n,
               "    int32_t tcodes[%d];" % n, "    TVMValue ret_value;", "    int32_t ret_tcode = 4;")
        for i, t in enumerate(tensors):
            self.w("    tensors[%d].data = %s;" % (i, names[t.name]),
                   "    tensors[%d].device.device_type = 1;" % i,
                   "    tensors[%d].device.device_id = dev_id;" % i,
                   "    tensors[%d].ndim = %d;" % (i, len(t.shape)),
                   "    tensors[%d].dtype.code = %d;" % (i, t.dtype.code),
                   "    tensors[%d].dtype.bits = %d;" % (i, t.dtype.bits),
                   "    tensors[%d].dtype.lanes = 1;" % i,
                   "    tensors[%d].shape = shape_%d;" % (i, i),
                   "    tensors[%d].strides = NULL;" % i,
                   "    tensors[%d].byte_offset = 0;" % i,
                   "    values[%d].v_handle = &tensors[%d];" % (i, i),
                   "    tcodes[%d] = 7;" % i)
        self.w("    if (%s(values, tcodes, %d, &ret_value, &ret_tcode, NULL) != 0) {" % (node.symbol, n),
               "      return -1;", "    }", "  }")

    # -- metadata (ABI 7.1) -----------------------------------------------------------------------
    def tensor_infos(self, array, entries):
        """entries: [(name, shape, dtype)] -> static arrays like TVM's MetadataSerializer."""
        for i, (_, shape, _) in enumerate(entries):
            self.w("static const int64_t %s_%d_shape[%d] = {%s};" % (
                array, i, max(1, len(shape)), ", ".join("%dL" % d for d in shape) or "0"))
        self.w("static const struct TVMTensorInfo %s[%d] = {" % (array, len(entries)))
        for i, (name, shape, dt) in enumerate(entries):
            self.w("  {%s, %s_%d_shape, %dL, {%d, %d, 1}}," % (c_string(name), array, i, len(shape), dt.code, dt.bits))
        self.w("};")

    def emit_metadata(self):
        m = self.m
        self.tensor_infos("kTvmgenMetadata_inputs",
                          [(san, t.shape, t.dtype) for san, t in zip(m.sanitized_inputs, m.inputs)])
        self.tensor_infos("kTvmgenMetadata_outputs",
                          [("output%d" % t.index, t.shape, t.dtype) for t in m.outputs])
        ws = [(var, [size], _UINT8) for var, kind, size in m.pools() if kind == "workspace"]
        self.tensor_infos("kTvmgenMetadata_workspace_pools", ws)
        consts = m.constants if m.has_const_pool else []
        for c in consts:
            blob = binfmt.ndarray(c.dtype, c.shape, c.raw)
            self.w("static const unsigned char kTvmgenMetadata_constant_%d[%d] =" % (c.index, len(blob)))
            self.w(*bytes_literal(blob))
            self.w(";")
            c.ndarray_len = len(blob)
        self.w("static const struct TVMConstantInfo kTvmgenMetadata_constant_pools[%d] = {" % len(consts))
        for c in consts:
            self.w("  {%s, %dL, %dL, kTvmgenMetadata_constant_%d}," % (c_string(c.name), c.offset, c.ndarray_len, c.index))
        self.w("};")
        self.w("static const struct TVMMetadata kTvmgenMetadata[1] = {{",
               "  1L /* version */,",
               "  kTvmgenMetadata_inputs, %dL," % len(m.inputs),
               "  kTvmgenMetadata_outputs, %dL," % len(m.outputs),
               "  kTvmgenMetadata_workspace_pools, %dL," % len(ws),
               "  kTvmgenMetadata_constant_pools, %dL," % len(consts),
               "  %s /* mod_name */" % c_string(m.mangled),
               "}};", "")
        # A global symbol even in a system library, where TVM does not register it (ABI.md 4).
        self.w("int32_t get_c_metadata(%s) {" % PACKED_PARAMS)
        self.w("  (void)args; (void)type_codes; (void)num_args; (void)resource_handle;",
               "  out_ret_value[0].v_handle = (void*)kTvmgenMetadata;",
               "  out_ret_tcode[0] = 3;  /* kTVMOpaqueHandle */",
               "  return 0;", "}", "")

    # -- module blob (ABI 5) ------------------------------------------------------------------------
    def emit_blob(self):
        m = self.m
        params = [(p.name, p.dtype, p.shape, p.raw) for p in m.params]
        blob = binfmt.module_blob(params, m.mod_name)
        storage = "static " if self.syslib else "AOTGEN_EXPORT "
        self.w("%sconst unsigned char __tvm_dev_mblob[%d] =" % (storage, len(blob)))
        self.w(*bytes_literal(blob))
        self.w(";", "")

    # -- system library registration ----------------------------------------------------------------
    def emit_syslib_ctor(self):
        m = self.m
        p = m.prefix
        self.w("__attribute__((constructor)) static void aotgen_register_%s(void) {" % m.mangled)
        # As TVM registers them: the operators and the runner, the module context and the blob;
        # never get_c_metadata, which the runtime has to find among the process's symbols.
        for fn in [n.symbol for n in m.nodes] + [m.entry]:
            self.w("  TVMBackendRegisterSystemLibSymbol(%s, (void*)&%s);" % (c_string(p + fn), fn))
        self.w("  TVMBackendRegisterSystemLibSymbol(%s, (void*)&__tvm_module_ctx);" % c_string(p + "__tvm_module_ctx"),
               "  TVMBackendRegisterSystemLibSymbol(%s, (void*)__tvm_dev_mblob);" % c_string(p + "__tvm_dev_mblob"),
               "}")


# float16 <-> float for the `c` flavour, independent of the runtime: the compiler's _Float16 where it
# has one, else the same IEEE conversions (round to nearest even, quiet NaN) in portable C.
# AOTGEN_SOFT_HALF forces the portable path (test_aotgen compares the two).
C_HALF_HELPERS = r"""#include <string.h>
#if defined(__FLT16_MANT_DIG__) && !defined(AOTGEN_SOFT_HALF)
static inline float aotgen_h2f(uint16_t x) { _Float16 h; memcpy(&h, &x, 2); return (float)h; }
static inline uint16_t aotgen_f2h(float f) { _Float16 h = (_Float16)f; uint16_t x; memcpy(&x, &h, 2); return x; }
#else
static inline float aotgen_h2f(uint16_t h) {
  uint32_t sign = (uint32_t)(h & 0x8000u) << 16, exp = (h >> 10) & 0x1fu, man = h & 0x3ffu, bits;
  float f;
  if (exp == 0x1fu) {
    bits = sign | 0x7f800000u | (man << 13) | (man ? 0x400000u : 0u); /* NaNs come back quiet */
  } else if (exp != 0) {
    bits = sign | ((exp + 112u) << 23) | (man << 13);
  } else {
    f = (float)man * 5.9604644775390625e-8f; /* man * 2^-24, exact */
    memcpy(&bits, &f, 4);
    bits |= sign;
  }
  memcpy(&f, &bits, 4);
  return f;
}
static inline uint16_t aotgen_f2h(float f) {
  uint32_t x, a, i;
  float scaled, rest;
  memcpy(&x, &f, 4);
  uint16_t sign = (uint16_t)((x >> 16) & 0x8000u);
  a = x & 0x7fffffffu;
  if (a > 0x7f800000u) return (uint16_t)(sign | 0x7e00u | ((a >> 13) & 0x3ffu)); /* NaN, quieted */
  if (a >= 0x477ff000u) return (uint16_t)(sign | 0x7c00u);                      /* >= 65520: inf */
  if (a >= 0x38800000u) {                                                       /* normal half */
    a += 0xfffu + ((a >> 13) & 1u);                                             /* round to nearest even */
    return (uint16_t)(sign | ((a - 0x38000000u) >> 13));
  }
  memcpy(&scaled, &a, 4);
  scaled *= 16777216.0f; /* subnormal half: units of 2^-24, exact */
  i = (uint32_t)scaled;
  rest = scaled - (float)i;
  if (rest > 0.5f || (rest == 0.5f && (i & 1u))) ++i;
  return (uint16_t)(sign | i);
}
#endif
#define AOTGEN_H2F(x) aotgen_h2f(x)
#define AOTGEN_F2H(x) aotgen_f2h(x)"""


class _U8:
    name, code, bits = "uint8", 1, 8


_UINT8 = _U8()


def generate(model):
    return Emitter(model).emit()
