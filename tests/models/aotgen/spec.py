"""JSON model spec -> Model graph (tensors, ops, pools). Format: see ../README.md."""
import json
import os
import re
from dataclasses import dataclass, field
from typing import List, Optional

from . import data, dtypes, ops
from .ops import SpecError

USMP_ALIGN = 16          # byte alignment of offsets inside USMP pools (TVM's default)


@dataclass
class Tensor:
    name: str                    # spec name (inputs: original, unsanitized)
    shape: List[int]
    dtype: dtypes.DType
    kind: str                    # "input" | "const" | "intermediate" | "output"
    index: int = 0               # position among inputs / outputs / constants / intermediates
    raw: Optional[bytes] = None  # contents (inputs: test vector, constants/params: value)
    offset: int = 0              # USMP pool offset
    storage: int = -1            # without USMP: the workspace block (sid) an intermediate lives in

    @property
    def size(self):
        return data.count_of(self.shape)

    @property
    def nbytes(self):
        return self.size * self.dtype.itemsize


@dataclass
class OpNode:
    op: ops.Op
    args: List[Tensor]
    out: Tensor
    attrs: dict
    base: str = ""               # operator part of the symbol, e.g. "nn_dense_add"
    symbol: str = ""             # C function name


@dataclass
class Model:
    name: str
    mod_name: str
    flavour: str                 # "c" | "llvm"
    system_lib: bool
    prefix: str                  # system-lib symbol prefix
    usmp: bool
    context_vars: str            # llvm: "all" | "used"
    inputs: List[Tensor]
    outputs: List[Tensor]
    constants: List[Tensor]
    intermediates: List[Tensor]
    nodes: List[OpNode]
    params: List[Tensor] = field(default_factory=list)   # inputs whose value the factory supplies
    sanitized_inputs: List[str] = field(default_factory=list)
    expect_error: Optional[str] = None
    expect_load_error: Optional[str] = None   # the library must be refused at load (no reference run)

    @property
    def mangled(self):
        return "tvmgen_" + self.mod_name if self.mod_name else "tvmgen"

    @property
    def entry(self):
        return self.mangled + "___tvm_main__"

    @property
    def const_pool_size(self):
        return max((c.offset + c.nbytes for c in self.constants), default=0)

    @property
    def ws_pool_size(self):
        return max((t.offset + t.nbytes for t in self.intermediates), default=0)

    @property
    def storages(self):
        """Without USMP: the workspace blocks of the entry, [(bytes, dtype of its first tensor)]."""
        blocks = {}
        for t in self.intermediates:
            size, dt = blocks.get(t.storage, (0, t.dtype))
            blocks[t.storage] = (max(size, t.nbytes), dt)
        return [blocks[b] for b in sorted(blocks)]

    @property
    def has_const_pool(self):
        return self.usmp and bool(self.constants)

    @property
    def has_ws_pool(self):
        return self.usmp and bool(self.intermediates)

    def pools(self):
        """USMP pool arguments of the entry, sorted by pool name: [(var name, kind, size)]."""
        pools = []
        if self.has_const_pool:
            pools.append(("global_const_workspace", "const", self.const_pool_size))
        if self.has_ws_pool:
            pools.append(("global_workspace", "workspace", self.ws_pool_size))
        pools.sort()
        return [("%s_%d_var" % (name, k), kind, size) for k, (name, kind, size) in enumerate(pools)]


def sanitize(name):
    """TVM SanitizeName: every non-alphanumeric (C locale) character becomes '_'."""
    if not name:
        raise SpecError("Name is empty")
    return "".join(c if c.isascii() and c.isalnum() else "_" for c in name)


def _align(n, a):
    return (n + a - 1) // a * a


def _lifetimes(nodes, intermediates):
    """{name: (index of the op that writes it, index of the last op that reads it)}."""
    first, last = {}, {}
    for i, n in enumerate(nodes):
        for a in n.args:
            last[a.name] = i
        first[n.out.name] = i
    return {t.name: (first[t.name], last.get(t.name, first[t.name])) for t in intermediates}


