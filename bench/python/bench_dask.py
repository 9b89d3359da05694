#!/usr/bin/python3
"""Throughput of aotrt.dask.predict against a plain in-process loop, and Dask's per-task overhead.

    AOTRT_LIBRARY=build/src/libaotrt.so /usr/bin/python3 bench/python/bench_dask.py [--model build/samples/digits.so]

Scores N digit images (batch size 1: one model run per sample) with: the executor in a Python loop
in this process; a LocalCluster (loopback TCP) of 1 and of 2 worker processes with one thread each,
in blocks of --chunk samples. Per-task overhead: --overhead-tasks samples in blocks of 1 on one worker,
(time - samples / loop rate) / tasks. Every figure is the best of --repeat timings after a warm-up
computation (which uploads and loads the model), each on new keys. The input is a numpy array
inside the graph (da.from_array), so its transfer to the workers is part of the time.
"""
import argparse
import os
import sys
import tempfile
import time

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.join(REPO, "python_stubs"))

import numpy as np  # noqa: E402

import aotrt  # noqa: E402
from aotrt.runtime.executor import AotModule  # noqa: E402


def best(fn, repeat):
    times = []
    for _ in range(repeat):
        t0 = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t0)
    return min(times)


def loop_rate(model, x, repeat):
    ex = AotModule(aotrt.load_module(model)["default"](aotrt.cpu(0)))

    def run():
        for i in range(len(x)):
            ex.set_input("image", x[i:i + 1])
            ex.run()
            ex.get_output(0).numpy()
    return len(x) / best(run, repeat)


def cluster_time(model, x, workers, chunk, repeat):
    import dask.array as da
    from distributed import Client, LocalCluster
    import aotrt.dask
    with tempfile.TemporaryDirectory() as scratch, \
            LocalCluster(n_workers=workers, threads_per_worker=1, processes=True, protocol="tcp", host="127.0.0.1",
                         dashboard_address="127.0.0.1:0", worker_dashboard_address="127.0.0.1:0",
                         local_directory=scratch, silence_logs=40) as cluster, Client(cluster):
        def fresh():   # new keys each time: results of an earlier compute may still be held
            return aotrt.dask.predict(model, da.from_array(x, chunks=chunk, name=False), output=0)
        fresh().compute()   # warm-up: upload, load, one executor per thread
        times = []
        for _ in range(repeat):
            y = fresh()
            t0 = time.perf_counter()
            y.compute()
            times.append(time.perf_counter() - t0)
        return min(times)


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--model", default=os.path.join(REPO, "build", "samples", "digits.so"))
    p.add_argument("--samples", type=int, default=200_000)
    p.add_argument("--chunk", type=int, default=20_000)
    p.add_argument("--overhead-tasks", type=int, default=50)
    p.add_argument("--repeat", type=int, default=3)
    a = p.parse_args()
    x = np.random.default_rng(0).uniform(0, 16, (a.samples, 64)).astype(np.float32)
    loop = loop_rate(a.model, x[:min(a.samples, 50_000)], a.repeat)
    print("samples %d, blocks of %d, model %s" % (a.samples, a.chunk, a.model))
    print("%-34s %12.0f samples/s" % ("in-process loop (1 thread)", loop))
    for w in (1, 2):
        t = cluster_time(a.model, x, w, a.chunk, a.repeat)
        print("%-34s %12.0f samples/s  (%.2fx the loop)" % ("LocalCluster, %d worker process%s" % (w, "es" if w > 1 else ""),
                                                            a.samples / t, a.samples / t / loop))
    n = a.overhead_tasks
    import dask
    for saturation in ("default", "inf"):
        # worker-saturation (Dask's queuing of root tasks on the scheduler, on by default since
        # 2022.11) is what dominates tiny tasks here; "inf" sends them all to the workers at once
        cfg = {} if saturation == "default" else {"distributed.scheduler.worker-saturation": float("inf")}
        with dask.config.set(cfg):
            t = cluster_time(a.model, x[:n], 1, 1, a.repeat)
        print("%-34s %12.3f ms per task  (%d tasks of 1 sample, 1 worker, worker-saturation %s)"
              % ("per-task overhead", (t - n / loop) / n * 1e3, n, saturation))


if __name__ == "__main__":
    main()
