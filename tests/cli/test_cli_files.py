#!/usr/bin/env python3
"""End-to-end checks of the CLI's file options: .npz inputs (-i FILE.npz, --inputs), .npz outputs
(-o FILE.npz), -o DIR checked before the run, --expect with tolerances and exit status 3, --top,
bench --duration and its summary line, the usage-error exit status, and --graph/--params errors.

  /usr/bin/python3 tests/cli/test_cli_files.py --aotrt BUILD/bin/aotrt --sample BUILD/samples/digits.so \
      --sample-src samples/digits --models BUILD/models [--fixtures ../shared/fixtures/tvm] \
      [--graph-fixtures ../shared/fixtures/graph]
"""
import argparse
import glob
import json
import os
import signal
import subprocess
import sys
import tempfile
import time

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from test_cli import FAILURES, aotrt, check, expect_error  # noqa: E402


def digit(args, label):
    return np.load(os.path.join(args.sample_src, "inputs", "digit_%d.npy" % label))


def reference_outputs(args, tmp, label):
    """The outputs of one digit, through the .npy path the other suite checks."""
    out = os.path.join(tmp, "ref%d" % label)
    rc, _, err = aotrt(args, "run", args.sample, "-i", "image=%s/inputs/digit_%d.npy" % (args.sample_src, label),
                       "-o", out)
    check(rc == 0, "reference run: %s" % err)
    return [np.load(os.path.join(out, "output%d.npy" % i)) for i in range(2)]


