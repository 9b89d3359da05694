#!/usr/bin/env python3
"""`aotrt devices`, `inspect`, `run --device` and `bench --device` on the real GPU exports of ../shared/fixtures/gpu:
OpenCL (o_*) on opencl:0 and Vulkan (k_*) on vulkan:0 where the machine has them, every output bit-exact with
--expect --exact; a device id that does not exist is refused.

  /usr/bin/python3 tests/cli/test_cli_gpu.py --aotrt BUILD/bin/aotrt --fixtures ../shared/fixtures/gpu
"""
import argparse
import json
import os
import subprocess
import sys


def run(cmd):
    p = subprocess.run(cmd, capture_output=True, text=True)
    return p.returncode, p.stdout + p.stderr


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--aotrt", required=True)
    ap.add_argument("--fixtures", required=True)
    args = ap.parse_args()
    failures = []
    rc, devices = run([args.aotrt, "devices"])
    if rc != 0 or "vulkan" not in devices:
        failures.append("devices: %d %s" % (rc, devices))
    ran = 0
    for case in sorted(os.listdir(args.fixtures)):
        d = os.path.join(args.fixtures, case)
        device = {"o_": "opencl:0", "k_": "vulkan:0"}.get(case[:2])
        if not device or "mobilenet" in case or device not in devices:
            continue
        spec = json.load(open(os.path.join(d, "case.json")))
        model = [os.path.join(d, "model.so")] if spec["artifact"] == "factory" else [d]
        rc, out = run([args.aotrt, "inspect"] + model)
        if rc != 0 or spec["device"] not in out:
            failures.append("inspect %s: %d %s" % (case, rc, out))
        rc, out = run([args.aotrt, "run"] + model + ["--device", device, "--inputs", os.path.join(d, "inputs.npz"),
                                                     "--expect", os.path.join(d, "expected.npz"), "--exact"])
        if rc != 0 or "outputs match" not in out:
            failures.append("run %s: %d %s" % (case, rc, out))
        ran += 1
    if "vulkan:0" in devices:
        d = os.path.join(args.fixtures, "k_conv")
        rc, out = run([args.aotrt, "bench", os.path.join(d, "model.so"), "--device", "vulkan", "--inputs",
                       os.path.join(d, "inputs.npz"), "--repeat", "2"])
        if rc != 0:
            failures.append("bench on vulkan: %d %s" % (rc, out))
        rc, out = run([args.aotrt, "run", os.path.join(d, "model.so"), "--device", "vulkan:9", "--random"])
        if rc == 0 or "vulkan device 9 does not exist" not in out:
            failures.append("run on vulkan:9: %d %s" % (rc, out))
    for f in failures:
        print("FAIL:", f)
    print("%d GPU exports run, %d failures" % (ran, len(failures)))
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
