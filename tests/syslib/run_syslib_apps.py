"""Runs applications that link a real system-lib TVM export (model.tar's objects) and compares their
outputs bit for bit with the export's expected.npz.

usage: run_syslib_apps.py FIXTURE_DIR APP:EXPECT [APP:EXPECT ...]
EXPECT is `runs` (outputs must match) or `refused` (must exit 1 with an error that says how to make
get_c_metadata findable, and must not crash). Prints a line per app and `N passed, M failed`."""
import json
import os
import subprocess
import sys
import tempfile

import numpy as np


def prepare_inputs(fixture, in_dir):
    case = json.load(open(os.path.join(fixture, "case.json")))
    for name, arr in np.load(os.path.join(fixture, "inputs.npz")).items():
        sanitized = "".join(c if c.isalnum() else "_" for c in name)
        np.ascontiguousarray(arr).tofile(os.path.join(in_dir, sanitized + ".bin"))
    return case


def check_outputs(case, fixture, out_dir):
    expected = np.load(os.path.join(fixture, "expected.npz"))
    for i, (shape, dtype) in enumerate(case["outputs"]):
        path = os.path.join(out_dir, "output%d.bin" % i)
        if not os.path.exists(path):
            return "output%d missing" % i
        got = np.fromfile(path, dtype=np.dtype(dtype)).reshape(shape)
        want = expected["arr_%d" % i]
        if got.tobytes() != want.tobytes():
            return "output%d differs: got %s, expected %s" % (i, got, want)
    return None


def run_app(app, expect, fixture):
    with tempfile.TemporaryDirectory() as tmp:
        in_dir, out_dir = os.path.join(tmp, "in"), os.path.join(tmp, "out")
        os.makedirs(in_dir)
        os.makedirs(out_dir)
        case = prepare_inputs(fixture, in_dir)
        p = subprocess.run([app, case["mod_name"], in_dir, out_dir], capture_output=True, text=True, timeout=120)
        if expect == "runs":
            if p.returncode != 0:
                return "exit %d: %s" % (p.returncode, p.stderr.strip())
            return check_outputs(case, fixture, out_dir)
        if p.returncode != 1:
            return "expected a clean refusal (exit 1), got exit %d: %s" % (p.returncode, p.stderr.strip())
        for needle in ("get_c_metadata", "-rdynamic", "strip"):
            if needle not in p.stderr:
                return "refusal does not mention %r: %s" % (needle, p.stderr.strip())
        return None


def main(fixture, specs):
    passed = failed = 0
    for spec in specs:
        app, expect = spec.rsplit(":", 1)
        error = run_app(app, expect, fixture)
        print("%-6s %s (%s)%s" % ("ok" if error is None else "FAIL", os.path.basename(app), expect,
                                  "" if error is None else ": " + error))
        passed += error is None
        failed += error is not None
    print("%d passed, %d failed" % (passed, failed))
    return 1 if failed or not passed else 0


if __name__ == "__main__":
    if len(sys.argv) < 3:
        sys.exit(__doc__)
    sys.exit(main(sys.argv[1], sys.argv[2:]))
