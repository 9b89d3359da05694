"""OperatorProfileReport: where a model's run time goes, operator by operator.

Built from the JSON of ``aotrt.profiling.ProfileOperators`` (C++ ``aotrt::ProfileOperators``), shaped
like TVM's ``tvm.runtime.profiling.Report`` where it fits: ``calls`` holds one dict per operator with
``Name``, ``Percent``, ``Duration (us)`` (mean per run) and ``Count`` (samples), ``table()`` and
``csv()`` give text, ``json()`` / ``to_json()`` the JSON.
"""
import json


class OperatorProfileReport:
    """A per-operator profile (sampled program counters; see README "Where the time goes").

    ``operators``: list of dicts ``name``, ``symbol``, ``percent``, ``ci95`` (95% confidence
    half-width in percentage points), ``mean_ms``, ``samples``, highest cost first. ``outside``: the
    same for samples in no operator (runtime, the entry's glue). ``run_ms`` / ``run_ms_median``: the
    profiled runs' mean and median wall time. ``samples``, ``runs``, ``period_us``, ``interrupted``.
    """

    def __init__(self, report_json):
        report = json.loads(report_json)
        self._table = report.pop("table", "")
        self._csv = report.pop("csv", "")
        self._report = report
        self.model = report["model"]
        self.library = report["library"]
        self.symbol_table = report["symbol_table"]
        self.run_ms = float(report["run_ms"])
        self.run_ms_median = float(report["run_ms_median"])
        self.runs = int(report["runs"])
        # A graph's profile is measured: "calls" where a sampled one has "samples".
        self.measured = bool(report.get("measured", False))
        self.samples = int(report.get("samples", report.get("calls", 0)))
        self.period_us = int(report["period_us"])
        self.interrupted = bool(report["interrupted"])
        self.operators = [dict(o) for o in report["operators"]]
        self.outside = dict(report["outside"])
        self.calls = [{"Name": o["name"], "Percent": o["percent"], "Duration (us)": o["mean_ms"] * 1e3,
                       "Count": o.get("samples", o.get("calls", 0))} for o in self.operators]

    def table(self):
        """The report as a text table (the same as ``aotrt profile`` prints)."""
        return self._table

    def csv(self):
        """name,symbol,percent,ci95,mean_ms,samples (calls),shapes: the operators, then the outside line."""
        return self._csv

    def to_json(self):
        """The report as a JSON string: model, run_ms, operators [{name, percent, mean_ms, ...}], ..."""
        return json.dumps(self._report)

    def json(self):
        """TVM's Report spelling of ``to_json()``."""
        return self.to_json()

    def __str__(self):
        return self._table

    def __repr__(self):
        return "OperatorProfileReport(model=%r, runs=%d, samples=%d, operators=%d)" % (
            self.model, self.runs, self.samples, len(self.operators))
