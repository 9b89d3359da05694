#!/usr/bin/env python3
"""End-to-end checks of the `aotrt` command line (inspect, run, bench) on the bundled digits sample
and, when present, the real TVM exports in the fixtures folder.

  /usr/bin/python3 tests/cli/test_cli.py --aotrt BUILD/bin/aotrt --sample BUILD/samples/digits.so \
      --sample-src samples/digits [--fixtures ../shared/fixtures/tvm] [--models BUILD/models]

Needs python3-numpy. Exit status 0 when every check passes; failures are listed on stderr.
"""
import argparse
import glob
import json
import os
import shutil
import signal
import subprocess
import sys
import tempfile

import numpy as np

FAILURES = []


def check(cond, what):
    if not cond:
        FAILURES.append(what)
        print("FAIL: " + what, file=sys.stderr)


def aotrt(args, *cmd):
    p = subprocess.run([args.aotrt] + [str(c) for c in cmd], capture_output=True, text=True, timeout=300)
    return p.returncode, p.stdout, p.stderr


def expect_error(args, code, needle, *cmd):
    rc, out, err = aotrt(args, *cmd)
    name = " ".join(str(c) for c in cmd)
    check(rc == code, "%s: exit %d, expected %d (stderr: %r)" % (name, rc, code, err))
    lines = [l for l in err.splitlines() if l.strip()]
    check(len(lines) == 1, "%s: expected one error line, got %r" % (name, err))
    check(needle in err, "%s: %r not in %r" % (name, needle, err))


def test_sample(args, tmp):
    src = args.sample_src
    rc, out, err = aotrt(args, "--version")
    check(rc == 0 and "runtime library: libaotrt.so.0" in out and "ship libaotrt.so.0" in out,
          "--version names the file to ship: %r %r" % (out, err))
    rc, out, err = aotrt(args, "inspect", args.sample, "--json")
    check(rc == 0, "inspect --json exit %d: %s" % (rc, err))
    info = json.loads(out)
    check(info["model_names"] == ["default"], "model_names %r" % info["model_names"])
    check(info["mod_name"] == "default" and info["symbol_prefix"] == "tvmgen_default",
          "inspect --json: mod_name %r, symbol_prefix %r" % (info.get("mod_name"), info.get("symbol_prefix")))
    check(info["flavour"] == "c", "flavour %r" % info["flavour"])
    check(info["inputs"] == [{"name": "image", "shape": [1, 64], "dtype": "float32", "bytes": 256, "shape_known": True}],
          "inputs %r" % info["inputs"])
    check([o["shape"] for o in info["outputs"]] == [[1, 10], [1]], "outputs %r" % info["outputs"])
    check(info["constant_pool_bytes"] > 9000, "constant pool %r" % info["constant_pool_bytes"])
    rc, out, err = aotrt(args, "inspect", args.sample)
    check(rc == 0 and "image" in out and "build flavour   c" in out, "inspect text: %s %s" % (out, err))

    # Every bundled digit is classified correctly; outputs written as .npy equal the summary.
    for label in range(10):
        outdir = os.path.join(tmp, "out%d" % label)
        rc, out, err = aotrt(args, "run", args.sample, "--input",
                             "image=%s/inputs/digit_%d.npy" % (src, label), "--output-dir", outdir)
        check(rc == 0, "run digit %d: exit %d: %s" % (label, rc, err))
        if rc != 0:
            continue
        logits = np.load(os.path.join(outdir, "output0.npy"))
        digit = np.load(os.path.join(outdir, "output1.npy"))
        check(logits.shape == (1, 10) and logits.dtype == np.float32, "logits %r %r" % (logits.shape, logits.dtype))
        check(digit.tolist() == [label], "digit_%d.npy classified as %r" % (label, digit.tolist()))
        check(int(logits.argmax()) == label, "argmax of logits for %d" % label)
        row = [l for l in out.splitlines() if l.startswith("output0")][0]
        check(row.split()[-1] == str(label), "summary argmax column for %d: %r" % (label, row))

    # The generator's reference case: bit-exact.
    case = os.path.join(os.path.dirname(args.sample), "digits.case")
    if os.path.isdir(case):
        outdir = os.path.join(tmp, "case")
        rc, _, err = aotrt(args, "run", args.sample, "--input", "image=%s/inputs/image.npy" % case, "-o", outdir)
        check(rc == 0, "run reference case: %s" % err)
        for i in range(2):
            got = np.load(os.path.join(outdir, "output%d.npy" % i))
            want = np.load(os.path.join(case, "expected", "output%d.npy" % i))
            check(got.tobytes() == want.tobytes(), "reference output%d differs" % i)

    # Random and zero inputs; sanitized names (image == image).
    rc, out, err = aotrt(args, "run", args.sample, "--random", "--seed", "3")
    check(rc == 0 and "random (seed 3)" in out, "run random: %s %s" % (out, err))
    # An input left unset is refused before anything runs (issue 26): --random or --zeros says so.
    expect_error(args, 1, "input 'image' not given: give each with -i NAME=FILE.npy (or --inputs FILE.npz), or "
                 "fill what is not given with --random [--seed N] or --zeros", "run", args.sample)
    rc, out, err = aotrt(args, "run", args.sample)
    check("ran " not in out, "run with an unset input ran: %s" % out)
    rc, out, err = aotrt(args, "run", args.sample, "--zeros", "--print")
    check(rc == 0 and "zeros" in out and "output0 = [" in out, "run zeros: %s %s" % (out, err))

    # bench: table and JSON, threads.
    rc, out, err = aotrt(args, "bench", args.sample, "--repeat", "20", "--number", "5", "--warmup", "2")
    check(rc == 0, "bench exit %d: %s" % (rc, err))
    for word in ("init", "load", "min", "mean", "median", "p90", "p99", "max", "std", "throughput"):
        check(word in out, "bench output lacks %r: %s" % (word, out))
    rc, out, err = aotrt(args, "bench", args.sample, "--repeat", "10", "--threads", "2", "--json",
                         "--input", "image=%s/inputs/digit_5.npy" % src, "--cache-flush", "65536")
    check(rc == 0, "bench --threads 2 --json: %s" % err)
    if rc == 0:
        j = json.loads(out)
        check(j["threads"] == 2 and len(j["per_thread"]) == 2, "threads in %r" % j)
        check(j["latency"]["samples"] == 20, "samples %r" % j["latency"]["samples"])
        check(j["throughput_runs_per_s"] > 0, "throughput %r" % j["throughput_runs_per_s"])
        lat = j["latency"]
        check(lat["min_ms"] <= lat["median_ms"] <= lat["p99_ms"] <= lat["max_ms"], "ordering %r" % lat)
    rc, out, err = aotrt(args, "bench", args.sample, "--repeat", "3", "--min-repeat-ms", "5", "--json")
    check(rc == 0 and json.loads(out)["number"] > 1, "bench --min-repeat-ms: %s %s" % (out, err))