def _share_storage(nodes, intermediates):
    """Workspace blocks shared between intermediates whose lifetimes do not overlap, like the
    storage reuse of TVM's memory planning without USMP: each result takes the smallest free block
    that holds it, else grows the largest free one, else gets a new block."""
    life = _lifetimes(nodes, intermediates)
    sizes, holder = [], {}          # block sizes; block -> the tensor now in it
    for t in sorted(intermediates, key=lambda t: life[t.name][0]):
        start = life[t.name][0]
        free = [b for b in range(len(sizes)) if holder.get(b) is None or life[holder[b].name][1] < start]
        fits = [b for b in free if sizes[b] >= t.nbytes]
        if fits:
            b = min(fits, key=lambda b: (sizes[b], b))
        elif free:
            b = max(free, key=lambda b: (sizes[b], -b))
            sizes[b] = t.nbytes
        else:
            b = len(sizes)
            sizes.append(t.nbytes)
        holder[b] = t
        t.storage = b


def _plan_greedy_by_size(nodes, intermediates):
    """Workspace offsets that reuse memory, like TVM's USMP greedy_by_size: buffers largest first,
    each at the lowest aligned offset that overlaps no placed buffer whose lifetime (from the op
    that writes it to the last op that reads it) overlaps its own."""
    life = _lifetimes(nodes, intermediates)
    placed = []
    for t in sorted(intermediates, key=lambda t: (-t.nbytes, t.index)):
        lo, hi = life[t.name]
        busy = sorted((p.offset, p.offset + p.nbytes) for p in placed
                      if life[p.name][0] <= hi and lo <= life[p.name][1])
        offset = 0
        for start, end in busy:
            if offset + t.nbytes <= start:
                break
            offset = max(offset, _align(end, USMP_ALIGN))
        t.offset = offset
        placed.append(t)


def _tensor_decl(entry, what):
    try:
        return list(entry["shape"]), dtypes.get(entry["dtype"])
    except KeyError as e:
        raise SpecError("%s needs %s" % (what, e)) from None


def _check_parallel(nodes):
    """attr "parallel": T runs a dense/matmul's rows as T tasks through TVMBackendParallelLaunch."""
    for n in nodes:
        t = n.attrs.get("parallel")
        if t is None:
            continue
        if n.op.name not in ("dense", "matmul"):
            raise SpecError("op %s: parallel is only modelled for dense and matmul" % n.op.name)
        if type(t) is not int or not 1 <= t <= 64:
            raise SpecError("op %s: parallel must be a number of tasks in [1, 64], got %r" % (n.op.name, t))
        if n.attrs.get("overrun"):
            raise SpecError("op %s: parallel and overrun do not combine" % n.op.name)


def _check_overruns(nodes, usmp, intermediates):
    """attr "overrun": N makes the operator store N bytes past its result's buffer (issue 10: a
    vector store past a planned buffer). Only where that buffer is runtime memory with nothing of
    the model after it: a TVMBackendAllocWorkspace block, or the last buffer of the USMP pool."""
    ends = max((t.offset + t.nbytes for t in intermediates), default=0)
    for n in nodes:
        k = n.attrs.get("overrun")
        if k is None:
            continue
        if not isinstance(k, int) or isinstance(k, bool) or k <= 0:
            raise SpecError("op %s: overrun must be a positive number of bytes" % n.op.name)
        if n.out.kind != "intermediate" or n.op.name in ("fail", "argsort"):
            raise SpecError("op %s: overrun needs a computed intermediate result (outputs are caller memory)"
                            % n.op.name)
        if usmp and n.out.offset + n.out.nbytes != ends:
            raise SpecError("op %s: with usmp, overrun needs the result at the end of the workspace pool "
                            "(else it overwrites another planned buffer)" % n.op.name)


def load_file(path):
    with open(path) as f:
        spec = json.load(f)
    name = spec.get("name") or os.path.splitext(os.path.basename(path))[0]
    return build(spec, name, os.path.dirname(os.path.abspath(path)))


