"""Pure-Python evaluation of a Model, matching the C kernels bit for bit.

Values are flat row-major lists. Every float32 step is rounded like the C code does (products and
sums separately: the models are compiled with -ffp-contract=off). The inner loops of dense/matmul
are vectorised over output columns with array('f'), which rounds to float32 in C.
"""
import math
import operator
from array import array


def _round_vec(dtype, values):
    if dtype.is_float:
        if dtype.bits == 32:
            return array("f", values)
        if dtype.bits == 16:   # computed in float32, then rounded to float16 (as the C does)
            return [dtype.normalize(v) for v in array("f", values)]
        return list(values)
    return [dtype.normalize(v) for v in values]


def _elementwise(fn):
    def run(node, vals):
        dt = node.out.dtype
        return _round_vec(dt, map(fn, vals[0], vals[1]))
    return run


def _cast(node, vals):
    src, dst = node.args[0].dtype, node.out.dtype
    if dst.is_bool:
        return [1 if v != 0 else 0 for v in vals[0]]     # NaN != 0: true
    if src.is_float and not dst.is_float:
        return [dst.normalize(math.trunc(v)) for v in vals[0]]
    if dst.is_float:
        return _round_vec(dst, [float(v) for v in vals[0]])
    return [dst.normalize(v) for v in vals[0]]


def _greater(node, vals):
    return [1 if a > b else 0 for a, b in zip(vals[0], vals[1])]


def _relu(node, vals):
    return [v if v > 0 else type(v)(0) for v in vals[0]]


def _dense(node, vals):
    x, w = node.args[0], node.args[1]
    dt = node.out.dtype
    n, k = x.shape
    transpose = node.op.transpose_w
    m = w.shape[0] if transpose else w.shape[1]
    xv, wv = vals[0], vals[1]
    # rows[r] = [w(j, r) for j in columns]
    if transpose:
        rows = [wv[r::k] for r in range(k)]
    else:
        rows = [wv[r * m:(r + 1) * m] for r in range(k)]
    out = []
    for i in range(n):
        acc = _round_vec(dt, [0] * m)
        for r in range(k):
            xi = xv[i * k + r]
            prods = _round_vec(dt, [xi * wj for wj in rows[r]])
            acc = _round_vec(dt, map(operator.add, acc, prods))
        if len(vals) == 3:
            acc = _round_vec(dt, map(operator.add, acc, vals[2]))
        out.extend(acc)
    return out


def _argsort(node, vals):
    """Stable sort along the axis (Python's sort keeps equal keys in order, also with reverse)."""
    shape = node.args[0].shape
    axis = node.attrs.get("axis", -1) % len(shape)
    n = shape[axis]
    after = 1
    for d in shape[axis + 1:]:
        after *= d
    before = len(vals[0]) // (n * after)
    out = [0] * len(vals[0])
    descending = not node.attrs.get("is_ascend", True)
    for i in range(before):
        for j in range(after):
            line = [vals[0][(i * n + k) * after + j] for k in range(n)]
            order = sorted(range(n), key=lambda k: line[k], reverse=descending)
            for k, idx in enumerate(order):
                out[(i * n + k) * after + j] = idx
    return _round_vec(node.out.dtype, [float(v) for v in out]) if node.out.dtype.is_float else out


def _argmax(node, vals):
    c = node.args[0].shape[-1]
    v = vals[0]
    out = []
    for i in range(len(v) // c):
        row = v[i * c:(i + 1) * c]
        best = 0
        for j in range(1, c):
            if row[j] > row[best]:
                best = j
        out.append(best)
    return out


def _clip_bias(node, acc, vals):
    """The epilogue of a fused convolution: + bias, then clip (float32 each)."""
    if len(vals) == 3:
        acc = array("f", map(operator.add, acc, vals[2]))
    clip = node.attrs.get("clip")
    if clip is not None:
        lo, hi = array("f", clip)
        acc = array("f", (lo if v < lo else hi if v > hi else v for v in acc))
    return acc


def _conv2d(node, vals):
    """Vectorised over output channels like the C kernel's inner loop."""
    g = node.op.geometry(node.args, node.attrs)
    xv, wv = vals[0], vals[1]
    co, ci = g["co"], g["ci"]
    depthwise = node.op.depthwise
    # one weight row (over output channels) per tap: [kh][kw] for depthwise, [kh][kw][ci] otherwise
    rows = [wv[i * co:(i + 1) * co] for i in range(len(wv) // co)]
    out = []
    for n in range(g["n"]):
        for oh in range(g["oh"]):
            for ow in range(g["ow"]):
                acc = array("f", [0.0] * co)
                for kh in range(g["kh"]):
                    ih = oh * g["sh"] + kh - g["pt"]
                    if not 0 <= ih < g["h"]:
                        continue
                    for kw in range(g["kw"]):
                        iw = ow * g["sw"] + kw - g["pl"]
                        if not 0 <= iw < g["w"]:
                            continue
                        base = ((n * g["h"] + ih) * g["w"] + iw) * ci
                        tap = kh * g["kw"] + kw
                        if depthwise:
                            prods = array("f", map(operator.mul, xv[base:base + ci], rows[tap]))
                            acc = array("f", map(operator.add, acc, prods))
                            continue
                        for c in range(ci):
                            x = xv[base + c]
                            prods = array("f", [x * w for w in rows[tap * ci + c]])
                            acc = array("f", map(operator.add, acc, prods))
                out.extend(_clip_bias(node, acc, vals))
    return out


def _global_avg_pool2d(node, vals):
    n, h, w, c = node.args[0].shape
    xv = vals[0]
    out = []
    for b in range(n):
        acc = array("f", [0.0] * c)
        for i in range(h * w):
            base = (b * h * w + i) * c
            acc = array("f", map(operator.add, acc, xv[base:base + c]))
        out.extend(array("f", (v / float(h * w) for v in acc)))
    return out


KERNELS = {
    "add": _elementwise(operator.add),
    "subtract": _elementwise(operator.sub),
    "multiply": _elementwise(operator.mul),
    "greater": _greater,
    "cast": _cast,
    "relu": _relu,
    "dense": _dense,
    "matmul": _dense,
    "argmax": _argmax,
    "argsort": _argsort,
    "conv2d": _conv2d,
    "depthwise_conv2d": _conv2d,
    "global_avg_pool2d": _global_avg_pool2d,
}


class ModelFails(Exception):
    pass


def run(model, input_raw=None):
    """Evaluate the model; returns the raw bytes of each output. input_raw: {name: bytes}."""
    values = {}
    for t in model.inputs:
        raw = (input_raw or {}).get(t.name, t.raw)
        values[t.name] = t.dtype.unpack(raw)
    for c in model.constants:
        values[c.name] = c.dtype.unpack(c.raw)
    for node in model.nodes:
        if node.op.name == "fail":
            raise ModelFails(node.attrs["message"])
        result = KERNELS[node.op.name](node, [values[a.name] for a in node.args])
        values[node.out.name] = result
    return [t.dtype.pack(list(values[t.name])) for t in model.outputs]
