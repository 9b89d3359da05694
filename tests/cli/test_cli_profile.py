#!/usr/bin/env python3
"""Checks of `aotrt profile` (per-operator profile by PC sampling) on the bundled digits sample and
on a generated model with known operator costs. Shares only, never absolute times.

  /usr/bin/python3 tests/cli/test_cli_profile.py --aotrt BUILD/bin/aotrt --sample BUILD/samples/digits.so \
      --models BUILD/models

Exit status 0 when every check passes; failures are listed on stderr.
"""
import argparse
import csv
import json
import os
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from test_cli import FAILURES, aotrt, check, expect_error  # noqa: E402


def check_report(j, what):
    for key in ("model", "run_ms", "operators", "outside", "samples", "bench_median_ms", "overhead_percent"):
        check(key in j, "%s: no %r in %r" % (what, key, sorted(j)))
    ops = j.get("operators", [])
    check(len(ops) > 0, "%s: no operators" % what)
    total = sum(o["percent"] for o in ops) + j["outside"]["percent"]
    check(abs(total - 100) < 1e-4, "%s: shares add up to %r" % (what, total))
    check(sum(o["samples"] for o in ops) + j["outside"]["samples"] == j["samples"], "%s: sample counts" % what)
    check(all(o["name"].startswith("fused_") for o in ops), "%s: names %r" % (what, [o["name"] for o in ops]))
    check(all(not o["name"].startswith("tvmgen_") for o in ops), "%s: prefix not stripped" % what)
    check(j["run_ms"] > 0 and j["bench_median_ms"] > 0, "%s: times %r %r" % (what, j["run_ms"], j["bench_median_ms"]))
    means = sum(o["mean_ms"] for o in ops) + j["outside"]["mean_ms"]
    check(abs(means - j["run_ms"]) <= 1e-3 * j["run_ms"], "%s: mean_ms add up to %r of %r" % (what, means, j["run_ms"]))


def test_sample(args, tmp):
    rc, out, err = aotrt(args, "profile", args.sample, "--random", "--duration", "1", "--json",
                         "--bench-duration", "0.1")
    check(rc == 0, "profile --json exit %d: %s" % (rc, err))
    if rc == 0:
        check_report(json.loads(out), "digits")
    csv_path = os.path.join(tmp, "ops.csv")
    # 100,000 runs of the ~1 us sample span ~0.1 s: ~100 samples at the 1 ms period (2,000 runs
    # spanned ~2 ms and now and then caught none).
    rc, out, err = aotrt(args, "profile", args.sample, "--random", "--runs", "100000", "--csv", csv_path,
                         "--bench-duration", "0.1")
    check(rc == 0, "profile --runs --csv exit %d: %s" % (rc, err))
    for needle in ("Operator", "Percent", "+-95%", "Mean ms", "Samples", "(outside operators", "Total (mean run)",
                   "100000 runs", "bench ", "unprofiled runs"):
        check(needle in out, "profile table: %r not in %r" % (needle, out))
    with open(csv_path) as f:
        rows = list(csv.reader(f))
    check(rows and rows[0] == ["name", "symbol", "percent", "ci95", "mean_ms", "samples", "shapes"], "csv header %r" % rows[:1])
    check(len(rows) >= 3 and rows[-1][0].startswith("(outside"), "csv rows %r" % rows)


def test_known_costs(args):
    """The dense at 4x the work costs most, the one at 1x least (accuracy proper: tests/e2e)."""
    model = os.path.join(args.models, "profile_costs_c_nousmp.so")
    rc, out, err = aotrt(args, "profile", model, "--zeros", "--json", "--bench-duration", "0.1")
    check(rc == 0, "profile known costs exit %d: %s" % (rc, err))
    if rc != 0:
        return
    j = json.loads(out)
    check_report(j, "profile_costs_c_nousmp")
    share = {o["name"]: o["percent"] for o in j["operators"]}
    check(share.get("fused_nn_dense_4x", 0) > share.get("fused_nn_dense_2x", 0) > share.get("fused_nn_dense_1x", 0),
          "order of the dense shares: %r" % share)


def test_errors(args, tmp):
    expect_error(args, 1, "excludes", "profile", args.sample, "--runs", "3", "--duration", "1")
    expect_error(args, 1, "--period-us", "profile", args.sample, "--period-us", "5")
    expect_error(args, 2, "error", "profile", os.path.join(tmp, "missing.so"))
    rc, out, err = aotrt(args, "profile", "--help")
    check(rc == 0 and "confidence" in out and "--csv" in out, "profile --help: %r" % out)
    bad_csv = os.path.join(tmp, "no", "such", "dir", "x.csv")
    expect_error(args, 2, "CSV", "profile", args.sample, "--random", "--runs", "10", "--csv", bad_csv,
                 "--bench-duration", "0")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--aotrt", required=True)
    ap.add_argument("--sample", required=True)
    ap.add_argument("--models", required=True)
    args = ap.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        test_sample(args, tmp)
        test_known_costs(args)
        test_errors(args, tmp)
    if FAILURES:
        print("%d check(s) failed" % len(FAILURES), file=sys.stderr)
        return 1
    print("aotrt profile: all checks passed")
    return 0


if __name__ == "__main__":
    sys.exit(main())
