#!/usr/bin/env bash
# The main job on the bundled sample model: install what is missing, build, then inspect the
# digits classifier, run it on a real handwritten digit and benchmark it.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/install-deps.sh
jobs=$(nproc)
echo "== configuring (cmake -S . -B build)"
cmake -S . -B build -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null
# The first build takes a minute or two: let the build tool print its progress ([n/N] lines).
echo "== building the aotrt CLI and the digits sample with $jobs job(s)"
cmake --build build -j"$jobs" --target aotrt_cli aotrt_sample_digits
echo

aotrt=build/bin/aotrt
model=build/samples/digits.so
digit=samples/digits/inputs/digit_7.npy

echo "== aotrt inspect $model"
$aotrt inspect "$model"
echo
echo "== the input: $digit (8x8 pixels, 0..16)"
/usr/bin/python3 - "$digit" <<'PY'
import sys, numpy as np
img = np.load(sys.argv[1]).reshape(8, 8)
shades = " .:-=+*#%@"
for row in img:
    print("   " + "".join(shades[min(int(v) * len(shades) // 17, len(shades) - 1)] * 2 for v in row))
PY
echo
echo "== aotrt run $model --input image=$digit"
$aotrt run "$model" --input image="$digit"
echo
echo "== aotrt bench $model"
$aotrt bench "$model" --input image="$digit" --number 100 --repeat 200
