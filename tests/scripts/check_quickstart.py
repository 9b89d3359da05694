#!/usr/bin/env python3
"""scripts/quickstart.sh shows its build: the ~90 s first build must not run silently. The build
command's output is not thrown away, and a line announcing the build comes before it.
usage: check_quickstart.py REPO"""
import os
import re
import sys


def main(repo):
    path = os.path.join(repo, "scripts", "quickstart.sh")
    with open(path) as f:
        lines = [l.strip() for l in f]
    builds = [i for i, l in enumerate(lines) if re.match(r"cmake\s+--build\b", l)]
    problems = []
    if not builds:
        problems.append("no 'cmake --build' line")
    for i in builds:
        if re.search(r">\s*/dev/null|&>|2>&1\s*>", lines[i]):
            problems.append("line %d hides the build's progress: %s" % (i + 1, lines[i]))
        if not any(l.startswith("echo") and "build" in l for l in lines[max(0, i - 3):i]):
            problems.append("line %d: no echo announcing the build just before it" % (i + 1))
    for p in problems:
        print("FAIL: " + p, file=sys.stderr)
    print("%d passed, %d failed" % (0 if problems else 1, 1 if problems else 0))
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1]))
