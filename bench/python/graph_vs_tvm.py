"""A graph export on aotrt and on TVM's own runtime, side by side in one run (issue 37's figures).

usage: python3 bench/python/graph_vs_tvm.py AOTRT_LIB TVM_LIB CASE_DIR [--rounds 3] [--runs 30]

For each round and each operator-thread count (TVM_NUM_THREADS=1, 2), a fresh process per runtime,
alternating which goes first, measures through the TVM C ABI (../shared/tools/cabi.py, as a host binding):
  create  - factory[mod_name](cpu) of the first executor, ms
  extra   - private memory (RSS) one more executor adds, MiB (TVM copies the params into each)
  run     - median latency of `run` on one executor, ms
  run2x2  - two executors on two threads, each running `runs` times: runs/s of both together
Prints one line per measurement and the medians per runtime and thread count. TVM_LIB is built with
../shared/tools/build_tvm_runtime.sh. Nothing here is a test: figures go to bench/README.md.
"""
import argparse
import json
import os
import statistics
import subprocess
import sys
import threading
import time

HERE = os.path.dirname(os.path.abspath(__file__))


def rss_mib():
    with open("/proc/self/statm") as f:
        return int(f.read().split()[1]) * os.sysconf("SC_PAGE_SIZE") / (1 << 20)


def child(lib_path, case_dir, runs):
    sys.path.insert(0, os.path.join(HERE, "..", "..", "..", "shared", "tools"))
    import numpy as np
    from cabi import Runtime, CPU
    rt = Runtime(lib_path)
    meta = json.load(open(os.path.join(case_dir, "case.json")))
    inputs = dict(np.load(os.path.join(case_dir, "inputs.npz")))
    lib = rt.load(os.path.join(case_dir, "model.so"))
    t = time.perf_counter()
    a = lib.call(meta["mod_name"], CPU)
    create_ms = (time.perf_counter() - t) * 1e3
    before = rss_mib()
    b = lib.call(meta["mod_name"], CPU)
    for ex in (a, b):
        for n, v in inputs.items():
            ex.call("set_input", n, v)
        ex.call("run")  # first run: pages of the storage and the params touched
    extra = rss_mib() - before
    times = []
    for _ in range(runs):
        t = time.perf_counter()
        a.call("run")
        times.append((time.perf_counter() - t) * 1e3)
    run_a, run_b = a.func("run"), b.func("run")

    def loop(f):
        for _ in range(runs):
            f()
    threads = [threading.Thread(target=loop, args=(f,)) for f in (run_a, run_b)]
    t = time.perf_counter()
    for th in threads:
        th.start()
    for th in threads:
        th.join()
    both = 2 * runs / (time.perf_counter() - t)
    print(json.dumps({"create": create_ms, "extra": extra, "run": statistics.median(times), "run2x2": both}))


def main():
    p = argparse.ArgumentParser()
    p.add_argument("aotrt")
    p.add_argument("tvm")
    p.add_argument("case_dir")
    p.add_argument("--rounds", type=int, default=3)
    p.add_argument("--runs", type=int, default=30)
    p.add_argument("--threads", type=int, nargs="+", default=[1, 2])
    a = p.parse_args()
    libs = {"aotrt": os.path.abspath(a.aotrt), "tvm": os.path.abspath(a.tvm)}
    results = {}
    for r in range(a.rounds):
        for threads in a.threads:
            order = ["aotrt", "tvm"] if r % 2 == 0 else ["tvm", "aotrt"]
            for name in order:
                env = dict(os.environ, TVM_NUM_THREADS=str(threads), OMP_NUM_THREADS=str(threads))
                out = subprocess.run([sys.executable, __file__, "--child", libs[name], a.case_dir, str(a.runs)],
                                     env=env, capture_output=True, text=True, check=True)
                rec = json.loads(out.stdout.strip().splitlines()[-1])
                results.setdefault((name, threads), []).append(rec)
                print("round %d threads %d %-5s create %7.2f ms  extra %6.1f MiB  run %7.2f ms  2 executors %6.1f runs/s"
                      % (r, threads, name, rec["create"], rec["extra"], rec["run"], rec["run2x2"]), flush=True)
    print("\nmedians over %d rounds:" % a.rounds)
    for (name, threads), recs in sorted(results.items()):
        med = {k: statistics.median(x[k] for x in recs) for k in recs[0]}
        print("threads %d %-5s create %7.2f ms  extra %6.1f MiB  run %7.2f ms  2 executors %6.1f runs/s"
              % (threads, name, med["create"], med["extra"], med["run"], med["run2x2"]))


if __name__ == "__main__":
    if len(sys.argv) > 1 and sys.argv[1] == "--child":
        child(sys.argv[2], sys.argv[3], int(sys.argv[4]))
    else:
        main()
