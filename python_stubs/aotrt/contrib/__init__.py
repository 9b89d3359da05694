"""TVM's tvm.contrib executors over libaotrt: graph_executor."""
from . import graph_executor
