"""Operators: argument checking, output shape/dtype inference and the C kernel of each op.

A kernel sees its arguments as typed pointers `p0..pN-1` and its result as `out`; all shapes are
static, so loops use literal bounds. The Python reference lives in reference.py.
"""
from . import dtypes


class SpecError(ValueError):
    pass


def _unsigned_wide(dt):
    return "uint%d_t" % max(32, dt.bits)


def load(dt, expr):
    """C expression for the value of element `expr`: float16 bits widen to float (AOTGEN_H2F is
    defined per flavour by emit_c)."""
    return "AOTGEN_H2F(%s)" % expr if dt.is_half else expr


def store(dt, expr):
    """C expression that turns a computed value into an element of dtype dt."""
    return "AOTGEN_F2H(%s)" % expr if dt.is_half else expr


def _arith(dt, a, op, b):
    """C expression for `a op b` in dtype dt; integer results wrap (no signed-overflow UB);
    float16 is computed in float and rounded once, as TVM's lowering does."""
    if dt.is_half:
        return store(dt, "%s %s %s" % (load(dt, a), op, load(dt, b)))
    if dt.is_float:
        return "%s %s %s" % (a, op, b)
    u = _unsigned_wide(dt)
    return "(%s)((%s)%s %s (%s)%s)" % (dt.ctype, u, a, op, u, b)


class Op:
    name = ""          # spec name
    min_args = max_args = 1

    def fused_name(self, args, attrs):
        return self.name

    def check_arity(self, args):
        if not self.min_args <= len(args) <= self.max_args:
            raise SpecError("%s takes %d..%d arguments, got %d" % (self.name, self.min_args, self.max_args, len(args)))

    def infer(self, args, attrs):
        raise NotImplementedError

    def kernel(self, args, out, attrs):
        raise NotImplementedError


class Elementwise(Op):
    min_args = max_args = 2
    symbol = "+"

    def infer(self, args, attrs):
        a, b = args
        if a.shape != b.shape or a.dtype != b.dtype:
            raise SpecError("%s needs equal shapes and dtypes, got %s %s and %s %s" % (
                self.name, a.shape, a.dtype.name, b.shape, b.dtype.name))
        if a.dtype.is_bool:
            raise SpecError("%s is not defined on bool" % self.name)
        return a.shape, self.result_dtype(a.dtype)

    def result_dtype(self, dt):
        return dt

    def kernel(self, args, out, attrs):
        n = args[0].size
        return ["for (int64_t i = 0; i < %d; ++i) {" % n,
                "  out[i] = %s;" % _arith(out.dtype, "p0[i]", self.symbol, "p1[i]"),
                "}"]


class Add(Elementwise):
    name, symbol = "add", "+"


class Subtract(Elementwise):
    name, symbol = "subtract", "-"


class Multiply(Elementwise):
    name, symbol = "multiply", "*"


class Greater(Elementwise):
    """a > b -> bool (false when either is NaN)."""
    name, symbol = "greater", ">"

    def result_dtype(self, dt):
        return dtypes.get("bool")

    def kernel(self, args, out, attrs):
        dt = args[0].dtype
        return ["for (int64_t i = 0; i < %d; ++i) {" % args[0].size,
                "  out[i] = (uint8_t)(%s > %s);" % (load(dt, "p0[i]"), load(dt, "p1[i]")),
                "}"]


