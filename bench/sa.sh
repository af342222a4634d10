#!/usr/bin/env bash
# SA benchmark (not a test): PathRecord queries per second on one core
# (bench/sa_path_qps.cpp) on a 10,648-CA fat tree (22-ary 3-tree, ftree
# routing), at LMC 0 and LMC 2: Gets by SLID+DLID and by SGID+DGID between
# random CA ports, and GetTables from one port to every end port.
# Builds the sa_path_qps target in a Release build directory first.
# Usage: bench/sa.sh [--quick] [--build-dir DIR]
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
build=${BUILD_DIR:-$top/build-rel}
quick=0
while [[ $# -gt 0 ]]; do
  case $1 in
    --quick) quick=1 ;;
    --build-dir) build=$2; shift ;;
    *) echo "unknown option $1" >&2; exit 2 ;;
  esac
  shift
done
cmake -S "$top" -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Release -DIBSM_TESTS=OFF > /dev/null
cmake --build "$build" --target sa_path_qps > /dev/null
queries=2000000
[[ $quick == 1 ]] && queries=200000
for lmc in 0 2; do
  echo "== lmc $lmc"
  "$build/bin/sa_path_qps" --k 22 --n 3 --lmc "$lmc" --engine ftree --queries "$queries" --tables 50
done
