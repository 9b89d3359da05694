#!/usr/bin/env python3
"""Fails (exit 1) when a function declared in a C ABI header has no doc comment right above it.

Usage: check_header_comments.py header.h...

A declaration is a line starting with TVM_DLL. The line just above it must close a `/*! ... */`
comment or be a `//` comment: a blank line or a `/* ---- section ---- */` marker does not count.
"""
import re
import sys

DECL = re.compile(r"^\s*TVM_DLL\b.*?(\w+)\s*\(")


def doc_comment_ends_at(lines, i):
    """Whether lines[i] ends a doc comment: `//`, or `*/` of a block opened with `/*!`."""
    if i < 0:
        return False
    line = lines[i].strip()
    if line.startswith("//"):
        return True
    if not line.endswith("*/"):
        return False
    for j in range(i, -1, -1):
        if "/*" in lines[j]:
            return "/*!" in lines[j]
    return False


def main(paths):
    missing = []
    count = 0
    for path in paths:
        lines = open(path, encoding="utf-8").read().splitlines()
        for i, line in enumerate(lines):
            m = DECL.match(line)
            if not m:
                continue
            count += 1
            if not doc_comment_ends_at(lines, i - 1):
                missing.append(f"{path}:{i + 1}: {m.group(1)} has no comment")
    for m in missing:
        print("error:", m, file=sys.stderr)
    print(f"{count} declarations, {len(missing)} without a comment")
    return 1 if missing or count == 0 else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
