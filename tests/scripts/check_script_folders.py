#!/usr/bin/env python3
"""Every script in scripts/ that takes a folder takes it relative (to where it is run) or absolute.

Static, on every scripts/*.sh: a folder from the command line ($1, $2, an option's $2) is resolved with
realpath before the script cd's to the repository, and no path is made by putting $PWD/ in front of a
variable (an absolute folder would become $PWD//abs/...). With BUILD_DIR (a built tree): build-wheel.sh run
from another folder with a relative BUILD_DIR and OUT_DIR, and with absolute ones.
usage: check_script_folders.py REPO [BUILD_DIR]"""
import glob
import os
import re
import subprocess
import sys
import tempfile


def static_problems(repo):
    problems = []
    for path in sorted(glob.glob(os.path.join(repo, "scripts", "*.sh"))):
        lines = open(path).read().splitlines()
        name = os.path.relpath(path, repo)
        cd = next((i for i, l in enumerate(lines) if re.match(r'\s*cd "\$\(dirname "\$0"\)/\.\."', l)), None)
        for i, line in enumerate(lines):
            code = line.split(" #")[0]
            if re.search(r'\$PWD/"?\$\{?[a-z_]', code):
                problems.append("%s:%d: $PWD joined with a variable (wrong for an absolute folder): %s"
                                % (name, i + 1, line.strip()))
            takes = re.match(r'\s*([a-z_]+)=.*\$\{?[12]\b', code)
            if takes and not code.lstrip().startswith(("local ", "seconds", "targets")) and "realpath" not in code \
                    and takes.group(1) not in ("seconds", "targets", "name", "dir"):
                problems.append("%s:%d: folder argument not resolved with realpath: %s" % (name, i + 1, line.strip()))
            if takes and "realpath" in code and cd is not None and i > cd:
                problems.append("%s:%d: folder argument resolved after the cd to the repository (a relative one "
                                "would be taken from there): %s" % (name, i + 1, line.strip()))
    return problems


def wheel_problems(repo, build):
    problems = []
    script = os.path.join(repo, "scripts", "build-wheel.sh")
    with tempfile.TemporaryDirectory() as tmp:
        for how, b, o in (("relative", os.path.relpath(build, tmp), "out_rel"), ("absolute", build, tmp + "/out_abs")):
            p = subprocess.run(["bash", script, b, o], cwd=tmp, capture_output=True, text=True, timeout=600)
            wheel = p.stdout.strip().splitlines()[-1] if p.stdout.strip() else ""
            want = os.path.join(tmp, o)
            if p.returncode != 0 or not os.path.isfile(wheel) or os.path.dirname(wheel) != want:
                problems.append("build-wheel.sh with %s folders (%s %s from %s): exit %d, wheel %r, expected in %s; %s"
                                % (how, b, o, tmp, p.returncode, wheel, want, p.stderr[-500:]))
    return problems


def main(argv):
    repo = os.path.abspath(argv[1])
    problems = static_problems(repo)
    if len(argv) > 2 and os.path.isfile(os.path.join(argv[2], "src", "libaotrt.so")):
        problems += wheel_problems(repo, os.path.abspath(argv[2]))
    for p in problems:
        print("FAIL: " + p)
    print("%d problem(s)" % len(problems) if problems else "script folders: ok")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
