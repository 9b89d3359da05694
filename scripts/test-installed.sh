#!/usr/bin/env bash
# The install commands the README gives, run as a user would, into a scratch prefix that is not the
# configured one:
#   1. cmake --install, then examples/ built with find_package(aotrt) (C++ and C), and the C example
#      compiled with pkg-config's flags alone; programs written for TVM's C++ runtime (tests/tvm_cpp)
#      linked with -ltvm_runtime, pkg-config tvm_runtime and find_package(tvm_runtime), and each
#      installed tvm/runtime header compiled alone (AOTRT_TVM_SOURCE=<tvm tree>: cpp_deploy.cc too);
#   2. the Python package cmake --install put under the prefix, imported with PYTHONPATH alone (it
#      finds the installed libaotrt.so by itself);
#   3. the venv recipe for pip users;
#   4. the wheel that carries libaotrt.so (scripts/build-wheel.sh), pip-installed into a fresh venv
#      with neither AOTRT_LIBRARY nor an installed library, and nothing left in the source tree;
#   5. the README's Dask example, run as a script.
# Each classifies the bundled sample digit. Prints `installed package: N passed, M failed`.
#   scripts/test-installed.sh BUILD_DIR
set -uo pipefail
build=$(realpath -m "${1:-$(dirname "$0")/../build}")   # relative to where it is run, or absolute
cd "$(dirname "$0")/.."
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
prefix=$work/prefix
model=$build/samples/digits.so
passed=0 failed=0
check() {  # name, command...
  local name=$1; shift
  if "$@" >"$work/log" 2>&1; then
    passed=$((passed + 1)); echo "ok    $name"
  else
    failed=$((failed + 1)); echo "FAIL  $name"; sed 's/^/      /' "$work/log"
  fi
}

check "cmake --install into $prefix" cmake --install "$build" --prefix "$prefix"
libdir=$(find "$prefix" -name libaotrt.so -printf '%h\n' | head -1)

# 1. C++ and C against the installed package.
check "examples/ with find_package(aotrt)" bash -c "
  cmake -S examples -B '$work/examples' -DCMAKE_PREFIX_PATH='$prefix' &&
  cmake --build '$work/examples' -j$(nproc) &&
  LD_LIBRARY_PATH='$libdir' '$work/examples/run_model_cpp' '$model' &&
  LD_LIBRARY_PATH='$libdir' '$work/examples/run_model_c' '$model'"
check "the C example with pkg-config's flags alone" bash -c "
  export PKG_CONFIG_PATH='$libdir/pkgconfig'
  pkg-config --cflags aotrt | grep -q -- '-I$prefix/' &&
  cc examples/run_model.c -o '$work/run_model_pc' \$(pkg-config --cflags --libs aotrt) &&
  env -u LD_LIBRARY_PATH '$work/run_model_pc' '$model'"   # the .pc's rpath finds the library

# 1b. Programs written for TVM's C++ runtime (tests/tvm_cpp; README "Moving a C++ program from TVM's
#     runtime"), linked the ways their build files do; each runs on the real exports (77: skipped).
tvm_fixtures=$PWD/../shared/fixtures
run_or_skip() { "$@"; local rc=$?; [ $rc -eq 77 ] && echo "(skipped)"; [ $rc -eq 0 ] || [ $rc -eq 77 ]; }
export -f run_or_skip
vendor=$work/opt/acme-sdk/tvm   # a vendor tree: TVM's headers and -ltvm_runtime under its own prefix
check "TVM-style program: -I<vendor>/include -ltvm_runtime, as TVM's Makefiles link" bash -c "
  mkdir -p '$work/opt/acme-sdk' && cp -a '$prefix' '$vendor' &&
  vlib=\$(dirname \$(find '$vendor' -name libtvm_runtime.so)) &&
  c++ -std=c++17 -O2 -I'$vendor/include' -DDMLC_USE_LOGGING_LIBRARY='<tvm/runtime/logging.h>' \
    tests/tvm_cpp/old_spellings.cc -o '$work/old_spellings' -L\$vlib -ltvm_runtime -laotrt_npy -lminizip \
    -Wl,-rpath,\$vlib && readelf -d '$work/old_spellings' | grep -q 'libaotrt.so' &&
  run_or_skip env -u LD_LIBRARY_PATH '$work/old_spellings' '$tvm_fixtures/tvm'"
# Shipping it (README "What to ship with the program"): the program and libaotrt.so.0 alone, the
# vendor tree gone, as on a board.
check "shipped: the -ltvm_runtime program runs with libaotrt.so.0 beside it and nothing else" bash -c "
  mkdir -p '$work/board' && cp '$work/old_spellings' '$work/board/' &&
  cp -L \$(dirname \$(find '$vendor' -name libtvm_runtime.so))/libaotrt.so.0 '$work/board/' &&
  mv '$vendor' '$vendor.away' && trap \"mv '$vendor.away' '$vendor'\" EXIT &&
  readelf -d '$work/board/old_spellings' | grep NEEDED | grep -q 'libaotrt.so.0' &&
  run_or_skip env LD_LIBRARY_PATH='$work/board' '$work/board/old_spellings' '$tvm_fixtures/tvm'"
check "TVM-style program: pkg-config tvm_runtime aotrt_npy (minizip comes with aotrt_npy)" bash -c "
  export PKG_CONFIG_PATH='$libdir/pkgconfig' &&
  c++ -std=c++17 tests/tvm_cpp/api_styles.cc -o '$work/api_styles' \$(pkg-config --cflags --libs tvm_runtime aotrt_npy) &&
  run_or_skip env -u LD_LIBRARY_PATH '$work/api_styles' '$tvm_fixtures/tvm'"