def build(spec, name, base_dir="."):
    mod_name = spec.get("mod_name", "default")
    if not re.fullmatch(r"[A-Za-z0-9_]*", mod_name):
        raise SpecError("mod_name %r must be usable in C identifiers" % mod_name)
    flavour = spec.get("flavour", "c")
    if flavour not in ("c", "llvm"):
        raise SpecError("flavour must be 'c' or 'llvm'")
    system_lib = bool(spec.get("system_lib", False))
    seed = spec.get("seed", 0)
    tensors = {}

    def add(t):
        if t.name in tensors:
            raise SpecError("tensor name %r defined twice" % t.name)
        tensors[t.name] = t

    inputs = []
    param_specs = spec.get("params", {})
    for i, entry in enumerate(spec.get("inputs", [])):
        shape, dt = _tensor_decl(entry, "input %d" % i)
        t = Tensor(entry["name"], shape, dt, "input", i)
        source = param_specs.get(t.name, entry.get("test_data", {}))
        t.raw = data.load(source, dt, shape, "%s:input:%s" % (seed, t.name), base_dir)
        inputs.append(t)
        add(t)
    sanitized = [sanitize(t.name) for t in inputs]
    params = []
    for pname in param_specs:
        if pname not in tensors:
            raise SpecError("param %r is not an input (the executor would reject it)" % pname)
        params.append(tensors[pname])

    constants = []
    for cname, entry in spec.get("constants", {}).items():
        shape, dt = _tensor_decl(entry, "constant %s" % cname)
        t = Tensor(cname, shape, dt, "const", len(constants))
        t.raw = data.load(entry, dt, shape, "%s:const:%s" % (seed, cname), base_dir)
        constants.append(t)
        add(t)

    output_names = spec.get("outputs", [])
    nodes = []
    for entry in spec.get("ops", []):
        op = ops.get(entry.get("op"))
        args = []
        for a in entry.get("args", []):
            if a not in tensors:
                raise SpecError("op %s: unknown argument %r" % (op.name, a))
            args.append(tensors[a])
        op.check_arity(args)
        attrs = {k: v for k, v in entry.items() if k not in ("op", "args", "out", "fused_name")}
        shape, dt = op.infer(args, attrs)
        out_name = entry.get("out")
        if not out_name:
            raise SpecError("op %s needs 'out'" % op.name)
        kind = "output" if out_name in output_names else "intermediate"
        out = Tensor(out_name, list(shape), dt, kind)
        add(out)
        node = OpNode(op, args, out, attrs, base=entry.get("fused_name") or op.fused_name(args, attrs))
        nodes.append(node)

    outputs = []
    for i, oname in enumerate(output_names):
        t = tensors.get(oname)
        if t is None or t.kind != "output":
            raise SpecError("output %r must be the result of an op" % oname)
        if t in outputs:
            raise SpecError("output %r listed twice" % oname)
        t.index = i
        outputs.append(t)
    if not outputs:
        raise SpecError("model needs at least one output")

    intermediates = [n.out for n in nodes if n.out.kind == "intermediate"]
    for i, t in enumerate(intermediates):
        t.index = i

    usmp = bool(spec.get("usmp", False))
    offset = 0
    for c in constants:
        c.offset, offset = offset, _align(offset + c.nbytes, USMP_ALIGN)
    for t in intermediates:
        t.storage = t.index
    if spec.get("storage_reuse", False):
        if usmp:
            raise SpecError("storage_reuse is for models without usmp (see usmp_algorithm)")
        if any("overrun" in n.attrs for n in nodes):
            raise SpecError("overrun needs a workspace block of its own: not with storage_reuse")
        _share_storage(nodes, intermediates)
    algorithm = spec.get("usmp_algorithm", "sequential")
    if algorithm == "sequential":
        offset = 0
        for t in intermediates:
            t.offset, offset = offset, _align(offset + t.nbytes, USMP_ALIGN)
    elif algorithm == "greedy_by_size":
        _plan_greedy_by_size(nodes, intermediates)
    else:
        raise SpecError("usmp_algorithm must be 'sequential' or 'greedy_by_size', got %r" % (algorithm,))

    # Symbol names as TVM's NameSupply gives them: clashes get _1, _2, ...
    mangled = "tvmgen_" + mod_name if mod_name else "tvmgen"
    seen = {}
    for node in nodes:
        base = "%s_fused_%s" % (mangled, node.base)
        k = seen.get(base, 0)
        seen[base] = k + 1
        node.symbol = base if k == 0 else "%s_%d" % (base, k)

    _check_overruns(nodes, usmp, intermediates)
    _check_parallel(nodes)
    fails = [n for n in nodes if n.op.name == "fail"]
    model = Model(
        name=name, mod_name=mod_name, flavour=flavour, system_lib=system_lib,
        prefix=spec.get("system_lib_prefix", ""), usmp=usmp,
        context_vars=spec.get("context_vars", "all"),
        inputs=inputs, outputs=outputs, constants=constants, intermediates=intermediates,
        nodes=nodes, params=params, sanitized_inputs=sanitized,
        expect_error=spec.get("expect_error") or (fails[0].attrs["message"] if fails else None),
        expect_load_error=spec.get("expect_load_error"))
    if any(n.op.name == "call_extern" for n in nodes) and not model.expect_load_error:
        raise SpecError("call_extern is only for libraries that must fail to load: set 'expect_load_error'")
    if model.context_vars not in ("all", "used"):
        raise SpecError("context_vars must be 'all' or 'used'")
    return model
