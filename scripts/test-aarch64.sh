#!/usr/bin/env bash
# Cross-build aotrt for aarch64 Linux on a Debian x86-64 machine and run its tests under qemu:
#   1. installs what is missing: the cross toolchain (g++-aarch64-linux-gnu), qemu-user-static, and
#      Debian's arm64 packages of the dependencies (dpkg --add-architecture arm64). dlpack and dmlc
#      cannot be installed for two architectures at once: their arm64 packages are unpacked into
#      build-aarch64/deps instead;
#   2. builds the library, the CLI, the test models and the tests in build-aarch64/ with
#      cmake/aarch64-linux-gnu.cmake (no bench; no debug info, which only slows the build);
#   3. runs the C++ unit and end-to-end suites under qemu-aarch64 through ctest (the toolchain file
#      sets CMAKE_CROSSCOMPILING_EMULATOR); the Python-hosted suites stay on x86-64 (scripts/test.sh);
#   4. runs each real aarch64 export in ../shared/fixtures/aarch64 (when present) through the CLI
#      (`aotrt run --expect`, exact where case.json says so, else rtol 1e-4 / atol 1e-5); the C ABI
#      run of the same exports is the e2e test ForeignExports.*, run in step 3.
# Prints a summary; the exit status is non-zero if anything failed.
#   scripts/test-aarch64.sh [BUILD_DIR]     (default build-aarch64)
set -uo pipefail
build=$(realpath -m "${1:-$(dirname "$0")/../build-aarch64}")   # relative to where it is run, or absolute
cd "$(dirname "$0")/.."
jobs=$(nproc)
fixtures=../shared/fixtures/aarch64
sudo=""
[ "$(id -u)" -ne 0 ] && sudo="sudo"

install_deps() {
  bash scripts/install-deps.sh || return 1  # the host's: python3-numpy, cmake, pkg-config...
  local arm64=(libc6:arm64 libspdlog-dev:arm64 libfmt-dev:arm64 libxxhash-dev:arm64 libgtest-dev:arm64
               libarchive-dev:arm64 libminizip-dev:arm64 zlib1g-dev:arm64 libstdc++6:arm64 libgomp1:arm64)
  local host=(g++-aarch64-linux-gnu gcc-aarch64-linux-gnu qemu-user-static ninja-build)
  local missing=() p
  for p in "${host[@]}" "${arm64[@]}"; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
  done
  if [ ${#missing[@]} -gt 0 ]; then
    echo "aotrt: installing ${missing[*]}"
    dpkg --print-foreign-architectures | grep -qx arm64 || $sudo dpkg --add-architecture arm64 || return 1
    $sudo apt-get update -qq || return 1
    DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null ||
      return 1
  fi
  # Not Multi-Arch: same (installing them for arm64 would remove the host's): unpacked, not installed.
  if [ ! -f "$build/deps/usr/lib/aarch64-linux-gnu/libdmlc.so.0" ]; then
    local tmp
    tmp=$(mktemp -d) && chmod 755 "$tmp" || return 1
    (cd "$tmp" && apt-get download -q=2 libdlpack-dev:arm64 libdmlc-dev:arm64 libdmlc0:arm64) || return 1
    mkdir -p "$build/deps"
    for p in "$tmp"/*.deb; do dpkg -x "$p" "$build/deps" || return 1; done
    rm -rf "$tmp"
  fi
}

names=() results=()
record() {  # name, status, detail
  names+=("$1"); results+=("$([ "$2" -eq 0 ] && echo "passed" || echo "FAILED")  $3")
}
summary() {
  echo
  echo "=== aarch64 summary"
  local failed=0 i
  for i in "${!names[@]}"; do
    printf '%-34s %s\n' "${names[$i]}" "${results[$i]}"
    case ${results[$i]} in FAILED*) failed=$((failed + 1)) ;; esac
  done
  echo "aarch64: $(( ${#names[@]} - failed )) passed, $failed failed"
  [ "$failed" -eq 0 ]
}

start=$(date +%s)
echo "=== aarch64: installing the cross toolchain, qemu and the arm64 packages"
if ! install_deps; then record "installing" 1 "(apt failed)"; summary; exit 1; fi

echo "=== aarch64: configuring and building $build"
if [ ! -f "$build/CMakeCache.txt" ]; then
  cmake -S . -B "$build" -G Ninja -DCMAKE_TOOLCHAIN_FILE=cmake/aarch64-linux-gnu.cmake \
    -DCMAKE_BUILD_TYPE=RelWithDebInfo -DCMAKE_C_FLAGS_RELWITHDEBINFO="-O2 -DNDEBUG" \
    -DCMAKE_CXX_FLAGS_RELWITHDEBINFO="-O2 -DNDEBUG" -DAOTRT_BUILD_BENCH=OFF \
    -DCMAKE_PREFIX_PATH="$build/deps/usr" >/dev/null || { record "configure" 1 ""; summary; exit 1; }
fi
if ! cmake --build "$build" -j"$jobs"; then record "build" 1 ""; summary; exit 1; fi
built=$(date +%s)
record "cross build" 0 "($((built - start)) s with the installs)"
emulator=$(sed -n 's/^AOTRT_QEMU_AARCH64:FILEPATH=//p' "$build/CMakeCache.txt")
qemu=("$emulator")  # no -L: see cmake/aarch64-linux-gnu.cmake

echo "=== aarch64: the C++ suites under qemu"
# Not under qemu: the checks of the sources and of the model generator (the same on every processor:
# the x86-64 build runs them); every float32 through the float16 conversion (2^32 conversions: a
# quarter of an hour under qemu, seconds on a board); and what qemu-user does not emulate: it ignores
# madvise(MADV_HUGEPAGE) (HugePages.*), and its posix_spawn reports a missing compiler as exit 127
# instead of ENOENT (the three tests of a missing C compiler).
exclude='^(aotgen_selfcheck|include_graph_.*|c_abi_headers_.*|quickstart_shows_build_progress'
exclude+='|Half\.EveryFloatNarrowsLikeF16C|HugePages\..*|LoadErrors\.ObjectExportWithoutACompiler'
exclude+='|CInterfaceErrors\.NoCCompiler.*)$'
log="$build/aotrt-ctest.log"
(cd "$build" && ctest --output-on-failure -j"$jobs" -E "$exclude") 2>&1 | tee "$log"
record "unit + e2e tests (qemu)" "${PIPESTATUS[0]}" "$(grep -E 'tests passed, [0-9]+ tests? failed' "$log" | tail -1)"

echo "=== aarch64: the real aarch64 exports through the CLI under qemu"
if [ ! -d "$fixtures" ]; then
  record "aarch64 fixtures (CLI)" 0 "(skipped: $fixtures not present)"
else
  for dir in "$fixtures"/*/; do
    dir=${dir%/}
    name=$(basename "$dir")
    tol=(--exact)
    grep -q '"exact": *true' "$dir/case.json" || tol=(--rtol 1e-4 --atol 1e-5)
    out=$("${qemu[@]}" "$build/bin/aotrt" run "$dir/model.so" --inputs "$dir/inputs.npz" --expect "$dir/expected.npz" \
          "${tol[@]}" 2>&1)
    status=$?
    echo "$out" | tail -4
    if [ $status -ne 0 ] && grep -q "{GraphExecutorFactory} but a loader" <<<"$out"; then
      record "CLI $name" 0 "(skipped: graph executor not available)"
    else
      record "CLI $name" $status "(${tol[*]})"
    fi
  done
fi
record "total time" 0 "($(( $(date +%s) - start )) s: build $((built - start)) s, tests $(( $(date +%s) - built )) s)"
summary
