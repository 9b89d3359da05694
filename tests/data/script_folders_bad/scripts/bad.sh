#!/usr/bin/env bash
# What check_script_folders.py must refuse: the folder taken as is, then joined to $PWD.
cd "$(dirname "$0")/.."
build=${1:-build}
cmake -S . -B "$build" -DCMAKE_PREFIX_PATH="$PWD/$build/deps/usr"
