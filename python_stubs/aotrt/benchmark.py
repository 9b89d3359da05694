"""BenchmarkResult: timing statistics, printed as TVM prints them."""
import numpy as np


class BenchmarkResult:
    """Timing results in seconds.

    ``results`` are the per-repeat means (TVM's meaning); ``samples`` optionally holds one time per
    individual call (aotrt's ``aotrt.profiling.Benchmark``). ``mean``, ``median``, ``std`` (population),
    ``min`` and ``max`` are over ``results`` as in TVM; the percentiles ``p50``/``p90``/``p99``/``p999``
    and ``percentile(q)`` are over ``samples`` when present, else over ``results``.
    """

    def __init__(self, results, samples=None):
        self.results = tuple(float(r) for r in results)
        self.samples = None if samples is None else tuple(float(s) for s in samples)
        r = np.asarray(self.results, dtype=np.float64)
        if r.size == 0:
            raise ValueError("BenchmarkResult needs at least one result")
        self.mean = float(np.mean(r))
        self.std = float(np.std(r))
        self.median = float(np.median(r))
        self.min = float(np.min(r))
        self.max = float(np.max(r))
        pool = np.asarray(self.samples if self.samples else self.results, dtype=np.float64)
        self._pool = pool
        self.p50, self.p90, self.p99, self.p999 = (float(x) for x in np.percentile(pool, [50, 90, 99, 99.9]))

    def percentile(self, q):
        """The q-th percentile (0..100, linear interpolation) in seconds."""
        return float(np.percentile(self._pool, q))

    def __repr__(self):
        return "BenchmarkResult(min={}, mean={}, median={}, max={}, std={}, results={})".format(
            self.min, self.mean, self.median, self.max, self.std, self.results)

    def __str__(self):
        return """Execution time summary:
{:^12} {:^12} {:^12} {:^12} {:^12}
{:^12.4f} {:^12.4f} {:^12.4f} {:^12.4f} {:^12.4f}
               """.format("mean (ms)", "median (ms)", "max (ms)", "min (ms)", "std (ms)",
                          self.mean * 1000, self.median * 1000, self.max * 1000, self.min * 1000,
                          self.std * 1000)
