#!/usr/bin/env python3
"""Prints which src/ folder includes which and fails (exit 1) on an upward or sideways include.

Usage: include_graph.py [repo_root]

A folder may include itself and folders of strictly lower rank; folders of equal rank are
siblings and must not include each other. The ranks follow what the code needs:
  - backend/ is what generated code calls (workspace, parallel launch, float16): it needs only
    base/, and module/ (library loading fills the context pointers) and aot/ need it.
  - profiling/ and contrib/ are plug-ins over packed functions: they need ffi/ (and may grow to
    need ndarray/), nothing below them includes them; the built-in globals list in c_api/ does.
  - c_api/ is the top of the library; tools/ sits on top of everything.
"""
import pathlib
import re
import sys

RANK = {
    "base": 0,
    "backend": 1,
    "ffi": 2,
    "ndarray": 3,
    "module": 4,
    "aot": 5,
    "profiling": 6,
    "contrib": 6,
    "c_api": 7,
    "tools": 8,
}
# Known exceptions (from, to): none. Add only with a comment saying why it cannot be fixed.
EXCEPTIONS = set()

INCLUDE = re.compile(r'^\s*#\s*include\s+"([a-z_]+)/')


def scan(root):
    """Returns {(from_folder, to_folder): [file:line, ...]} for every quoted folder include."""
    edges = {}
    dirs = [p for p in (root / "src").iterdir() if p.is_dir()]
    dirs += [root / "tools"] if (root / "tools").is_dir() else []
    for d in dirs:
        src = "tools" if d.name == "tools" else d.name
        for f in sorted(d.rglob("*")):
            if f.suffix not in (".h", ".cc", ".cpp", ".c", ".hpp"):
                continue
            for n, line in enumerate(f.read_text(errors="replace").splitlines(), 1):
                m = INCLUDE.match(line)
                if m and m.group(1) in RANK and m.group(1) != src:
                    where = f"{f.relative_to(root)}:{n}"
                    edges.setdefault((src, m.group(1)), []).append(where)
    return edges


def main():
    root = pathlib.Path(sys.argv[1] if len(sys.argv) > 1 else pathlib.Path(__file__).parents[1])
    edges = scan(root)
    unknown = {d.name for d in (root / "src").iterdir() if d.is_dir()} - RANK.keys()
    bad = []
    for folder in sorted(RANK, key=lambda k: (RANK[k], k)):
        deps = sorted((t for (s, t) in edges if s == folder), key=lambda k: (RANK[k], k))
        print(f"{folder:10} (rank {RANK[folder]}) -> {', '.join(deps) or '-'}")
    for (s, t), where in sorted(edges.items()):
        if RANK[t] >= RANK[s] and (s, t) not in EXCEPTIONS:
            bad.append(f"upward include {s}/ -> {t}/ at {', '.join(where)}")
    for name in sorted(unknown):
        bad.append(f"src/{name}/ has no rank: add it to RANK in {pathlib.Path(__file__).name}")
    for b in bad:
        print("error:", b, file=sys.stderr)
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