def test_npz_inputs_and_outputs(args, tmp):
    logits, cls = reference_outputs(args, tmp, 4)
    named = os.path.join(tmp, "named.npz")
    np.savez(named, image=digit(args, 4))
    positional = os.path.join(tmp, "positional.npz")
    np.savez(positional, digit(args, 4))                     # key arr_0
    deflated = os.path.join(tmp, "deflated.npz")
    np.savez_compressed(deflated, image=digit(args, 4))      # members deflated
    for flag, path in (("--inputs", named), ("-i", named), ("-i", positional), ("--inputs", deflated)):
        out = os.path.join(tmp, "out_%s.npz" % os.path.basename(path)[:-4])
        rc, stdout, err = aotrt(args, "run", args.sample, flag, path, "-o", out)
        check(rc == 0, "run %s %s: %s" % (flag, path, err))
        if rc != 0:
            continue
        check(path + ":" in stdout, "input source not shown: %s" % stdout)
        with np.load(out) as z:
            check(sorted(z.files) == ["output0", "output1"], "keys of -o .npz: %r" % z.files)
            check(z["output0"].tobytes() == logits.tobytes() and z["output1"].tobytes() == cls.tobytes(),
                  "-o %s: outputs differ from the .npy run" % out)
    # errors: unknown key, corrupt archive, wrong dtype or shape inside an archive, given twice (usage)
    bad_key = os.path.join(tmp, "bad_key.npz")
    np.savez(bad_key, picture=digit(args, 4))
    expect_error(args, 2, "picture", "run", args.sample, "--inputs", bad_key)
    corrupt = os.path.join(tmp, "corrupt.npz")
    with open(named, "rb") as f:
        data = f.read()
    with open(corrupt, "wb") as f:
        f.write(data[:len(data) // 2])
    expect_error(args, 2, "corrupt.npz", "run", args.sample, "--inputs", corrupt)
    wrong = os.path.join(tmp, "wrong.npz")
    np.savez(wrong, image=digit(args, 4).astype(np.float64).reshape(8, 8))
    expect_error(args, 2, "expected float32 [1, 64], got float64 [8, 8] from %s:image" % wrong,
                 "run", args.sample, "--inputs", wrong)
    bool_image = os.path.join(tmp, "bool_image.npz")   # converted by the runtime's rule: bool into float32
    np.savez(bool_image, image=digit(args, 4) > 8)
    rc, out, err = aotrt(args, "run", args.sample, "--inputs", bool_image)
    check(rc == 0 and "bool_image.npz:image (bool, converted)" in out, "bool into float32: %s %s" % (out, err))
    int_image = os.path.join(tmp, "int_image.npz")
    np.savez(int_image, image=np.full((1, 64), 1 << 30, np.int32) + 1)
    expect_error(args, 2, "input 'image' from %s:image: expected dtype float32, got int32 holding 1073741825 at index "
                 "[0, 0], which does not survive the conversion: it would become 1073741824" % int_image,
                 "run", args.sample, "--inputs", int_image)
    expect_error(args, 1, "given twice", "run", args.sample, "--inputs", named, "-i", "image=%s/inputs/digit_1.npy"
                 % args.sample_src)
    expect_error(args, 2, "cannot open", "run", args.sample, "--inputs", os.path.join(tmp, "none.npz"))


def test_output_dir_checked_first(args, tmp):
    nested = os.path.join(tmp, "a", "b", "c")
    rc, out, err = aotrt(args, "run", args.sample, "--random", "-o", nested)
    check(rc == 0 and os.path.exists(os.path.join(nested, "output1.npy")), "-o nested dir: %s" % err)
    a_file = os.path.join(tmp, "a_file")
    open(a_file, "w").close()
    for target, needle in ((a_file, "not a directory"), (os.path.join(a_file, "sub"), "a_file"),
                           (os.path.join(tmp, "missing", "out.npz"), "does not exist")):
        rc, out, err = aotrt(args, "run", args.sample, "--random", "-o", target)
        check(rc == 2 and needle in err and "ran " not in out, "-o %s: exit %d, out %r, err %r" % (target, rc, out, err))


def test_expect(args, tmp):
    logits, cls = reference_outputs(args, tmp, 7)
    img = os.path.join(args.sample_src, "inputs", "digit_7.npy")
    same = os.path.join(tmp, "same.npz")
    np.savez(same, output0=logits, output1=cls)
    rc, out, err = aotrt(args, "run", args.sample, "-i", "image=" + img, "--expect", same)
    check(rc == 0 and "outputs match" in out, "--expect equal: %d %s %s" % (rc, out, err))

    # one element off by 0.5: exit 3, the report names the output, the index and both values
    off = logits.copy()
    off[0, 6] += 0.5
    differ = os.path.join(tmp, "differ.npz")
    np.savez(differ, off, cls)                                # TVM's keys: arr_0, arr_1
    rc, out, err = aotrt(args, "run", args.sample, "-i", "image=" + img, "--expect", differ)
    row = [l for l in out.splitlines() if l.startswith("output0 (arr_0)")]
    check(rc == 3 and "outputs differ" in out, "--expect differ: exit %d: %s %s" % (rc, out, err))
    check(row and "DIFFERS" in row[0] and "[0, 6]" in row[0] and " 0.5 " in row[0] and "1 of 10" in row[0],
          "--expect report row: %r" % row)
    check(any(l.startswith("output1 (arr_1)") and " ok " in l for l in out.splitlines()), "output1 row: %s" % out)
    # tolerances: a relative error of 1e-3 fails the default and passes --rtol 1e-2
    near = os.path.join(tmp, "near.npz")
    np.savez(near, output0=logits * np.float32(1.001))
    rc, _, _ = aotrt(args, "run", args.sample, "-i", "image=" + img, "--expect", near)
    check(rc == 3, "rtol default: exit %d" % rc)
    rc, out, err = aotrt(args, "run", args.sample, "-i", "image=" + img, "--expect", near, "--rtol", "1e-2")
    check(rc == 0, "--rtol 1e-2: exit %d %s %s" % (rc, out, err))
    rc, out, err = aotrt(args, "run", args.sample, "-i", "image=" + img, "--expect", near, "--rtol", "0",
                         "--atol", "1")
    check(rc == 0, "--atol 1: exit %d %s" % (rc, err))
    shape = os.path.join(tmp, "shape.npz")
    np.savez(shape, output0=logits[:, :9])
    rc, out, _ = aotrt(args, "run", args.sample, "-i", "image=" + img, "--expect", shape)
    check(rc == 3 and "shape [1, 10], expected [1, 9]" in out, "--expect shape: %d %s" % (rc, out))
    unknown = os.path.join(tmp, "unknown.npz")
    np.savez(unknown, logits=logits)
    expect_error(args, 2, "'logits' is not an output; outputs: output0, output1", "run", args.sample, "--random",
                 "--expect", unknown)
    expect_error(args, 1, "--rtol", "run", args.sample, "--rtol", "0.1")           # needs --expect
    # --exact (issue 26): bit for bit. The reference passes; one ulp, -0 for 0, or another dtype fails.
    rc, out, err = aotrt(args, "run", args.sample, "-i", "image=" + img, "--expect", same, "--exact")
    check(rc == 0 and "compared bit for bit (--exact)" in out and "outputs match" in out,
          "--exact equal: %d %s %s" % (rc, out, err))
    ulp = logits.copy()
    ulp[0, 3] = np.nextafter(ulp[0, 3], np.float32(np.inf))
    one_ulp = os.path.join(tmp, "ulp.npz")
    np.savez(one_ulp, output0=ulp)
    rc, out, _ = aotrt(args, "run", args.sample, "-i", "image=" + img, "--expect", one_ulp)
    check(rc == 0, "one ulp passes the default tolerance: %d" % rc)
    rc, out, _ = aotrt(args, "run", args.sample, "-i", "image=" + img, "--expect", one_ulp, "--exact")
    row = [l for l in out.splitlines() if l.startswith("output0") and "DIFFERS" in l]
    check(rc == 3 and row and "[0, 3]" in row[0] and "1 of 10" in row[0],
          "--exact one ulp: %d %s" % (rc, out))
    f64 = os.path.join(tmp, "f64.npz")
    np.savez(f64, output0=logits.astype(np.float64))
    rc, out, _ = aotrt(args, "run", args.sample, "-i", "image=" + img, "--expect", f64)
    check(rc == 0, "a float64 reference within tolerance: %d %s" % (rc, out))
    rc, out, _ = aotrt(args, "run", args.sample, "-i", "image=" + img, "--expect", f64, "--exact")
    check(rc == 3 and "dtype float32, expected float64 (--exact compares bits)" in out, "--exact dtype: %s" % out)
    expect_error(args, 1, "--exact", "run", args.sample, "--exact")                 # needs --expect
    expect_error(args, 1, "excludes", "run", args.sample, "--expect", same, "--exact", "--rtol", "0")
    expect_error(args, 1, "--atol", "run", args.sample, "--expect", same, "--atol", "-1")


def test_top(args, tmp):
    for label in (2, 9):
        rc, out, err = aotrt(args, "run", args.sample, "-i", "image=%s/inputs/digit_%d.npy" % (args.sample_src, label),
                             "--top", "3")
        lines = [l for l in out.splitlines() if l.startswith("top 3 of output0:")]
        check(rc == 0 and len(lines) == 1, "--top: %s %s" % (out, err))
        if lines:
            ranked = lines[0].split(":", 1)[1].split()
            check(ranked[0] == str(label) and len(ranked) == 6, "--top order for %d: %r" % (label, lines[0]))
    expect_error(args, 1, "--top", "run", args.sample, "--top", "0")


def test_bench_duration(args, tmp):
    rc, out, err = aotrt(args, "bench", args.sample, "--duration", "0.3", "--warmup", "2")
    check(rc == 0, "bench --duration: %s" % err)
    summary = [l for l in out.splitlines() if l.startswith("summary")]
    check(len(summary) == 1 and all(w in summary[0] for w in ("init", "first run", "p50", "p90", "p99")),
          "summary line: %r" % out)
    check("--duration 0.3" in out, "duration in the header: %s" % out)
    rc, out, err = aotrt(args, "bench", args.sample, "--duration", "0.2", "--json", "-t", "2")
    check(rc == 0, "bench --duration --json: %s" % err)
    if rc == 0:
        j = json.loads(out)
        check(j["duration_s"] == 0.2 and j["latency"]["samples"] >= 2 and j["first_run_ms"] > 0, "json %r" % j)
    expect_error(args, 1, "excludes", "bench", args.sample, "--duration", "1", "--repeat", "5")
    expect_error(args, 1, "--duration", "bench", args.sample, "--duration", "0")


def sigint_caught(pid):
    """True once the process has a SIGINT handler installed (bit 1 of SigCgt in /proc)."""
    try:
        with open("/proc/%d/status" % pid) as f:
            line = next(l for l in f if l.startswith("SigCgt:"))
        return int(line.split()[1], 16) & (1 << (signal.SIGINT - 1)) != 0
    except (OSError, StopIteration):
        return False


def test_bench_ctrl_c(args, tmp):
    """Ctrl-C stops a bench that would run for hours, which prints what it measured and exits 130."""
    for extra in ([], ["--json"]):
        p = subprocess.Popen([args.aotrt, "bench", args.sample, "--repeat", "1000000", "--cooldown-ms", "3600000",
                              "--warmup", "1"] + extra, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        while p.poll() is None and not sigint_caught(p.pid):
            time.sleep(0.01)
        time.sleep(0.2)   # into the first cooldown
        p.send_signal(signal.SIGINT)
        try:
            out, err = p.communicate(timeout=60)
        except subprocess.TimeoutExpired:
            p.kill()
            out, err = p.communicate()
        check(p.returncode == 130, "bench interrupted %s: exit %s, %s" % (extra, p.returncode, err))
        if extra:
            check('"interrupted": true' in out and '"samples": 1' in out, "bench --json interrupted: %s" % out)
        else:
            check("interrupted (Ctrl-C): the figures below cover the 1 runs" in out and "summary" in out,
                  "bench interrupted: %s" % out)
    expect_error(args, 1, "cooldown_interval_ms must be <= 3600000", "bench", args.sample, "--cooldown-ms", "3600001")


def test_usage_errors_exit_1(args, tmp):
    expect_error(args, 1, "NAME=FILE", "run", args.sample, "-i", "image")
    expect_error(args, 1, "NAME=FILE", "run", args.sample, "-i", "=x.npy")
    expect_error(args, 1, "cooldown", "bench", args.sample, "--cooldown-ms", "-1")


def test_models(args, tmp):
    """Every generated model with a reference case: --inputs from its .npy files, --expect arr_i."""
    for case_json in sorted(glob.glob(os.path.join(args.models, "*.case", "case.json"))):
        case = json.load(open(case_json))
        folder = os.path.dirname(case_json)
        if not case.get("artifact") or case.get("expect_error") or case.get("params"):
            continue
        so = os.path.normpath(os.path.join(folder, case["artifact"]))
        inputs = {os.path.basename(p)[:-4]: np.load(p) for p in glob.glob(os.path.join(folder, "inputs", "*.npy"))}
        if not os.path.exists(so) or len(inputs) != len(case["inputs"]):
            continue
        expected = [np.load(os.path.join(folder, "expected", "output%d.npy" % i)) for i in range(len(case["outputs"]))]
        inz, exz = os.path.join(tmp, case["case"] + "_in.npz"), os.path.join(tmp, case["case"] + "_exp.npz")
        np.savez_compressed(inz, **inputs)
        np.savez(exz, *expected)
        rc, out, err = aotrt(args, "run", so, "--inputs", inz, "--expect", exz, "--exact")
        check(rc == 0 and "outputs match" in out, "%s: exit %d %s %s" % (case["case"], rc, out[-300:], err))


def test_outputs_sharing_a_name(args, tmp):
    """Outputs 1 and 3 both named 'reshape_nop' (as relay.build names a tuple's outputs; float32 [4], int8
    [2, 16]), a graph of __nop nodes over the classic library: -o .npz keys them reshape_nop:1 and
    reshape_nop:3, --expect reads those keys back and refuses the shared name."""
    so = os.path.join(args.graph_fixtures, "g_classic_llvm", "mod.so")
    nop = {"op": "tvm_op", "name": "reshape_nop", "attrs": {"num_outputs": "1", "num_inputs": "1", "flatten_data": "0",
                                                           "func_name": "__nop"}}
    graph = os.path.join(tmp, "dup.json")
    with open(graph, "w") as f:
        json.dump({"nodes": [{"op": "null", "name": "a", "inputs": []}, {"op": "null", "name": "b", "inputs": []},
                             dict(nop, inputs=[[0, 0, 0]]), dict(nop, inputs=[[1, 0, 0]])],
                   "arg_nodes": [0, 1], "node_row_ptr": [0, 1, 2, 3, 4], "heads": [[0, 0, 0], [2, 0, 0], [1, 0, 0], [3, 0, 0]],
                   "attrs": {"dltype": ["list_str", ["float32", "int8", "float32", "int8"]],
                             "shape": ["list_shape", [[2, 2], [32], [4], [2, 16]]],
                             "storage_id": ["list_int", [0, 1, 0, 1]], "device_index": ["list_int", [1, 1, 1, 1]]}}, f)
    a, b = np.arange(4, dtype=np.float32).reshape(2, 2), np.arange(-16, 16, dtype=np.int8)
    inz, outz = os.path.join(tmp, "dup_in.npz"), os.path.join(tmp, "dup_out.npz")
    np.savez(inz, a=a, b=b)
    rc, out, err = aotrt(args, "run", so, "--graph", graph, "--inputs", inz, "-o", outz)
    check(rc == 0 and "reshape_nop:3" in out, "dup names: exit %d %s %s" % (rc, out, err))
    if rc != 0:
        return
    expected = [a, a.reshape(4), b, b.reshape(2, 16)]
    with np.load(outz) as z:
        check(z.files == ["a", "reshape_nop:1", "b", "reshape_nop:3"], "dup names: keys %r" % z.files)
        check(all(z[k].dtype == e.dtype and z[k].shape == e.shape and z[k].tobytes() == e.tobytes()
                  for k, e in zip(z.files, expected)), "dup names: -o .npz outputs differ from the inputs")
    rc, out, err = aotrt(args, "run", so, "--graph", graph, "--inputs", inz, "--expect", outz, "--exact")
    check(rc == 0 and "outputs match" in out, "dup names --expect: exit %d %s %s" % (rc, out, err))
    shared = os.path.join(tmp, "dup_shared.npz")
    np.savez(shared, reshape_nop=expected[1])
    expect_error(args, 2, "'reshape_nop' names 2 outputs; key them 'reshape_nop:1' (or arr_1), 'reshape_nop:3' "
                 "(or arr_3)", "run", so, "--graph", graph, "--inputs", inz, "--expect", shared)


def test_graph_messages_say_what_to_do(args, tmp):
    """A classic mod.so without --graph names the option; an AOT export given a graph JSON is told it runs without
    one; a graph run without its params is told about --params."""
    classic = os.path.join(args.graph_fixtures, "g_classic_llvm")
    so, graph = os.path.join(classic, "mod.so"), os.path.join(classic, "mod.json")
    expect_error(args, 2, "holds operators only (no model): a graph export's library (mod.so); give its graph with "
                 "--graph mod.json (and its weights with --params mod.params)", "run", so, "--random")
    expect_error(args, 2, "which runs without a graph JSON: load it alone", "run",
                 os.path.join(args.models, "add_c.so"), "--graph", graph, "--random")
    np.save(os.path.join(tmp, "data.npy"), np.zeros((1, 16, 56, 56), np.float32))
    expect_error(args, 1, "input 'p0' not given: give each with -i NAME=FILE.npy (or --inputs FILE.npz), or fill "
                 "what is not given with --random [--seed N] or --zeros; a graph's weights (p0, p1, ...) come from its "
                 "params file: --params mod.params", "run", so, "--graph", graph, "-i",
                 "data=" + os.path.join(tmp, "data.npy"))


def test_fixtures(args, tmp):
    for case_json in sorted(glob.glob(os.path.join(args.fixtures, "*", "case.json"))):
        folder = os.path.dirname(case_json)
        so = os.path.join(folder, json.load(open(case_json))["artifact"])
        rc, out, err = aotrt(args, "run", so, "-i", os.path.join(folder, "inputs.npz"), "--expect",
                             os.path.join(folder, "expected.npz"), "--exact")
        check(rc == 0 and "outputs match" in out, "%s: exit %d %s %s" % (folder, rc, out[-300:], err))


def test_graph_files(args, tmp):
    """--graph/--params: errors name the file given; an empty --params is refused (it would run on zeros)."""
    d = os.path.join(args.graph_fixtures, "g_classic_llvm")
    so, graph, params = (os.path.join(d, f) for f in ("mod.so", "mod.json", "mod.params"))
    empty, bad = os.path.join(tmp, "empty.params"), os.path.join(tmp, "bad.json")
    open(empty, "wb").close()
    expect_error(args, 1, "--params %s is empty" % empty, "run", so, "--graph", graph, "--params", empty, "--random")
    expect_error(args, 2, "%s (--params): Invalid parameters file format" % graph, "run", so, "--graph", graph,
                 "--params", graph, "--random")
    j = json.load(open(graph))
    j["attrs"]["dltype"][1][5] = "float33"
    json.dump(j, open(bad, "w"))
    expect_error(args, 2, "%s (--graph, the graph JSON of %s): attrs.dltype[5]: invalid dtype 'float33'" % (bad, so),
                 "run", so, "--graph", bad, "--params", params, "--random")


def test_graph_bench_and_inspect_say_what_they_used(args, tmp):
    """Issue 45 item 8: the operator threads and their source, the runtime symbols a graph library
    imports, whether it launches parallel work, and a last progress line with the final count."""
    so = os.path.join(args.graph_fixtures, "g_conv_llvm", "model.so")
    rc, out, err = aotrt(args, "inspect", so, "--no-run")
    check(rc == 0 and "parallel work: its operators split loops with TVMBackendParallelLaunch" in out
          and "__TVMBackendParallelLaunch" in out, "inspect of a graph export: %s %s" % (out[-600:], err))
    env = dict(os.environ, TVM_NUM_THREADS="2")
    p = subprocess.run([args.aotrt, "bench", so, "--random", "--duration", "1.5", "--json"], capture_output=True,
                       text=True, timeout=300, env=env)
    j = json.loads(p.stdout)
    check(j["op_threads_used"] == 2 and j["op_threads_source"] == "TVM_NUM_THREADS=2" and j["parallel_launch"]
          and "__TVMBackendParallelLaunch" in j["context_pointers"], "bench --json threads: %r" % p.stdout[-800:])
    last = [l for l in p.stderr.splitlines() if l.startswith("bench: repeat")][-1:]
    check(last and last[0].startswith("bench: repeat %d in --duration 1.5 s" % j["repeat"]),
          "bench's last progress line %r, final repeat count %d" % (last, j["repeat"]))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--aotrt", required=True)
    ap.add_argument("--sample", required=True)
    ap.add_argument("--sample-src", required=True)
    ap.add_argument("--models", default="")
    ap.add_argument("--fixtures", default="")
    ap.add_argument("--graph-fixtures", default="")
    args = ap.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        test_npz_inputs_and_outputs(args, tmp)
        test_output_dir_checked_first(args, tmp)
        test_expect(args, tmp)
        test_top(args, tmp)
        test_bench_duration(args, tmp)
        test_bench_ctrl_c(args, tmp)
        test_usage_errors_exit_1(args, tmp)
        if args.models and os.path.isdir(args.models):
            test_models(args, tmp)
        if args.fixtures and os.path.isdir(args.fixtures):
            test_fixtures(args, tmp)
        if args.graph_fixtures and os.path.isdir(os.path.join(args.graph_fixtures, "g_classic_llvm")):
            test_outputs_sharing_a_name(args, tmp)
            if args.models:
                test_graph_messages_say_what_to_do(args, tmp)
            test_graph_files(args, tmp)
            test_graph_bench_and_inspect_say_what_they_used(args, tmp)
    if FAILURES:
        print("%d check(s) failed" % len(FAILURES), file=sys.stderr)
        return 1
    print("all CLI file checks passed")
    return 0


if __name__ == "__main__":
    sys.exit(main())
