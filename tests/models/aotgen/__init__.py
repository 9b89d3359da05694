"""aotgen: writes C sources shaped like Apache TVM v0.14 AOT exports (see /work/shared/ABI.md).

Modules: dtypes (type table), binfmt (dmlc/NDArray/blob/.npy writers), spec (JSON spec -> graph),
ops (kernels: shape inference + C bodies), reference (pure-Python evaluation), emit_c (the C file),
casegen (reference test vectors), cli (command line).
"""