def not_a_model_path(tmp):
    path = os.path.join(tmp, "notes.txt")
    with open(path, "w") as f:
        f.write("not a model")
    return path


def test_errors(args, tmp):
    src = args.sample_src
    good = "%s/inputs/digit_1.npy" % src
    expect_error(args, 2, "no such file", "run", os.path.join(tmp, "missing.so"))
    expect_error(args, 2, "no such file", "inspect", os.path.join(tmp, "missing.so"))
    notso = os.path.join(tmp, "not_a_library.so")
    with open(notso, "w") as f:
        f.write("hello")
    rc, _, err = aotrt(args, "inspect", notso)
    check(rc == 2 and len(err.strip().splitlines()) == 1, "inspect of a text file: %d %r" % (rc, err))
    expect_error(args, 1, "model is required", "run")
    expect_error(args, 1, "unknown subcommand 'frobnicate'; valid subcommands: inspect, run, bench", "frobnicate")
    # A model is told by its content, not its file name.
    renamed = os.path.join(tmp, "model.bin")
    shutil.copyfile(args.sample, renamed)
    rc, out, err = aotrt(args, "inspect", renamed)
    check(rc == 0, "inspect of a model named .bin: %d %s" % (rc, err))
    expect_error(args, 2, "cannot be read to tell its format: No such file", "inspect", os.path.join(tmp, "missing.bin"))
    expect_error(args, 2, "neither a shared library (ELF) nor an object archive", "inspect", not_a_model_path(tmp))
    expect_error(args, 1, "--repeat", "bench", args.sample, "--repeat", "0")
    expect_error(args, 1, "excludes", "run", args.sample, "--random", "--zeros")
    expect_error(args, 2, "cannot open", "run", args.sample, "--input", "image=" + os.path.join(tmp, "nope.npy"))
    expect_error(args, 1, "NAME=FILE", "run", args.sample, "--input", "image")
    expect_error(args, 2, "Invalid input name", "run", args.sample, "--input", "picture=" + good)

    def save(name, arr, **kw):
        path = os.path.join(tmp, name)
        np.save(path, arr, **kw)
        return path

    img = np.load(good)
    bad_npy = os.path.join(tmp, "bad.npy")
    with open(bad_npy, "wb") as f:
        f.write(b"not numpy at all")
    expect_error(args, 2, "bad magic", "run", args.sample, "--input", "image=" + bad_npy)
    # Another dtype: the runtime's one conversion rule (issue 26; README "Inputs in another dtype").
    rc, out, err = aotrt(args, "run", args.sample, "--input", "image=" + save("f64.npy", img.astype(np.float64)))
    check(rc == 0 and "f64.npy (float64, converted)" in out, "float64 image that survives: %s %s" % (out, err))
    big = img.astype(np.float64)
    big[0, 3] = 1e300
    expect_error(args, 2, "input 'image' from %s: expected dtype float32, got float64 holding 1e+300 at index [0, 3], "
                 "which does not survive the conversion: it would become inf" % os.path.join(tmp, "big.npy"),
                 "run", args.sample, "--input", "image=" + save("big.npy", big))
    odd = img.astype(np.int64)
    odd[0, 5] = 16777217
    expect_error(args, 2, "got int64 holding 16777217 at index [0, 5], which does not survive the conversion: "
                 "it would become 16777216", "run", args.sample, "--input", "image=" + save("odd.npy", odd))
    expect_error(args, 2, "expected float32 [1, 64], got float32 [8, 8]", "run", args.sample, "--input",
                 "image=" + save("shape.npy", img.reshape(8, 8)))
    expect_error(args, 2, "Fortran", "run", args.sample, "--input",
                 "image=" + save("fortran.npy", np.asfortranarray(np.ones((4, 16), np.float32))))
    expect_error(args, 2, "big-endian", "run", args.sample, "--input", "image=" + save("be.npy", img.astype(">f4")))
    expect_error(args, 2, "unsupported dtype", "run", args.sample, "--input",
                 "image=" + save("c64.npy", img.astype(np.complex64)))
    raw = open(good, "rb").read()
    trunc = os.path.join(tmp, "trunc.npy")
    with open(trunc, "wb") as f:
        f.write(raw[:-10])
    expect_error(args, 2, "truncated data", "run", args.sample, "--input", "image=" + trunc)
    # .npy versions 2.0 and 3.0 are read.
    for version in ((2, 0), (3, 0)):
        path = os.path.join(tmp, "v%d.npy" % version[0])
        with open(path, "wb") as f:
            np.lib.format.write_array(f, img, version=version)
        rc, out, err = aotrt(args, "run", args.sample, "--input", "image=" + path)
        check(rc == 0, ".npy version %r: %s" % (version, err))


