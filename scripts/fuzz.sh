#!/usr/bin/env bash
# Build the libFuzzer targets with clang (ASan+UBSan) and run each for SECONDS (default 30),
# starting from seed corpora made by tests/fuzz/seeds.py. A crash fails the script.
#   scripts/fuzz.sh [SECONDS]
set -euo pipefail
cd "$(dirname "$0")/.."
seconds=${1:-30}
bash scripts/install-deps.sh
dpkg-query -W -f='${Status}' clang libclang-rt-14-dev 2>/dev/null | grep -c "install ok installed" | grep -q 2 || {
  apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends clang libclang-rt-14-dev >/dev/null
}
build=build-fuzz
CC=clang CXX=clang++ cmake -S . -B $build -DCMAKE_BUILD_TYPE=RelWithDebInfo -DAOTRT_BUILD_FUZZERS=ON \
  -DAOTRT_BUILD_BENCH=OFF -DAOTRT_BUILD_TESTS=OFF -DAOTRT_BUILD_TOOLS=OFF >/dev/null
cmake --build $build -j"$(nproc)" --target fuzz_blob fuzz_ndarray fuzz_elf fuzz_npy aotrt_test_models
/usr/bin/python3 tests/fuzz/seeds.py $build/models $build/fuzz/seeds
failed=0
for t in blob ndarray elf npy; do
  mkdir -p $build/fuzz/corpus_$t
  # Known crashers first (tests/fuzz/regressions), then new inputs for $seconds seconds.
  for r in tests/fuzz/regressions/${t}_*; do
    [ -e "$r" ] || continue
    $build/fuzz/fuzz_$t "$r" > $build/fuzz/regression_$t.log 2>&1 || { echo "fuzz_$t: regression $r fails"; failed=$((failed + 1)); }
  done
  if $build/fuzz/fuzz_$t -max_total_time="$seconds" -rss_limit_mb=4096 -print_final_stats=1 \
       -artifact_prefix=$build/fuzz/crash_${t}_ $build/fuzz/corpus_$t $build/fuzz/seeds/$t > $build/fuzz/fuzz_$t.log 2>&1; then
    echo "fuzz_$t: ok ($(grep -m1 -o 'stat::number_of_executed_units: *[0-9]*' $build/fuzz/fuzz_$t.log | grep -o '[0-9]*$') runs)"
  else
    echo "fuzz_$t: FAILED, see $build/fuzz/fuzz_$t.log"; tail -30 $build/fuzz/fuzz_$t.log; failed=$((failed + 1))
  fi
done
echo "fuzz: $((4 - failed)) passed, $failed failed"
[ $failed -eq 0 ]
