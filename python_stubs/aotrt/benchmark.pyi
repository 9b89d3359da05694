from typing import Optional, Sequence, Tuple

class BenchmarkResult:
    results: Tuple[float, ...]
    samples: Optional[Tuple[float, ...]]
    mean: float
    std: float
    median: float
    min: float
    max: float
    p50: float
    p90: float
    p99: float
    p999: float
    def __init__(self, results: Sequence[float], samples: Optional[Sequence[float]] = ...) -> None: ...
    def percentile(self, q: float) -> float: ...
