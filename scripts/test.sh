#!/usr/bin/env bash
# Build everything and run every test: C++ unit and end-to-end tests, the real TVM exports through
# the C ABI, the CLI, the Python package, and an example built against the installed package.
#   scripts/test.sh               the default build (build/)
#   scripts/test.sh --sanitizers  also ASan+UBSan (build-asan/) and TSan (build-tsan/) builds
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/install-deps.sh
jobs=$(nproc)

run_suite() {  # build dir, extra cmake args...
  local dir=$1; shift
  cmake -S . -B "$dir" "$@" >/dev/null
  cmake --build "$dir" -j"$jobs"
  (cd "$dir" && ctest --output-on-failure -j"$jobs")
}

run_suite build -DCMAKE_BUILD_TYPE=RelWithDebInfo
bash scripts/test-installed.sh build

if [ "${1:-}" = "--sanitizers" ]; then
  run_suite build-asan -DCMAKE_BUILD_TYPE=Debug -DAOTRT_SANITIZE=address,undefined -DAOTRT_BUILD_BENCH=OFF -DAOTRT_BUILD_TOOLS=OFF
  run_suite build-tsan -DCMAKE_BUILD_TYPE=Debug -DAOTRT_SANITIZE=thread -DAOTRT_BUILD_BENCH=OFF -DAOTRT_BUILD_TOOLS=OFF
fi
