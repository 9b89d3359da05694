"""libaotrt.so exports its API and nothing of its dependencies: no std:: template instantiations,
no spdlog, fmt or dmlc symbols (a host linking its own versions must not bind to ours). And it
needs no library beyond the stack's and the C/C++ runtimes: libarchive (and the 11 libraries it
pulls in) is opened when the first tar is read, not mapped into every process
(src/module/loader/libarchive_api.h).
usage: check_exports.py LIBAOTRT_SO"""
import re
import subprocess
import sys

ALLOWED = re.compile(r"^(TVM|AOTRT|aotrt::|typeinfo for aotrt::|typeinfo name for aotrt::|vtable for aotrt::|"
                     r"__gnu_f2h_ieee$|__gnu_h2f_ieee$|__truncdfhf2$|__truncsfhf2$|__extendhfsf2$)")

# The stack's libraries (dmlc-core links as a shared library in some builds), the C++ and C
# runtimes, and the sanitizers' runtimes of the sanitizer builds.
NEEDED_ALLOWED = re.compile(r"^(libspdlog|libfmt|libdmlc|libstdc\+\+|libm|libgcc_s|libc|ld-linux[-\w]*|"
                            r"libasan|libubsan|libtsan|liblsan)\.so")


def main(lib):
    out = subprocess.run(["nm", "-D", "--defined-only", "-C", lib], capture_output=True, text=True, check=True).stdout
    names = [line.split(" ", 2)[2] for line in out.splitlines() if line.count(" ") >= 2]
    stray = [n for n in names if not ALLOWED.match(n)]
    required = ["TVMFuncCall", "TVMModLoadFromFile", "AOTRTGetVersion"]
    missing = [r for r in required if r not in names]
    for n in stray[:20]:
        print("exported but not part of the API:", n)
    for n in missing:
        print("missing from the exports:", n)
    dynamic = subprocess.run(["readelf", "-d", lib], capture_output=True, text=True, check=True).stdout
    needed = re.findall(r"\(NEEDED\)\s+Shared library: \[([^\]]+)\]", dynamic)
    extra = [n for n in needed if not NEEDED_ALLOWED.match(n)]
    for n in extra:
        print("needs a library it should not link:", n)
    ok = not stray and not missing and not extra and bool(needed)
    print("%d passed, %d failed" % (1 if ok else 0, 0 if ok else 1))
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1]))
