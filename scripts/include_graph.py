#!/usr/bin/env python3
"""Prints which src/ folder includes which and fails (exit 1) on an upward or sideways include.

Usage: include_graph.py [repo_root]

Also fails on a public header included by a folder below its owner (PUBLIC_OWNER), and on a
getenv call anywhere in src/ but module/runtime_config.cc (the environment is read once per load,
where the load starts).

A folder may include itself and folders of strictly lower rank; folders of equal rank are
siblings and must not include each other. The ranks follow what the code needs:
  - memory/ is memory protection (reserves, guards, zeroed memory): it needs only base/.
  - backend/ is what generated code calls (workspace, parallel launch, float16): it needs only
    base/ and memory/, and module/ (library loading fills the context pointers) and aot/ need it.
  - device/ is the device layer: one interface, a driver per device type (CPU, OpenCL, Vulkan); it needs
    base/ and ffi/ (attribute values), and ndarray/ copies and allocates through it.
  - device_module/ holds the device code modules of the blob (opencl, vulkan: kernels and their launch),
    module nodes over device/'s drivers; the executor prepares them for its device.
  - constant_cache/ shares constant pools through files; aot/ (the loaded model) uses it.
  - executor/ is the one executor and what it runs (a planned model: memory plan and calls), the
    interface and shared packed functions, the arena; aot/ and graph/ each build their exports
    into a planned model, and profiling/ times any executor's operators through it.
  - profiling/ and contrib/ are plug-ins over packed functions: they need ffi/ (and may grow to
    need ndarray/), nothing below them includes them; the built-in globals list in c_api/ does.
  - module/ also holds the front doors that load modules (module_load.cc) and the one place that
    reads the environment (runtime_config.cc), so aotrt/module.h is implemented where it is owned.
  - api/ is the C++ API's Model and cache front doors; c_api/ is the top of the library (the C
    entry points and the lists of built-ins) and may use api/; tools/ sits on top of everything.
"""
import pathlib
import re
import sys

RANK = {
    "base": 0,
    "memory": 1,
    "backend": 2,
    "ffi": 2,
    "device": 2.5,
    "ndarray": 3,
    "module": 4,
    "device_module": 4.5,
    "executor": 5,
    "constant_cache": 6,
    "aot": 7,
    "profiling": 8,
    "contrib": 8,
    "graph": 9,
    "vm": 9,  # the Relay VM: a bytecode interpreter over module/'s kernel library
    "api": 10,
    "c_api": 11,
    "tools": 12,
}
# Known exceptions (from, to). Add only with a comment saying why it cannot be fixed.
EXCEPTIONS = {
}

# The folder that owns (implements) each public header: a src/ folder including a public header
# depends on its owner as much as on a quoted "folder/x.h", so `#include "aotrt/model.h"` from
# aot/ is an upward include (model.h is the C++ API, implemented in api/).
PUBLIC_OWNER = {
    "aotrt/export.h": "base", "aotrt/error.h": "base", "aotrt/dtype.h": "base", "aotrt/half.h": "base",
    "aotrt/version.h": "base",
    "tvm/runtime/c_runtime_api.h": "base", "tvm/runtime/c_backend_api.h": "base",
    "tvm/runtime/metadata_types.h": "base",
    "aotrt/object.h": "ffi", "aotrt/packed_func.h": "ffi", "aotrt/packed_func_call.h": "ffi",
    "aotrt/container.h": "ffi",
    "aotrt/ndarray.h": "ndarray",
    "aotrt/module.h": "module", "aotrt/options.h": "module",
    "aotrt/model_info.h": "executor", "aotrt/cache.h": "constant_cache",
    "aotrt/profiling.h": "profiling",
    "aotrt/model.h": "api",
    "aotrt/vm.h": "vm",
    "aotrt/c_api.h": "c_api",
    "aotrt/npy.h": "tools",  # the .npy/.npz helpers: tools/npy.cc, npz.cc (library aotrt_npy)
}

# The environment is read in one place, where a load starts (module/runtime_config.cc): getenv
# anywhere else in src/ is configuration travelling out of band.
GETENV = re.compile(r'\b(?:std::)?(?:secure_)?getenv\s*\(')
ENV_READER = pathlib.PurePosixPath("module/runtime_config.cc")

INCLUDE = re.compile(r'^\s*#\s*include\s+"([a-z_]+)/')
PUBLIC_INCLUDE = re.compile(r'^\s*#\s*include\s+[<"]((?:aotrt|tvm/runtime)/[a-z_]+\.h)[>"]')


def scan(root):
    """Returns {(from_folder, to_folder): [file:line, ...]} for every quoted folder include."""
    edges = {}
    dirs = [p for p in (root / "src").iterdir() if p.is_dir()]
    dirs += [root / "tools"] if (root / "tools").is_dir() else []
    # Public headers count as their owner's: one public header including another is an edge too.
    units = [(d, "tools" if d.name == "tools" else d.name) for d in dirs]
    for header, owner in PUBLIC_OWNER.items():
        if (root / "include" / header).is_file():
            units.append((root / "include" / header, owner))
    for d, src in units:
        for f in sorted(d.rglob("*")) if d.is_dir() else [d]:
            if f.suffix not in (".h", ".cc", ".cpp", ".c", ".hpp"):
                continue
            for n, line in enumerate(f.read_text(errors="replace").splitlines(), 1):
                where = f"{f.relative_to(root)}:{n}"
                m = INCLUDE.match(line)
                if m and m.group(1) in RANK and m.group(1) != src:
                    edges.setdefault((src, m.group(1)), []).append(where)
                m = PUBLIC_INCLUDE.match(line)
                if m:
                    owner = PUBLIC_OWNER.get(m.group(1))
                    if owner is None:
                        edges.setdefault((src, "?" + m.group(1)), []).append(where)
                    elif owner != src:
                        edges.setdefault((src, owner), []).append(f"{where} ({m.group(1)})")
    return edges


def main():
    root = pathlib.Path(sys.argv[1] if len(sys.argv) > 1 else pathlib.Path(__file__).parents[1])
    edges = scan(root)
    unknown = {d.name for d in (root / "src").iterdir() if d.is_dir()} - RANK.keys()
    bad = []
    for folder in sorted(RANK, key=lambda k: (RANK[k], k)):
        deps = sorted((t for (s, t) in edges if s == folder and t in RANK), key=lambda k: (RANK[k], k))
        print(f"{folder:10} (rank {RANK[folder]}) -> {', '.join(deps) or '-'}")
    for (s, t), where in sorted(edges.items()):
        if t.startswith("?"):
            bad.append(f"public header {t[1:]} (included at {', '.join(where)}) has no owner: add it to PUBLIC_OWNER")
            continue
        if RANK[t] >= RANK[s] and (s, t) not in EXCEPTIONS:
            bad.append(f"upward include {s}/ -> {t}/ at {', '.join(where)}")
    for f in sorted((root / "src").rglob("*")):
        if f.suffix in (".h", ".cc", ".cpp", ".c") and pathlib.PurePosixPath(f.relative_to(root / "src")) != ENV_READER:
            for n, line in enumerate(f.read_text(errors="replace").splitlines(), 1):
                if GETENV.search(line.split("//")[0]):
                    bad.append(f"getenv outside module/runtime_config.cc at {f.relative_to(root)}:{n}: read it there "
                               "and pass the value down")
    for name in sorted(unknown):
        bad.append(f"src/{name}/ has no rank: add it to RANK in {pathlib.Path(__file__).name}")
    for b in bad:
        print("error:", b, file=sys.stderr)
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
