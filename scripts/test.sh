#!/usr/bin/env bash
# Build everything and run every test suite: C++ unit and end-to-end tests, the real TVM exports
# through the C ABI, the CLI, the Python package, and the installed package. Every suite runs even
# when an earlier one failed; a summary of each comes at the end, and the exit status is non-zero
# if any failed.
#   scripts/test.sh               the default build (build/)
#   scripts/test.sh --sanitizers  also ASan+UBSan (build-asan/) and TSan (build-tsan/) builds
set -uo pipefail
cd "$(dirname "$0")/.."
bash scripts/install-deps.sh || { echo "aotrt: installing the dependencies failed" >&2; exit 1; }
jobs=$(nproc)
generator=()
command -v ninja >/dev/null && generator=(-G Ninja)

names=() results=()
record() {  # suite name, status, detail
  names+=("$1"); results+=("$([ "$2" -eq 0 ] && echo "passed" || echo "FAILED")  $3")
}

run_suite() {  # name, build dir, extra cmake args...
  local name=$1 dir=$2; shift 2
  local log="$dir/aotrt-ctest.log"
  echo "=== $name: configuring and building $dir"
  if [ -f "$dir/CMakeCache.txt" ]; then cmake "$dir" "$@" >/dev/null; else cmake -S . -B "$dir" "${generator[@]}" "$@" >/dev/null; fi &&
    cmake --build "$dir" -j"$jobs" || { record "$name" 1 "(build failed)"; return; }
  echo "=== $name: running the tests"
  (cd "$dir" && ctest --output-on-failure -j"$jobs") 2>&1 | tee "$log"
  local status=${PIPESTATUS[0]}
  record "$name" "$status" "$(grep -E 'tests passed, [0-9]+ tests? failed' "$log" | tail -1)"
}

run_suite "main build" build -DCMAKE_BUILD_TYPE=RelWithDebInfo
echo "=== installed package"
bash scripts/test-installed.sh build 2>&1 | tee build/aotrt-installed.log
record "installed package" "${PIPESTATUS[0]}" "$(tail -1 build/aotrt-installed.log)"

if [ "${1:-}" = "--sanitizers" ]; then
  # The GPU drivers' own leaks at exit are theirs (tests/lsan.supp says which and why).
  export LSAN_OPTIONS="suppressions=$PWD/tests/lsan.supp${LSAN_OPTIONS:+:$LSAN_OPTIONS}"
  run_suite "ASan+UBSan" build-asan -DCMAKE_BUILD_TYPE=Debug -DAOTRT_SANITIZE=address,undefined -DAOTRT_BUILD_BENCH=OFF -DAOTRT_BUILD_TOOLS=OFF
  run_suite "TSan" build-tsan -DCMAKE_BUILD_TYPE=Debug -DAOTRT_SANITIZE=thread -DAOTRT_BUILD_BENCH=OFF -DAOTRT_BUILD_TOOLS=OFF
fi

echo
echo "=== summary"
failed=0
for i in "${!names[@]}"; do
  printf '%-18s %s\n' "${names[$i]}" "${results[$i]}"
  case ${results[$i]} in FAILED*) failed=$((failed + 1)) ;; esac
done
echo "suites: $(( ${#names[@]} - failed )) passed, $failed failed"
[ "$failed" -eq 0 ]