class Cast(Op):
    name = "cast"

    def infer(self, args, attrs):
        if "dtype" not in attrs:
            raise SpecError("cast needs attribute 'dtype'")
        dst = dtypes.get(attrs["dtype"])
        if dst.is_half and args[0].dtype.bits == 64:
            raise SpecError("cast from a 64-bit type to float16 is not modelled (it would need __truncdfhf2)")
        return args[0].shape, dst

    def kernel(self, args, out, attrs):
        src, dst = args[0].dtype, out.dtype
        expr = load(src, "p0[i]")
        if dst.is_bool:
            expr = "%s != 0" % expr
        elif dst.is_half:
            return ["for (int64_t i = 0; i < %d; ++i) {" % args[0].size,
                    "  out[i] = %s;" % store(dst, "(float)%s" % expr),
                    "}"]
        elif src.is_float and not dst.is_float:
            expr = "(int64_t)%s" % expr  # truncate first: float -> unsigned of a negative is UB
        elif not src.is_float and not dst.is_float and dst.bits < src.bits:
            expr = "(%s)p0[i]" % _unsigned_wide(src)
        return ["for (int64_t i = 0; i < %d; ++i) {" % args[0].size,
                "  out[i] = (%s)%s;" % (dst.ctype, expr),
                "}"]


class Relu(Op):
    name = "relu"

    def fused_name(self, args, attrs):
        return "nn_relu"

    def infer(self, args, attrs):
        return args[0].shape, args[0].dtype

    def kernel(self, args, out, attrs):
        return ["for (int64_t i = 0; i < %d; ++i) {" % args[0].size,
                "  out[i] = %s > 0 ? p0[i] : (%s)0;" % (load(out.dtype, "p0[i]"), out.dtype.ctype),
                "}"]


class Dense(Op):
    """out[n, m] = sum_k x[n, k] * w[m, k] (+ bias[m]); accumulates in out_dtype, k ascending."""
    name = "dense"
    min_args, max_args = 2, 3
    transpose_w = True

    def fused_name(self, args, attrs):
        return "nn_dense_add" if len(args) == 3 else "nn_dense"

    def dims(self, args):
        x, w = args[0], args[1]
        if len(x.shape) != 2 or len(w.shape) != 2:
            raise SpecError("%s needs 2-D x and weight" % self.name)
        n, k = x.shape
        m, k2 = w.shape if self.transpose_w else (w.shape[1], w.shape[0])
        if k != k2:
            raise SpecError("%s: reduction sizes differ (%d vs %d)" % (self.name, k, k2))
        return n, k, m

    def infer(self, args, attrs):
        n, k, m = self.dims(args)
        out_dtype = dtypes.get(attrs.get("out_dtype", args[0].dtype.name))
        if any(a.dtype.is_half or a.dtype.is_bool for a in args) or out_dtype.is_half or out_dtype.is_bool:
            raise SpecError("%s is not modelled for float16 or bool" % self.name)
        if len(args) == 3 and (args[2].shape != [m] or args[2].dtype != out_dtype):
            raise SpecError("%s bias must be %s[%d]" % (self.name, out_dtype.name, m))
        return [n, m], out_dtype

    def kernel(self, args, out, attrs):
        n, k, m = self.dims(args)
        dt = out.dtype
        w_index = "j * %d + r" % k if self.transpose_w else "r * %d + j" % m
        prod = _arith(dt, "(%s)p0[i * %d + r]" % (dt.ctype, k), "*", "(%s)p1[%s]" % (dt.ctype, w_index))
        lines = ["for (int64_t i = 0; i < %d; ++i) {" % n,
                 "  for (int64_t j = 0; j < %d; ++j) {" % m,
                 "    %s acc = (%s)0;" % (dt.ctype, dt.ctype),
                 "    for (int64_t r = 0; r < %d; ++r) {" % k,
                 "      %s prod = %s;" % (dt.ctype, prod),
                 "      acc = %s;" % _arith(dt, "acc", "+", "prod"),
                 "    }"]
        if len(args) == 3:
            lines.append("    acc = %s;" % _arith(dt, "acc", "+", "p2[j]"))
        lines += ["    out[i * %d + j] = acc;" % m, "  }", "}"]
        return lines


class Matmul(Dense):
    """out[n, m] = sum_k x[n, k] * w[k, m] (weight not transposed)."""
    name = "matmul"
    max_args = 2
    transpose_w = False

    def fused_name(self, args, attrs):
        return "nn_matmul"


