from .aot_executor import AotModule as AotModule
from .aot_executor import arena_bytes as arena_bytes
from .aot_executor import create_executor as create_executor
