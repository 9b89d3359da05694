"""Per-kernel cost on aotrt.vulkan(0): N launches of k_conv's max_pool2d kernel (one work group each)
recorded into one submit, as a run() records its kernels, against a host wait (submit + fence) after
each launch, as a runtime that waits between kernels would.

usage: PYTHONPATH=python_stubs AOTRT_LIBRARY=build/src/libaotrt.so /usr/bin/python3 \
         bench/python/vulkan_dispatch.py ../shared/fixtures/gpu/k_conv/model.so [N]
"""
import ctypes
import sys
import time

import numpy as np
import aotrt
dev = aotrt.vulkan(0)
lib = aotrt.load_module(sys.argv[1])
k = lib.get_function("tvmgen_default_fused_nn_max_pool2d_kernel", query_imports=True)
a = aotrt.nd.array(np.zeros((1, 32, 56, 56), "float32"), dev)
b = aotrt.nd.array(np.zeros((1, 32, 28, 28), "float32"), dev)
pa, pb = ctypes.c_void_p(a.handle.contents.data), ctypes.c_void_p(b.handle.contents.data)
k(pa, pb, 1, 64); dev.sync()
N = int(sys.argv[2]) if len(sys.argv) > 2 else 1000
for mode in ("recorded", "wait-each") * 3:
    t, c = time.perf_counter(), time.process_time()
    for _ in range(N):
        k(pa, pb, 1, 64)
        if mode == "wait-each":
            dev.sync()
    dev.sync()
    print("%-9s %d launches: %.1f us per launch (cpu %.1f us)" % (mode, N, (time.perf_counter() - t) / N * 1e6,
                                                                  (time.process_time() - c) / N * 1e6))
