from .aot_executor import AotModule as AotModule
