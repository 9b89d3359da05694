#!/usr/bin/env bash
# Install a built tree into a scratch prefix, build examples/ against it with find_package(aotrt)
# and pkg-config, run both examples on the bundled sample model, then pip-install the Python
# package offline and classify a digit through the installed copy.
#   scripts/test-installed.sh BUILD_DIR
set -euo pipefail
cd "$(dirname "$0")/.."
build=${1:-build}
prefix=$(mktemp -d)
trap 'rm -rf "$prefix"' EXIT
cmake --install "$build" --prefix "$prefix" >/dev/null
cmake -S examples -B "$prefix/examples" -DCMAKE_PREFIX_PATH="$prefix" >/dev/null
cmake --build "$prefix/examples" -j"$(nproc)" >/dev/null
export LD_LIBRARY_PATH="$prefix/lib:$prefix/lib64${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
"$prefix/examples/run_model_cpp" "$build/samples/digits.so"
"$prefix/examples/run_model_c" "$build/samples/digits.so"
# pkg-config finds the same library.
PKG_CONFIG_PATH="$prefix/lib/pkgconfig" pkg-config --exists aotrt
# The Python package, installed offline from a copy (the build must not write into the tree).
cp -r python_stubs "$prefix/python_src"
/usr/bin/python3 -m pip install -q --root-user-action=ignore --no-build-isolation --no-index --target "$prefix/python" "$prefix/python_src"
PYTHONPATH="$prefix/python" AOTRT_LIBRARY="$prefix/lib/libaotrt.so" /usr/bin/python3 - "$build/samples/digits.so" <<'PY'
import sys
import numpy as np
import aotrt as tvm
from aotrt.runtime.executor import AotModule
assert tvm.__file__.startswith(sys.path[0]), tvm.__file__  # the installed copy, not the tree
m = AotModule(tvm.runtime.load_module(sys.argv[1])["default"](tvm.cpu(0)))
m.set_input("image", np.load("samples/digits/inputs/digit_3.npy"))
m.run()
label = int(m.get_output(1).numpy()[0])
print(f"python (installed copy at {tvm.__file__}): digit_3.npy classified as {label}")
assert label == 3
PY
echo "installed package: 3 passed, 0 failed"
