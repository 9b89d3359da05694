#!/usr/bin/env bash
# A wheel of the Python package that carries libaotrt.so (aotrt/lib/libaotrt.so, which the package
# loads first), so `pip install aotrt-*.whl` needs no AOTRT_LIBRARY and no installed library.
# Offline (Debian's python3-pip, python3-setuptools and python3-wheel; no build isolation, no index),
# and built in a temporary copy: nothing is written into the source tree.
#   scripts/build-wheel.sh [BUILD_DIR [OUT_DIR]]   BUILD_DIR: a configured and built tree (default
#                                                  build); OUT_DIR: default BUILD_DIR/wheel
# Prints the wheel's path. The wheel is for Linux x86-64 CPython 3 (tagged for the interpreter that
# built it); at run time it needs numpy and Debian's libspdlog1.10 and libfmt9 (libaotrt.so's NEEDED).
set -euo pipefail
build=$(realpath -m "${1:-$(dirname "$0")/../build}")   # both relative to where it is run, or absolute
out=$(realpath -m "${2:-$build/wheel}")
cd "$(dirname "$0")/.."
lib=$build/src/libaotrt.so
[ -f "$lib" ] || { echo "build-wheel: no $lib (build first: cmake --build $build --target aotrt)" >&2; exit 1; }
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cp -r python_stubs/aotrt python_stubs/pyproject.toml python_stubs/README.md "$work/"
find "$work/aotrt" -name __pycache__ -prune -exec rm -rf {} +
rm -f "$work/aotrt/_install_paths.py"         # cmake --install's pointer to an installed library
mkdir -p "$work/aotrt/lib"
cp -L "$lib" "$work/aotrt/lib/libaotrt.so"
if command -v strip >/dev/null; then strip --strip-debug "$work/aotrt/lib/libaotrt.so"; fi   # 15 MB -> ~2 MB
# A binary wheel (platform-tagged, not py3-none-any): it holds a native library.
cat > "$work/setup.py" <<'PY'
from setuptools import setup
from setuptools.dist import Distribution


class BinaryDistribution(Distribution):
    def has_ext_modules(self):
        return True


setup(distclass=BinaryDistribution)
PY
mkdir -p "$out"
/usr/bin/python3 -m pip wheel -q --no-deps --no-index --no-build-isolation -w "$out" "$work" >&2
ls -t "$out"/aotrt-*.whl | head -1