def test_half(args, tmp):
    """float16 and bool through inspect/run/bench, bit-exact; a library needing a symbol nobody
    provides is refused by every command with one clear error line."""
    for name in ("half_c", "half_llvm"):
        so = os.path.join(args.models, name + ".so")
        case = os.path.join(args.models, name + ".case")
        rc, out, err = aotrt(args, "inspect", so, "--json")
        check(rc == 0, "inspect %s: %s" % (name, err))
        if rc == 0:
            info = json.loads(out)
            check([i["dtype"] for i in info["inputs"]] == ["uint8", "float16", "float16"], "%s inputs %r" % (name, info))
            check([o["dtype"] for o in info["outputs"]] == ["float16", "bool", "int16", "float32", "float16"],
                  "%s outputs %r" % (name, info["outputs"]))
            needs = (["__gnu_f2h_ieee", "__gnu_h2f_ieee"] if name == "half_llvm"
                     else ["TVMBackendAllocWorkspace", "TVMBackendFreeWorkspace"])
            check(info["undefined_runtime_symbols"] == needs, "%s runtime symbols %r" % (name, info))
        outdir = os.path.join(tmp, name)
        cmd = ["run", so, "-o", outdir, "--print"]
        for key in ("x_u8", "h", "g"):
            cmd += ["--input", "%s=%s" % (key, os.path.join(case, "inputs", key + ".npy"))]
        rc, out, err = aotrt(args, *cmd)
        check(rc == 0, "run %s: %s" % (name, err))
        if rc == 0:
            for i in range(5):
                got = np.load(os.path.join(outdir, "output%d.npy" % i))
                want = np.load(os.path.join(case, "expected", "output%d.npy" % i))
                check(got.dtype == want.dtype and got.tobytes() == want.tobytes(),
                      "%s output%d: %r %r, expected %r %r" % (name, i, got.dtype, got, want.dtype, want))
            check("inf" in out and "nan" in out, "%s --print shows inf and nan: %s" % (name, out))
        rc, out, err = aotrt(args, "bench", so, "--repeat", "5", "--warmup", "1")
        check(rc == 0 and "throughput" in out, "bench %s: %s" % (name, err))
        rc, out, err = aotrt(args, "run", so, "--random")   # random float16 and bool-free inputs
        check(rc == 0, "run %s with random inputs: %s" % (name, err))
    for flavour in ("c", "llvm"):
        so = os.path.join(args.models, "unloadable", "missing_symbol_%s.so" % flavour)
        for cmd in ("inspect", "run", "bench"):
            expect_error(args, 2, "aotrt_test_nobody_defines_this", cmd, so)


