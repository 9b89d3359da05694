from typing import Any, Dict, List

class OperatorProfileReport:
    model: str
    library: str
    symbol_table: str
    run_ms: float
    run_ms_median: float
    runs: int
    samples: int
    period_us: int
    interrupted: bool
    operators: List[Dict[str, Any]]
    outside: Dict[str, Any]
    calls: List[Dict[str, Any]]
    def __init__(self, report_json: str) -> None: ...
    def table(self) -> str: ...
    def csv(self) -> str: ...
    def to_json(self) -> str: ...
    def json(self) -> str: ...
