#!/usr/bin/env bash
# Install a built tree into a scratch prefix, build examples/ against it with find_package(aotrt)
# and pkg-config, and run both examples on the bundled sample model.
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
echo "installed package: 2 passed, 0 failed"