def test_fixtures(args, tmp):
    for case_json in sorted(glob.glob(os.path.join(args.fixtures, "*", "case.json"))):
        case = json.load(open(case_json))
        # model.so, or model.tar for a system-lib export (objects, linked into a library at load).
        so = os.path.join(os.path.dirname(case_json), case["artifact"])
        name = os.path.basename(os.path.dirname(so))
        rc, out, err = aotrt(args, "inspect", so, "--json")
        check(rc == 0, "inspect %s: %s" % (name, err))
        if rc == 0:
            info = json.loads(out)
            flavour = "objects" if so.endswith(".tar") else case["target"]
            check(info["flavour"] == flavour, "%s: flavour %r, expected %r" % (name, info["flavour"], flavour))
            check([i["name"] for i in info["inputs"]][:len(case["inputs"])] == list(case["inputs"]),
                  "%s: inputs %r" % (name, info["inputs"]))
        # Reference inputs from inputs.npz, outputs compared with expected.npz.
        inputs = np.load(os.path.join(os.path.dirname(so), "inputs.npz"))
        expected = np.load(os.path.join(os.path.dirname(so), "expected.npz"))
        cmd = ["run", so, "-o", os.path.join(tmp, name)]
        for key in inputs.files:
            path = os.path.join(tmp, "%s_%s.npy" % (name, key))
            np.save(path, inputs[key])
            cmd += ["--input", "%s=%s" % (key, path)]
        rc, out, err = aotrt(args, *cmd)
        check(rc == 0, "run %s: %s" % (name, err))
        if rc == 0:
            for i, key in enumerate(sorted(expected.files)):
                got = np.load(os.path.join(tmp, name, "output%d.npy" % i))
                check(got.dtype == expected[key].dtype and got.tobytes() == expected[key].tobytes(),
                      "%s: output%d differs from TVM's" % (name, i))
        rc, out, err = aotrt(args, "bench", so, "--repeat", "5", "--warmup", "1")
        check(rc == 0 and "throughput" in out, "bench %s: %s" % (name, err))


def test_log_level_environment(args, tmp):
    def inspect_with(level):
        env = dict(os.environ, AOTRT_LOG_LEVEL=level)
        p = subprocess.run([args.aotrt, "inspect", args.sample], capture_output=True, text=True, timeout=120, env=env)
        return p.returncode, p.stderr
    # Loading logs at debug level: shown for DEBUG (any case), hidden for WARN, which is not "off".
    for level in ("debug", "DEBUG", "Debug"):
        rc, err = inspect_with(level)
        check(rc == 0 and "[debug]" in err, "AOTRT_LOG_LEVEL=%s shows no debug records: %r" % (level, err))
    rc, err = inspect_with("WARN")
    check(rc == 0 and "[debug]" not in err, "AOTRT_LOG_LEVEL=WARN: %r" % err)
    rc, err = inspect_with("loud")
    check(rc == 0 and "AOTRT_LOG_LEVEL=loud is not a level" in err and "[debug]" not in err,
          "an unknown AOTRT_LOG_LEVEL is not reported: %r" % err)
