#!/usr/bin/env bash
# The CUDA checks that need an NVIDIA GPU (issue 44, item 5), in two steps: the GPU machine (the device
# tool's nvidia-h200) has CMake and a compiler but none of this project's Debian build dependencies, and
# sees neither ../shared nor anything outside the repository.
#
#   scripts/gpu-check.sh pack [BUILD_DIR]   here, on the CPU machine: builds libaotrt, the CLI and the e2e
#                                            tests in BUILD_DIR (default build-gpu-check, made as Release; an
#                                            existing build folder, e.g. build, is used as configured), gathers
#                                            them, the libraries they need beyond glibc, the CUDA fixtures
#                                            (../shared/fixtures/gpu/u_*) and the fixture converter into
#                                            .gpu-check/ (git-ignored)
#   scripts/gpu-check.sh run                 on the GPU machine, from the repository root, .gpu-check carried:
#                                            device tool run(command="scripts/gpu-check.sh run",
#                                            carry=[".gpu-check"], timeout_s=300): nvidia-smi, `aotrt devices`,
#                                            CUDAFixtures.* (every u_* export on cuda:0 against TVM's CPU
#                                            reference within case.json's rtol/atol), `aotrt run --expect` and
#                                            `aotrt bench` on cuda:0, then one PASS/FAIL line per check and the
#                                            figures. Takes about a minute; leaves the log in $OUT when set.
set -uo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
pack=$root/.gpu-check

if [[ ${1:-} == pack ]]; then
  set -e
  build=$(realpath -m "${2:-$root/build-gpu-check}")
  fixtures=$root/../shared/fixtures/gpu
  ls "$fixtures"/u_*/case.json >/dev/null
  [[ -f $build/CMakeCache.txt ]] || cmake -S "$root" -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Release >/dev/null
  cmake --build "$build" -j"${JOBS:-2}" --target aotrt aotrt_cli aotrt_e2e_tests
  rm -rf "$pack" && mkdir -p "$pack/bin" "$pack/lib" "$pack/fixtures"
  cp "$build/bin/aotrt" "$build/tests/aotrt_e2e_tests" "$pack/bin/"
  cp -L "$build/src/libaotrt.so.0" "$pack/lib/"
  # The libraries they load beyond glibc and the C++ runtime (spdlog, fmt): the GPU machine's distribution
  # has neither. (Debian 12's libstdc++ would need glibc 2.36; aotrt's binaries need 2.34 and GLIBCXX 3.4.30.)
  for f in "$pack/bin/"* "$pack/lib/libaotrt.so.0"; do
    ldd "$f" | awk '$3 ~ /^\// {print $3}'
  done | sort -u | grep -Ev '/(libc|libm|libdl|libpthread|librt|libstdc\+\+|libgcc_s|ld-linux[^/]*)\.so' |
    xargs -r cp -L -t "$pack/lib/"
  strip --strip-debug "$pack/bin/"* "$pack/lib/"*  # the device tool carries at most 64 MiB
  cp -r "$fixtures"/u_* "$pack/fixtures/"
  cp "$root/tests/common/convert_fixtures.py" "$pack/"
  du -sh "$pack"
  echo "packed: run it on the GPU machine as 'scripts/gpu-check.sh run' with carry [\".gpu-check\"]"
  exit 0
fi

if [[ ${1:-} != run ]]; then
  sed -n '2,21p' "${BASH_SOURCE[0]}"
  exit 2
fi

[[ -x $pack/bin/aotrt ]] || { echo "no $pack: run 'scripts/gpu-check.sh pack' first (on the CPU machine)"; exit 2; }
log=${OUT:-/tmp}/gpu-check.log
exec > >(tee "$log") 2>&1
export LD_LIBRARY_PATH=$pack/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
export AOTRT_TEST_GPU_FIXTURES_NPY_DIR=/tmp/gpu-check-npy AOTRT_CACHE_DIR=/tmp/gpu-check-cache
results=()
check() {  # check NAME COMMAND...: runs it, records PASS or FAIL
  local name=$1
  shift
  echo "=== $name: $*"
  if "$@"; then results+=("PASS $name"); else results+=("FAIL $name (exit $?)"); fi
}

check nvidia-smi nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv
check devices "$pack/bin/aotrt" devices
check cuda-device bash -c "'$pack/bin/aotrt' devices | grep -q '^cuda:0 '"  # else every CUDA test below skips
check convert "${PYTHON:-python3}" "$pack/convert_fixtures.py" "$pack/fixtures" "$AOTRT_TEST_GPU_FIXTURES_NPY_DIR"
check CUDAFixtures "$pack/bin/aotrt_e2e_tests" --gtest_filter='CUDAFixtures.*' --gtest_color=no
for d in "$pack/fixtures"/u_*; do
  c=$(basename "$d")
  tol=$("${PYTHON:-python3}" -c "import json; j = json.load(open('$d/case.json')); print(j['rtol'], j['atol'])")
  check "run-$c" "$pack/bin/aotrt" run "$d/model.so" --device cuda:0 --inputs "$d/inputs.npz" --expect "$d/expected.npz" \
    --rtol "${tol% *}" --atol "${tol#* }"
  check "bench-$c" "$pack/bin/aotrt" bench "$d/model.so" --device cuda:0 --inputs "$d/inputs.npz" -r 200
  check "profile-$c" "$pack/bin/aotrt" profile "$d/model.so" --device cuda:0 --inputs "$d/inputs.npz" -n 50
done
echo "=== summary"
printf '%s\n' "${results[@]}"
grep -h '^\[ figures' "$log" || true
! printf '%s\n' "${results[@]}" | grep -q '^FAIL'
