#!/usr/bin/env bash
# Build the libFuzzer targets with clang (ASan+UBSan) and run each, starting from seed corpora made
# by tests/fuzz/seeds.py plus the kept corpus. A crash fails the script.
#   scripts/fuzz.sh [SECONDS]                      CI: each target SECONDS (default 30)
#   scripts/fuzz.sh --long SECONDS [--corpus-dir DIR] [--targets "metadata npz"]
#                                                  a campaign: each target SECONDS, new inputs kept in
#                                                  DIR/<target> (default build-fuzz/fuzz/corpus) and
#                                                  merged (minimised to the same coverage) at the end
# Prints per target: executions, coverage (libFuzzer's final cov: and ft:) and corpus size.
set -euo pipefail
seconds=30 long=0 corpus="" targets="blob ndarray elf npy metadata npz archive mlf_metadata graph vm device_module"
while [ $# -gt 0 ]; do
  case "$1" in
    --long) long=1; seconds=$2; shift 2 ;;
    --corpus-dir) corpus=$(realpath -m "$2"); shift 2 ;;
    --targets) targets=$2; shift 2 ;;
    [0-9]*) seconds=$1; shift ;;
    *) echo "usage: $0 [SECONDS] | --long SECONDS [--corpus-dir DIR] [--targets LIST]" >&2; exit 1 ;;
  esac
done
cd "$(dirname "$0")/.."   # after the options: --corpus-dir is relative to where it is run
bash scripts/install-deps.sh
dpkg-query -W -f='${Status}' clang libclang-rt-14-dev 2>/dev/null | grep -c "install ok installed" | grep -q 2 || {
  apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends clang libclang-rt-14-dev >/dev/null
}
build=build-fuzz
corpus=${corpus:-$PWD/build-fuzz/fuzz/corpus}
CC=clang CXX=clang++ cmake -S . -B $build -DCMAKE_BUILD_TYPE=RelWithDebInfo -DAOTRT_BUILD_FUZZERS=ON \
  -DAOTRT_BUILD_BENCH=OFF -DAOTRT_BUILD_TESTS=OFF -DAOTRT_BUILD_TOOLS=OFF >/dev/null
cmake --build $build -j"$(nproc)" --target $(for t in $targets; do printf 'fuzz_%s ' "$t"; done) aotrt_test_models
/usr/bin/python3 tests/fuzz/seeds.py $build/models $build/fuzz/seeds
failed=0 count=0
for t in $targets; do
  count=$((count + 1))
  bin=$build/fuzz/fuzz_$t log=$build/fuzz/fuzz_$t.log
  mkdir -p "$corpus/$t" "$build/fuzz/seeds/$t"
  # Known crashers first (tests/fuzz/regressions), then new inputs for $seconds seconds.
  for r in tests/fuzz/regressions/${t}_*; do
    [ -e "$r" ] || continue
    $bin "$r" > $build/fuzz/regression_$t.log 2>&1 || { echo "fuzz_$t: regression $r fails"; failed=$((failed + 1)); }
  done
  if $bin -max_total_time="$seconds" -rss_limit_mb=4096 -print_final_stats=1 -artifact_prefix=$build/fuzz/crash_${t}_ \
       "$corpus/$t" $build/fuzz/seeds/$t > $log 2>&1; then
    status=ok
  else
    status=FAILED failed=$((failed + 1))
  fi
  if [ $long -eq 1 ] && [ $status = ok ]; then  # keep only inputs that add coverage
    rm -rf "$corpus/$t.merged" && mkdir -p "$corpus/$t.merged"
    $bin -merge=1 "$corpus/$t.merged" "$corpus/$t" > $build/fuzz/merge_$t.log 2>&1 &&
      rm -rf "$corpus/$t" && mv "$corpus/$t.merged" "$corpus/$t"
  fi
  runs=$(grep -o 'stat::number_of_executed_units: *[0-9]*' $log | grep -o '[0-9]*$' || true)
  final=$(grep -E '^#[0-9]+' $log | tail -1)
  cov=$(grep -o 'cov: [0-9]*' <<< "$final" | grep -o '[0-9]*' || true)
  ft=$(grep -o 'ft: [0-9]*' <<< "$final" | grep -o '[0-9]*' || true)
  echo "fuzz_$t: $status ($seconds s, ${runs:-?} runs, cov ${cov:-?}, ft ${ft:-?}, corpus $(ls "$corpus/$t" | wc -l) files)"
  [ $status = ok ] || tail -30 $log
done
echo "fuzz: $((count - failed)) passed, $failed failed (corpus: $corpus)"
[ $failed -eq 0 ]