def test_overrun(args, tmp):
    """Models that write past their workspace (issue 10): exact outputs by default; --check-bounds
    and AOTRT_CHECK_BOUNDS=1 turn the write into an error naming the model, pool and bytes."""
    for name, needle in [("overrun_usmp_llvm", "model 'default' wrote 24 bytes past workspace pool "
                          "'global_workspace' (248 bytes)"),
                         ("overrun_ws_c", "model 'default' wrote 8 bytes past a TVMBackendAllocWorkspace "
                          "block (4,096 bytes)"),
                         # issue 26: 24% past a multi-MiB pool, and past a 1 MiB block, into the reserve
                         ("overrun_reserve_usmp_llvm", "model 'default' wrote 1,247,056 bytes past workspace pool "
                          "'global_workspace' (5,218,304 bytes)"),
                         ("overrun_reserve_ws_c", "model 'default' wrote 251,658 bytes past a "
                          "TVMBackendAllocWorkspace block (1,048,576 bytes)")]:
        so = os.path.join(args.models, name + ".so")
        case_dir = os.path.join(args.models, name + ".case")
        cmd = ["run", so, "-o", os.path.join(tmp, name)]
        for f in sorted(os.listdir(os.path.join(case_dir, "inputs"))):
            cmd += ["--input", "%s=%s" % (f[:-4], os.path.join(case_dir, "inputs", f))]
        rc, out, err = aotrt(args, *cmd)
        check(rc == 0, "run %s: %s" % (name, err))
        if rc == 0:
            for f in sorted(os.listdir(os.path.join(case_dir, "expected"))):
                got = np.load(os.path.join(tmp, name, f))
                want = np.load(os.path.join(case_dir, "expected", f))
                check(got.tobytes() == want.tobytes() and got.dtype == want.dtype, "%s: %s differs" % (name, f))
        expect_error(args, 2, needle, *(cmd + ["--check-bounds"]))
        env = dict(os.environ, AOTRT_CHECK_BOUNDS="1")
        p = subprocess.run([args.aotrt] + cmd, capture_output=True, text=True, timeout=300, env=env)
        check(p.returncode == 2 and needle in p.stderr, "%s with AOTRT_CHECK_BOUNDS=1: %d %r" % (name, p.returncode,
                                                                                              p.stderr))
    rc, out, err = aotrt(args, "run", args.sample, "--random", "--check-bounds")
    check(rc == 0, "digits with --check-bounds: %s" % err)
    rc, out, err = aotrt(args, "bench", args.sample, "--check-bounds", "--repeat", "5")
    check(rc == 0 and "throughput" in out, "bench --check-bounds: %s" % err)
    rc, out, err = aotrt(args, "inspect", os.path.join(args.models, "overrun_usmp_llvm.so"), "--json")
    # 248 bytes of pool: the rest of its page and a reserve of a page (issue 26).
    check(rc == 0 and json.loads(out).get("workspace_slack_bytes") == 4096 - 248 + 4096, "inspect slack: %s %s"
          % (out, err))
    # Past even the reserve: the process dies of SIGSEGV; by default without a word from aotrt (it
    # installs no signal handler unasked), with AOTRT_REPORT_GUARD_FAULTS=1 after a one-line report
    # on stderr; what ran on which inputs is on stdout already.
    crash = os.path.join(args.models, "crashing", "overrun_past_reserve_c.so")
    p = subprocess.run([args.aotrt, "run", crash, "--zeros"], capture_output=True, text=True, timeout=300)
    check(p.returncode == -signal.SIGSEGV and "aotrt: fatal" not in p.stderr,
          "past the reserve, no report asked: exit %d %r" % (p.returncode, p.stderr))
    env = dict(os.environ, AOTRT_REPORT_GUARD_FAULTS="1")
    p = subprocess.run([args.aotrt, "run", crash, "--zeros"], capture_output=True, text=True, timeout=300, env=env)
    check(p.returncode == -signal.SIGSEGV, "past the reserve: exit %d" % p.returncode)
    check("aotrt: fatal: generated code wrote 7,169 bytes past workspace pool 'global_workspace' (1,024 bytes) of "
          "model 'default' (%s), beyond the 7,168-byte reserve after it" % crash in p.stderr
          and "the instruction is in tvmgen_default_fused_nn_relu" in p.stderr, "past the reserve: %r" % p.stderr)
    check("input  x  int32 [16, 16]  <- zeros" in p.stdout, "past the reserve, stdout: %r" % p.stdout)


