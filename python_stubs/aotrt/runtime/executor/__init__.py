"""Executors: AotModule (TVM's tvm.runtime.executor)."""
from .aot_executor import AotModule

__all__ = ["AotModule"]