class Argmax(Op):
    """Index of the first maximum along the last axis; int32 result without that axis."""
    name = "argmax"

    def infer(self, args, attrs):
        if len(args[0].shape) < 1:
            raise SpecError("argmax needs at least one dimension")
        if args[0].dtype.is_half:
            raise SpecError("argmax is not modelled for float16")
        return args[0].shape[:-1], dtypes.get("int32")

    def kernel(self, args, out, attrs):
        c = args[0].shape[-1]
        rows = args[0].size // c
        return ["for (int64_t i = 0; i < %d; ++i) {" % rows,
                "  int32_t best = 0;",
                "  for (int32_t j = 1; j < %d; ++j) {" % c,
                "    if (p0[i * %d + j] > p0[i * %d + best]) best = j;" % (c, c),
                "  }",
                "  out[i] = best;",
                "}"]


class CallExtern(Op):
    """out[i] = function(x[i]) for float32 x: a call to a C function the library leaves undefined,
    as TVM's call_pure_extern lowers to. Only for libraries that must fail to load (the reference
    cannot evaluate arbitrary functions)."""
    name = "call_extern"

    def fused_name(self, args, attrs):
        return attrs["function"]

    def infer(self, args, attrs):
        if "function" not in attrs:
            raise SpecError("call_extern needs attribute 'function'")
        if args[0].dtype.name != "float32":
            raise SpecError("call_extern takes float32")
        return args[0].shape, args[0].dtype

    def kernel(self, args, out, attrs):
        return ["for (int64_t i = 0; i < %d; ++i) {" % args[0].size,
                "  out[i] = %s(p0[i]);" % attrs["function"],
                "}"]


class Fail(Op):
    """Sets the last error to attrs['message'] and returns -1 (see emit_c for the call)."""
    name = "fail"
    max_args = 8

    def infer(self, args, attrs):
        if "message" not in attrs:
            raise SpecError("fail needs attribute 'message'")
        return args[0].shape, args[0].dtype

    def kernel(self, args, out, attrs):
        return []          # emit_c writes the error call


class Argsort(Op):
    """Indices that sort x along attrs['axis'] (default -1), computed by the runtime: the operator
    looks up the global tvm.contrib.sort.argsort through TVMBackendGetFuncFromEnv and calls it with
    TVMFuncCall, as TVM's generated code does for sort/argsort/topk (see emit_c). With
    `is_ascend_as_bool`, is_ascend goes with type code 15 (kTVMArgBool), as TVM v0.18+ lowers it."""
    name = "argsort"
    function = "tvm.contrib.sort.argsort"

    def infer(self, args, attrs):
        if not args[0].shape:
            raise SpecError("argsort needs at least one dimension")
        axis = attrs.get("axis", -1)
        if not -len(args[0].shape) <= axis < len(args[0].shape):
            raise SpecError("argsort axis %d out of range" % axis)
        for flag in ("is_ascend", "is_ascend_as_bool"):
            if not isinstance(attrs.get(flag, False), bool):
                raise SpecError("argsort %s must be true or false, got %r" % (flag, attrs[flag]))
        return args[0].shape, dtypes.get(attrs.get("dtype", "int32"))

    def kernel(self, args, out, attrs):
        return []          # emit_c writes the environment call


def _pair(attrs, key, default):
    v = attrs.get(key, [default, default])
    if (not isinstance(v, list) or len(v) != 2 or
            not all(isinstance(x, int) and not isinstance(x, bool) for x in v)):
        raise SpecError("%s must be a list of two integers, got %r" % (key, v))
    return v