def test_input_conversion(args, tmp):
    """The runtime's one conversion rule for .npy files of another dtype (issue 26): int64 into the
    uint8 input y_u8 of multi_io_c is accepted when every value fits, refused naming the input, the
    file, the value and its index when one does not; the outputs are those of the uint8 inputs."""
    name = "multi_io_c"
    so = os.path.join(args.models, name + ".so")
    case_dir = os.path.join(args.models, name + ".case")
    files = {f[:-4]: os.path.join(case_dir, "inputs", f) for f in os.listdir(os.path.join(case_dir, "inputs"))}
    y = np.load(files["y_u8"]).astype(np.int64)
    files["y_u8"] = os.path.join(tmp, "y_i64.npy")
    np.save(files["y_u8"], y)
    expected = os.path.join(tmp, "multi_io_expected.npz")
    np.savez(expected, *[np.load(os.path.join(case_dir, "expected", "output%d.npy" % i)) for i in range(4)])
    cmd = ["run", so, "--expect", expected, "--exact"]
    for k, f in sorted(files.items()):
        cmd += ["-i", "%s=%s" % (k, f)]
    rc, out, err = aotrt(args, *cmd)
    check(rc == 0 and "y_i64.npy (int64, converted)" in out and "outputs match" in out,
          "int64 into uint8 that fits: %d %s %s" % (rc, out, err))
    y[1, 2] = 300
    np.save(files["y_u8"], y)
    expect_error(args, 2, "input 'y_u8' from %s: expected dtype uint8, got int64 holding 300 at index [1, 2], outside "
                 "uint8's range [0, 255] (it would wrap around)" % files["y_u8"], *cmd)
    np.save(files["y_u8"], y.astype(np.float32))
    expect_error(args, 2, "expected dtype uint8, got float32: a float is not converted to an integer", *cmd)


def test_huge_pages(args, tmp):
    """--huge-pages (issue 15): the same outputs, bit for bit, with the executor's large buffers on
    transparent huge pages; bench accepts it too."""
    name = "relu_4mib"
    so = os.path.join(args.models, name + ".so")
    case_dir = os.path.join(args.models, name + ".case")
    out_dir = os.path.join(tmp, "huge")
    rc, out, err = aotrt(args, "run", so, "--huge-pages", "-o", out_dir,
                         "--input", "x=%s" % os.path.join(case_dir, "inputs", "x.npy"))
    check(rc == 0, "run --huge-pages: %s" % err)
    if rc == 0:
        got = np.load(os.path.join(out_dir, "output0.npy"))
        want = np.load(os.path.join(case_dir, "expected", "output0.npy"))
        check(got.tobytes() == want.tobytes(), "run --huge-pages: output differs")
    rc, out, err = aotrt(args, "bench", so, "--huge-pages", "--repeat", "3")
    check(rc == 0 and "throughput" in out, "bench --huge-pages: %s" % err)


def test_op_threads(args, tmp):
    """--op-threads (ExecutorOptions::num_threads): the same outputs with 1 and 2 operator threads,
    on a model whose operators launch parallel tasks; a count out of range is a usage error."""
    name = "profile_costs_parallel_llvm"
    so = os.path.join(args.models, name + ".so")
    case_dir = os.path.join(args.models, name + ".case")
    want = np.load(os.path.join(case_dir, "expected", "output0.npy"))
    inputs = []
    for n in sorted(os.listdir(os.path.join(case_dir, "inputs"))):
        inputs += ["--input", "%s=%s" % (n[:-4], os.path.join(case_dir, "inputs", n))]
    for n in ("1", "2"):
        out_dir = os.path.join(tmp, "op_threads_" + n)
        rc, out, err = aotrt(args, "run", so, "--op-threads", n, "-o", out_dir, *inputs)
        check(rc == 0, "run --op-threads %s: %s" % (n, err))
        if rc == 0:
            got = np.load(os.path.join(out_dir, "output0.npy"))
            check(got.tobytes() == want.tobytes(), "run --op-threads %s: output differs" % n)
    rc, out, err = aotrt(args, "bench", so, "--op-threads", "2", "--threads", "2", "--repeat", "3", "--json")
    check(rc == 0 and json.loads(out)["op_threads"] == 2, "bench --op-threads 2: %s %s" % (out, err))
    rc, out, err = aotrt(args, "profile", so, "--op-threads", "1", "--runs", "3", "--bench-duration", "0")
    check(rc == 0, "profile --op-threads 1: %s" % err)
    expect_error(args, 1, "--op-threads", "run", so, "--op-threads", "2000", "--zeros")