mkdir -p "$work/tvm_cmake"
cat >"$work/tvm_cmake/CMakeLists.txt" <<EOF
cmake_minimum_required(VERSION 3.18)
project(tvm_deploy CXX)
find_package(tvm_runtime REQUIRED)
find_package(aotrt REQUIRED)
foreach(p deploy_aot deploy_graph)
  add_executable(\${p} $PWD/tests/tvm_cpp/\${p}.cc)
  target_compile_features(\${p} PRIVATE cxx_std_17)
  target_link_libraries(\${p} PRIVATE tvm_runtime aotrt::aotrt_npy)
endforeach()
EOF
check "TVM-style programs: find_package(tvm_runtime), target tvm_runtime" bash -c "
  cmake -S '$work/tvm_cmake' -B '$work/tvm_cmake/build' -DCMAKE_PREFIX_PATH='$prefix' &&
  cmake --build '$work/tvm_cmake/build' -j2 &&
  run_or_skip '$work/tvm_cmake/build/deploy_aot' '$tvm_fixtures/tvm' &&
  run_or_skip '$work/tvm_cmake/build/deploy_graph' '$tvm_fixtures/graph'"
check "every installed tvm/runtime header compiles on its own" bash -c "
  cd '$prefix/include' && for h in \$(find tvm/runtime -name '*.h'); do
    echo \"#include <\$h>\" | c++ -std=c++17 -fsyntax-only -Wall -Wextra -Werror -I. -x c++ - || { echo \"in \$h\"; exit 1; }
  done"
check "find_package(aotrt) on a build tree says to install it" bash -c "
  ! cmake -S examples -B '$work/wrong' -Daotrt_DIR='$build' > '$work/wrong.log' 2>&1 &&
  cat '$work/wrong.log' && grep -q 'build tree, not an installed package' '$work/wrong.log'"
# TVM's own deploy example, unchanged, when a TVM source tree is given (compiled only: running it
# needs the libraries its prepare_test_libs.py builds with TVM).
if [ -f "${AOTRT_TVM_SOURCE:-/nonexistent}/apps/howto_deploy/cpp_deploy.cc" ]; then
  check "TVM's apps/howto_deploy/cpp_deploy.cc, unchanged, with -ltvm_runtime" \
    c++ -std=c++17 -Wall -I"$prefix/include" "$AOTRT_TVM_SOURCE/apps/howto_deploy/cpp_deploy.cc" \
      -o "$work/cpp_deploy" -L"$libdir" -ltvm_runtime
fi

# 2 and 3: Python. No AOTRT_LIBRARY, no LD_LIBRARY_PATH: the package finds its library itself.
classify='
import sys
import numpy as np
import aotrt as tvm
from aotrt.runtime.executor import AotModule
print("imported", tvm.__file__, "over", tvm._ffi.LIB_PATH)
assert not tvm.__file__.startswith(sys.argv[2]), "imported the source tree, not the installed copy"
m = AotModule(tvm.runtime.load_module(sys.argv[1])["default"](tvm.cpu(0)))
m.set_input("image", np.load("samples/digits/inputs/digit_3.npy"))
m.run()
assert int(m.get_output(1).numpy()[0]) == 3
'
pydir=$(find "$prefix" -type d -name dist-packages | head -1)
check "Python: PYTHONPATH=$pydir alone" env -u AOTRT_LIBRARY -u LD_LIBRARY_PATH PYTHONPATH="$pydir" \
  /usr/bin/python3 -c "$classify" "$model" "$PWD/python_stubs"
# (From a copy: building the package writes build/ and *.egg-info/ next to its sources.)
cp -r python_stubs "$work/python_src"
check "Python: the venv recipe" bash -c "
  /usr/bin/python3 -m venv --system-site-packages '$work/venv' &&
  '$work/venv/bin/pip' install -q --no-index --no-build-isolation '$work/python_src' &&
  AOTRT_LIBRARY='$libdir' '$work/venv/bin/python' -c '$classify' '$model' '$PWD/python_stubs'"

# 4. The wheel: built offline in a temporary copy, so the source tree must be unchanged after.
tree_state() { git status --porcelain --ignored -- python_stubs scripts 2>/dev/null; }
before=$(tree_state)
check "Python: the wheel carrying libaotrt.so, in a fresh venv" bash -c "
  wheel=\$(scripts/build-wheel.sh '$build' '$work/wheel') &&
  unzip -l \"\$wheel\" | grep -q 'aotrt/lib/libaotrt.so' &&
  /usr/bin/python3 -m venv --system-site-packages '$work/wheel-venv' &&
  '$work/wheel-venv/bin/pip' install -q --no-index \"\$wheel\" &&
  env -u AOTRT_LIBRARY -u LD_LIBRARY_PATH -u PYTHONPATH '$work/wheel-venv/bin/python' -c '$classify' \
    '$model' '$PWD/python_stubs' | tee /dev/stderr | grep -q 'wheel-venv/.*/aotrt/lib/libaotrt.so'"
check "the wheel left nothing in the source tree" test "$(tree_state)" = "$before"

# 5. The README's Dask example, as a script (Dask's worker processes need its __main__ guard).
if /usr/bin/python3 -c "import dask, distributed" 2>/dev/null; then
  check "the README's Dask example as a script" env -u AOTRT_LIBRARY PYTHONPATH="$pydir" \
    /usr/bin/python3 scripts/readme_example.py README.md "Scoring large data sets with Dask" "$work/dask" \
    "$model" "$PWD/samples/digits/inputs/digit_3.npy"
fi

echo "installed package: $passed passed, $failed failed"
[ "$failed" -eq 0 ]