class Conv2D(Op):
    """NHWC convolution, weight HWIO [KH, KW, CI, CO] (+ bias[CO]), attrs `strides` [sh, sw] (1),
    `padding` [top, left, bottom, right] (0) and `clip` [lo, hi] (none): TVM's fused
    nn_conv2d_add_clip. float32; each output sums its taps kh, kw, ci ascending (taps in the
    padding are skipped), then adds the bias, then clips."""
    name = "conv2d"
    min_args, max_args = 2, 3
    depthwise = False

    def fused_name(self, args, attrs):
        return "nn_%s%s%s" % (self.name, "_add" if len(args) == 3 else "", "_clip" if "clip" in attrs else "")

    def geometry(self, args, attrs):
        x, w = args[0], args[1]
        if len(x.shape) != 4:
            raise SpecError("%s needs an NHWC input, got shape %s" % (self.name, x.shape))
        n, h, wd, ci = x.shape
        if self.depthwise:
            if len(w.shape) != 3 or w.shape[2] != ci:
                raise SpecError("%s weight must be [KH, KW, %d], got %s" % (self.name, ci, w.shape))
            kh, kw, co = w.shape[0], w.shape[1], ci
        else:
            if len(w.shape) != 4 or w.shape[2] != ci:
                raise SpecError("%s weight must be [KH, KW, %d, CO], got %s" % (self.name, ci, w.shape))
            kh, kw, co = w.shape[0], w.shape[1], w.shape[3]
        sh, sw = _pair(attrs, "strides", 1)
        pad = attrs.get("padding", [0, 0, 0, 0])
        if (not isinstance(pad, list) or len(pad) != 4 or
                not all(isinstance(p, int) and not isinstance(p, bool) and p >= 0 for p in pad)):
            raise SpecError("padding must be [top, left, bottom, right] (non-negative), got %r" % (pad,))
        if sh < 1 or sw < 1:
            raise SpecError("strides must be positive, got %r" % ([sh, sw],))
        oh = (h + pad[0] + pad[2] - kh) // sh + 1
        ow = (wd + pad[1] + pad[3] - kw) // sw + 1
        if oh < 1 or ow < 1:
            raise SpecError("%s: the kernel is larger than the padded input" % self.name)
        return dict(n=n, h=h, w=wd, ci=ci, kh=kh, kw=kw, co=co, sh=sh, sw=sw, pt=pad[0], pl=pad[1], oh=oh, ow=ow)

    def infer(self, args, attrs):
        if any(a.dtype.name != "float32" for a in args):
            raise SpecError("%s is modelled for float32 only" % self.name)
        g = self.geometry(args, attrs)
        if len(args) == 3 and args[2].shape != [g["co"]]:
            raise SpecError("%s bias must be float32[%d]" % (self.name, g["co"]))
        clip = attrs.get("clip")
        if clip is not None and (not isinstance(clip, list) or len(clip) != 2 or
                                 not all(isinstance(v, (int, float)) and not isinstance(v, bool) for v in clip) or
                                 clip[0] > clip[1]):
            raise SpecError("clip must be [lo, hi] with lo <= hi, got %r" % (clip,))
        return [g["n"], g["oh"], g["ow"], g["co"]], args[0].dtype

    def kernel(self, args, out, attrs):
        g = self.geometry(args, attrs)
        co = g["co"]
        if self.depthwise:
            taps = ["        const float* xr = p0 + ((n * %d + ih) * %d + iw) * %d;" % (g["h"], g["w"], co),
                    "        const float* wr = p1 + (kh * %d + kw) * %d;" % (g["kw"], co),
                    "        for (int64_t c = 0; c < %d; ++c) acc[c] = acc[c] + xr[c] * wr[c];" % co]
        else:
            taps = ["        for (int64_t ci = 0; ci < %d; ++ci) {" % g["ci"],
                    "          float xv = p0[((n * %d + ih) * %d + iw) * %d + ci];" % (g["h"], g["w"], g["ci"]),
                    "          const float* wr = p1 + ((kh * %d + kw) * %d + ci) * %d;" % (g["kw"], g["ci"], co),
                    "          for (int64_t c = 0; c < %d; ++c) acc[c] = acc[c] + xv * wr[c];" % co,
                    "        }"]
        lines = ["for (int64_t n = 0; n < %d; ++n) {" % g["n"],
                 "for (int64_t oh = 0; oh < %d; ++oh) {" % g["oh"],
                 "  for (int64_t ow = 0; ow < %d; ++ow) {" % g["ow"],
                 "    float acc[%d];" % co,
                 "    for (int64_t c = 0; c < %d; ++c) acc[c] = 0.0f;" % co,
                 "    for (int64_t kh = 0; kh < %d; ++kh) {" % g["kh"],
                 "      int64_t ih = oh * %d + kh - %d;" % (g["sh"], g["pt"]),
                 "      if (ih < 0 || ih >= %d) continue;" % g["h"],
                 "      for (int64_t kw = 0; kw < %d; ++kw) {" % g["kw"],
                 "        int64_t iw = ow * %d + kw - %d;" % (g["sw"], g["pl"]),
                 "        if (iw < 0 || iw >= %d) continue;" % g["w"]]
        lines += taps
        lines += ["      }", "    }",
                  "    float* o = out + ((n * %d + oh) * %d + ow) * %d;" % (g["oh"], g["ow"], co),
                  "    for (int64_t c = 0; c < %d; ++c) {" % co,
                  "      float v = acc[c];"]
        if len(args) == 3:
            lines.append("      v = v + p2[c];")
        if "clip" in attrs:
            lo, hi = attrs["clip"]
            lines += ["      v = v < %s ? %s : v;" % (_float_literal(lo), _float_literal(lo)),
                      "      v = v > %s ? %s : v;" % (_float_literal(hi), _float_literal(hi))]
        lines += ["      o[c] = v;", "    }", "  }", "}", "}"]
        return lines