def test_inspect_run_scratch(args, tmp):
    """A model without memory planning takes its scratch through TVMBackendAllocWorkspace during
    each run: inspect says so and measures the peak of one run on zeros, instead of only "0 B"."""
    so = os.path.join(args.models, "multi_io_c.so")
    rc, out, err = aotrt(args, "inspect", so)
    check(rc == 0, "inspect multi_io_c: %s" % err)
    line = [l for l in out.splitlines() if l.startswith("run-time scratch")]
    check(len(line) == 1 and "TVMBackendAllocWorkspace" in line[0] and "peak" in line[0]
          and "allocated during each run" in line[0], "inspect multi_io_c scratch line: %r" % out)
    rc, out, err = aotrt(args, "inspect", so, "--json")
    info = json.loads(out)["run_workspace"] if rc == 0 else {}
    check(info.get("allocated_per_run") is True and info.get("measured") is True
          and isinstance(info.get("peak_bytes"), int) and info["peak_bytes"] > 0,
          "inspect --json multi_io_c run_workspace: %r %s" % (info, err))
    rc, out, err = aotrt(args, "inspect", so, "--json", "--no-run")
    info = json.loads(out)["run_workspace"] if rc == 0 else {}
    check(info.get("measured") is False and info.get("peak_bytes") is None and "--no-run" in info.get("note", ""),
          "inspect --no-run: %r %s" % (info, err))
    # A library that never calls TVMBackendAllocWorkspace has nothing to measure, and says nothing;
    # an llvm export reaches it through its context pointer, not an undefined symbol (issue 25).
    rc, out, err = aotrt(args, "inspect", os.path.join(args.models, "usmp_ws_only_llvm.so"), "--json")
    info = json.loads(out) if rc == 0 else {}
    needs = ("TVMBackendAllocWorkspace" in info.get("undefined_runtime_symbols", [])
             or "__TVMBackendAllocWorkspace" in info.get("context_pointers", []))
    check(info.get("run_workspace", {}).get("allocated_per_run") is needs, "usmp_ws_only_llvm: %r" % info)
    # The per-executor figure counts the measured scratch, for c and llvm exports alike.
    for name in ("multi_io_c", "multi_io_llvm"):
        rc, out, err = aotrt(args, "inspect", os.path.join(args.models, name + ".so"), "--json")
        info = json.loads(out) if rc == 0 else {}
        peak = info.get("run_workspace", {}).get("peak_bytes")
        per = info.get("memory", {}).get("per_executor", {})
        check(isinstance(peak, int) and peak > 0 and per.get("run_scratch_bytes") == peak
              and per.get("total_bytes") == per.get("workspace_bytes", 0) + per.get("slack_bytes", 0)
              + per.get("io_bytes", 0) + peak, "%s: scratch not in the per-executor memory: %r %s" % (name, info, err))


def test_arena(args, tmp):
    """--arena (issue 28): a model without memory planning runs bit-exact in caller-owned memory
    whose size inspect reports, its run-time scratch included."""
    so = os.path.join(args.models, "multi_io_c.so")
    case_dir = os.path.join(args.models, "multi_io_c.case")
    rc, out, err = aotrt(args, "inspect", so)
    check(rc == 0 and "caller-owned arena for one executor (ExecutorOptions::Arena): " in out
          and "run-time scratch" in out, "inspect arena line: %s %s" % (out, err))
    rc, out, err = aotrt(args, "inspect", so, "--json", "--no-run")
    info = json.loads(out) if rc == 0 else {}
    check(info.get("arena_bytes") is None and "--no-run" in info.get("arena_note", ""), "inspect --no-run arena: %r" % info)
    expected = os.path.join(case_dir, "expected")
    cmd = ["run", so, "--arena", "-o", os.path.join(tmp, "arena_out")]
    for f in sorted(glob.glob(os.path.join(case_dir, "inputs", "*.npy"))):
        cmd += ["--input", "%s=%s" % (os.path.splitext(os.path.basename(f))[0], f)]
    rc, out, err = aotrt(args, *cmd)
    check(rc == 0, "run --arena multi_io_c: %s %s" % (out, err))
    for f in sorted(glob.glob(os.path.join(expected, "*.npy"))):
        got = os.path.join(tmp, "arena_out", os.path.basename(f))
        check(os.path.exists(got) and np.load(got).tobytes() == np.load(f).tobytes(), "run --arena: %s differs" % got)


def test_bench_progress_in_logs(args, tmp):
    """stderr not a terminal (a CI log): at most one progress line every 5 s, not one per repeat,
    and the last, which gives the final count. 100 repeats of at least 30 ms take 3 s or more, so
    the first line (after 1 s) is written; the bound on the count comes from the elapsed time
    measured around the process, which is longer than the time the tool measures itself."""
    import time
    start = time.monotonic()
    rc, out, err = aotrt(args, "bench", args.sample, "--repeat", "100", "--min-repeat-ms", "30", "--warmup", "0")
    elapsed = time.monotonic() - start
    lines = [l for l in err.splitlines() if l.startswith("bench: repeat")]
    check(rc == 0, "bench --repeat 100: %s" % err)
    check(1 <= len(lines) <= 2 + int(elapsed / 5.0) and lines[-1].startswith("bench: repeat 100/100"),
          "bench progress in a log: %d lines in %.1f s: %r" % (len(lines), elapsed, lines))


