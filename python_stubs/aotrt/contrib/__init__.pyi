from . import graph_executor as graph_executor
