"""Executors: AotModule (TVM's tvm.runtime.executor)."""
from .aot_executor import AotModule, arena_bytes, create_executor

__all__ = ["AotModule", "arena_bytes", "create_executor"]