def test_mlf_fixtures(args, tmp, mlf):
    """C-interface archives: inspect names the interface, run reproduces TVM's outputs bit for bit."""
    old = os.environ.get("AOTRT_CACHE_DIR")
    os.environ["AOTRT_CACHE_DIR"] = os.path.join(tmp, "cache")  # the compile cache, not $HOME's
    try:
        for case_json in sorted(glob.glob(os.path.join(mlf, "*", "case.json"))):
            case = json.load(open(case_json))
            d = os.path.dirname(case_json)
            archive, name = os.path.join(d, case["artifact"]), os.path.basename(d)
            rc, out, err = aotrt(args, "inspect", archive, "--json")
            check(rc == 0, "inspect %s: %s" % (name, err))
            if rc == 0:
                info = json.loads(out)
                check(info["interface"] == "c", "%s: interface %r" % (name, info["interface"]))
                check([i["name"] for i in info["inputs"]] == list(case["inputs"]), "%s: inputs %r" % (name, info["inputs"]))
                check(len(info["outputs"]) == len(case["outputs"]), "%s: outputs %r" % (name, info["outputs"]))
            rc, out, err = aotrt(args, "inspect", archive)
            check(rc == 0 and "interface       c (Model Library Format" in out, "inspect text %s: %s %s" % (name, out, err))
            rc, out, err = aotrt(args, "run", archive, "--inputs", os.path.join(d, "inputs.npz"),
                                 "--expect", os.path.join(d, "expected.npz"), "--rtol", "0", "--atol", "0")
            check(rc == 0 and "outputs match" in out, "run %s bit-exact: %s %s" % (name, out, err))
            rc, out, err = aotrt(args, "bench", archive, "--repeat", "5", "--warmup", "1")
            check(rc == 0 and "throughput" in out, "bench %s: %s" % (name, err))
            # In caller-owned memory (issue 28): inspect sizes it, run and bench use it, same outputs.
            rc, out, err = aotrt(args, "inspect", archive, "--json")
            arena = json.loads(out).get("arena_bytes") if rc == 0 else None
            check(isinstance(arena, int) and arena >= sum(p["bytes"] for p in json.loads(out)["workspace_pools"]),
                  "inspect %s arena_bytes: %r %s" % (name, arena, err))
            rc, out, err = aotrt(args, "run", archive, "--arena", "--inputs", os.path.join(d, "inputs.npz"),
                                 "--expect", os.path.join(d, "expected.npz"), "--rtol", "0", "--atol", "0")
            check(rc == 0 and "outputs match" in out, "run --arena %s bit-exact: %s %s" % (name, out, err))
            rc, out, err = aotrt(args, "bench", archive, "--arena", "--threads", "2", "--repeat", "3")
            check(rc == 0 and "throughput" in out, "bench --arena %s: %s" % (name, err))
    finally:
        if old is None:
            os.environ.pop("AOTRT_CACHE_DIR", None)
        else:
            os.environ["AOTRT_CACHE_DIR"] = old


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--aotrt", required=True)
    ap.add_argument("--sample", required=True, help="built digits.so")
    ap.add_argument("--sample-src", required=True, help="samples/digits source folder")
    ap.add_argument("--fixtures", default="", help="folder of real TVM exports (*/model.so); skipped if absent")
    ap.add_argument("--models", default="", help="the build's generated test models (half_*, unloadable/)")
    args = ap.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        test_sample(args, tmp)
        test_errors(args, tmp)
        test_log_level_environment(args, tmp)
        test_bench_progress_in_logs(args, tmp)
        if args.models:
            test_overrun(args, tmp)
            test_input_conversion(args, tmp)
            test_huge_pages(args, tmp)
            test_op_threads(args, tmp)
            test_inspect_run_scratch(args, tmp)
            test_arena(args, tmp)
        if args.models:
            test_half(args, tmp)
        if args.fixtures and os.path.isdir(args.fixtures):
            test_fixtures(args, tmp)
        else:
            print("fixtures not found: skipped")
        mlf = os.path.join(os.path.dirname(os.path.abspath(args.fixtures)), "mlf") if args.fixtures else ""
        if mlf and os.path.isdir(mlf):
            test_mlf_fixtures(args, tmp, mlf)
        else:
            print("C-interface fixtures (../shared/fixtures/mlf) not found: skipped")
    if FAILURES:
        print("%d check(s) failed" % len(FAILURES), file=sys.stderr)
        return 1
    print("all CLI checks passed")
    return 0


if __name__ == "__main__":
    sys.exit(main())
