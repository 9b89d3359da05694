#!/usr/bin/env python3
"""`aotrt inspect`, `run`, `bench` and `profile` on the Relay VM exports of ../shared/fixtures/vm (the OpenCL case where a device exists): every form
(code.ro with lib.so beside, the folder, vm.so), every input set bit-exact with --expect --exact, .npz outputs.

  /usr/bin/python3 tests/cli/test_cli_vm.py --aotrt BUILD/bin/aotrt --fixtures ../shared/fixtures/vm
"""
import argparse
import json
import os
import subprocess
import sys
import tempfile

import numpy as np


def run(cmd):
    p = subprocess.run(cmd, capture_output=True, text=True)
    return p.returncode, p.stdout + p.stderr


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--aotrt", required=True)
    ap.add_argument("--fixtures", required=True)
    args = ap.parse_args()
    failures = []
    opencl = "opencl:0" in run([args.aotrt, "devices"])[1]  # the OpenCL case runs where a device exists
    tmp = tempfile.mkdtemp(prefix="aotrt_cli_vm_")
    for case in sorted(os.listdir(args.fixtures)):
        d = os.path.join(args.fixtures, case)
        if not os.path.isfile(os.path.join(d, "case.json")):
            continue
        spec = json.load(open(os.path.join(d, "case.json")))
        if spec["device"] != "cpu" and not opencl:
            continue
        model = os.path.join(d, "vm.so" if spec["artifact"] == "exported" else "code.ro")
        rc, out = run([args.aotrt, "inspect", model])
        if rc != 0 or "main(" not in out or "Primitive ops" not in out:
            failures.append("inspect %s: %d %s" % (case, rc, out))
        for suffix in ["", "_b"][: spec["input_sets"]]:
            for m in [model] + ([d] if spec["artifact"] == "split" else []):
                npz = os.path.join(tmp, case + suffix + ".npz")
                rc, out = run([args.aotrt, "run", m, "--inputs", os.path.join(d, "inputs%s.npz" % suffix), "--expect",
                               os.path.join(d, "expected%s.npz" % suffix), "--exact", "-o", npz])
                if rc != 0 or "outputs match" not in out:
                    failures.append("run %s%s: %d %s" % (m, suffix, rc, out))
                    continue
                with np.load(npz) as got, np.load(os.path.join(d, "expected%s.npz" % suffix)) as want:
                    if sorted(got.files) != sorted(want.files) or any(got[k].tobytes() != want[k].tobytes() for k in want.files):
                        failures.append("run %s%s: the .npz written differs" % (m, suffix))
    d = os.path.join(args.fixtures, "v_dyn_batch")
    rc, out = run([args.aotrt, "bench", os.path.join(d, "code.ro"), "--inputs", os.path.join(d, "inputs.npz"), "--repeat", "3"])
    if rc != 0 or "main" not in out or "3 repeats" not in out:
        failures.append("bench: %d %s" % (rc, out))
    # profile: each primitive of main timed, in every form; JSON as for a graph export's measured profile
    for case, m in [("v_control", "code.ro"), ("v_dyn_batch", ""), ("v_add_exported", "vm.so")]:
        d = os.path.join(args.fixtures, case)
        rc, out = run([args.aotrt, "profile", os.path.join(d, m), "--inputs", os.path.join(d, "inputs.npz"), "--runs", "5",
                       "--bench-duration", "0.05"])
        if rc != 0 or "Primitive" not in out or "every kernel call timed" not in out or "fused_" not in out:
            failures.append("profile %s: %d %s" % (case, rc, out))
    d = os.path.join(args.fixtures, "v_control")
    rc, out = run([args.aotrt, "profile", d, "--inputs", os.path.join(d, "inputs.npz"), "--runs", "3", "--json"])
    try:
        p = json.loads(out)
        if rc != 0 or not p["measured"] or not p["operators"] or p["runs"] != 3:
            failures.append("profile --json: %d %s" % (rc, out))
    except ValueError:
        failures.append("profile --json: not JSON: %d %s" % (rc, out))
    rc, out = run([args.aotrt, "profile", os.path.join(args.fixtures, "v_add_split", "code.ro")])
    if rc == 0 or ("give every input" not in out and "is not given" not in out):
        failures.append("profile without inputs: %d %s" % (rc, out))
    rc, out = run([args.aotrt, "run", os.path.join(args.fixtures, "v_add_split", "code.ro"), "--random"])
    if rc == 0 or "give every input" not in out:
        failures.append("run --random on a VM export: %d %s" % (rc, out))
    for f in failures:
        print("FAIL:", f)
    print("%d failures" % len(failures))
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
