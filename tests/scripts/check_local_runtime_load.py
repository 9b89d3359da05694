"""libaotrt loaded RTLD_LOCAL (ctypes' default, or a plugin host's) must still serve the runtime
symbols a model library needs (TVMBackendAllocWorkspace, ...): the first model load promotes
libaotrt to the global scope unless its symbols are already visible there. This process has no
other TVM runtime, so a model with undefined TVM symbols loads only if that works.

usage: check_local_runtime_load.py LIBAOTRT MODEL.so [MODEL.so ...]"""
import ctypes
import os
import sys


def main():
    lib = ctypes.CDLL(sys.argv[1], mode=os.RTLD_NOW | os.RTLD_LOCAL)
    lib.TVMGetLastError.restype = ctypes.c_char_p
    probe = ctypes.CDLL(None)
    if hasattr(probe, "TVMBackendAllocWorkspace"):
        print("TVMBackendAllocWorkspace already visible before the first load: nothing to check")
        return 1
    for path in sys.argv[2:]:
        mod = ctypes.c_void_p()
        rc = lib.TVMModLoadFromFile(path.encode(), b"so", ctypes.byref(mod))
        if rc != 0:
            print("load of %s failed: %s" % (path, lib.TVMGetLastError().decode()))
            return 1
        lib.TVMModFree(mod)
    if not hasattr(ctypes.CDLL(None), "TVMBackendAllocWorkspace"):
        print("libaotrt's symbols are not in the global scope after a load")
        return 1
    print("models loaded against an RTLD_LOCAL libaotrt")
    return 0


if __name__ == "__main__":
    sys.exit(main())