class DepthwiseConv2D(Conv2D):
    """NHWC depthwise convolution, weight [KH, KW, C]: one filter per channel (see Conv2D)."""
    name = "depthwise_conv2d"
    depthwise = True


class GlobalAvgPool2D(Op):
    """NHWC [N, H, W, C] -> [N, C]: the sum over h, w ascending, divided by H * W (float32)."""
    name = "global_avg_pool2d"

    def fused_name(self, args, attrs):
        return "nn_global_avg_pool2d"

    def infer(self, args, attrs):
        x = args[0]
        if len(x.shape) != 4 or x.dtype.name != "float32":
            raise SpecError("global_avg_pool2d needs a float32 NHWC input, got %s %s" % (x.dtype.name, x.shape))
        return [x.shape[0], x.shape[3]], x.dtype

    def kernel(self, args, out, attrs):
        n, h, w, c = args[0].shape
        return ["for (int64_t n = 0; n < %d; ++n) {" % n,
                "  float acc[%d];" % c,
                "  for (int64_t c = 0; c < %d; ++c) acc[c] = 0.0f;" % c,
                "  for (int64_t i = 0; i < %d; ++i) {" % (h * w),
                "    const float* xr = p0 + (n * %d + i) * %d;" % (h * w, c),
                "    for (int64_t c = 0; c < %d; ++c) acc[c] = acc[c] + xr[c];" % c,
                "  }",
                "  for (int64_t c = 0; c < %d; ++c) out[n * %d + c] = acc[c] / %s;" % (c, c, _float_literal(h * w)),
                "}"]


def _float_literal(v):
    """A float32 C literal of v (exact for the values specs use: small integers and multiples of 1/8)."""
    return "%sf" % repr(float(v))


OPS = {op.name: op for op in (Add(), Subtract(), Multiply(), Greater(), Cast(), Relu(), Dense(), Matmul(), Argmax(),
                              Fail(), Argsort(), CallExtern(), Conv2D(), DepthwiseConv2D(),
                              GlobalAvgPool2D())}


def get(name):
    try:
        return OPS[name]
    except KeyError:
        raise SpecError("unknown op %r (known: %s)" % (name, ", ".join(OPS))) from None
