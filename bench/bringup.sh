#!/usr/bin/env bash
# Bring-up benchmark (not a test): ibsm against OpenSM, both min-hop.
#  1. ibsim: on the same generated fabric and a fresh simulator each, `ibsm run -o`
#     and `opensm -o`: wall time to SUBNET UP, MADs sent (umad_count around
#     umad_send, so both are counted the same way), peak RSS; then each again on
#     the fabric it has just configured (the second run).
#  2. SimFabric: `ibsm run -o --sim` from 1k to 48k endpoints: wall time, MADs,
#     peak RSS.
# Usage: bench/bringup.sh [--quick] [--no-ibsim] [--no-sim]
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
ibsm=$(realpath -m "${IBSM:-$top/build/bin/ibsm}")  # absolute: some runs start in a scratch folder
umad2sim=/usr/lib/x86_64-linux-gnu/umad2sim/libumad2sim.so
quick=0; with_ibsim=1; with_sim=1
for a in "$@"; do
  case $a in
    --quick) quick=1 ;; --no-ibsim) with_ibsim=0 ;; --no-sim) with_sim=0 ;;
    *) echo "unknown option $a" >&2; exit 2 ;;
  esac
done
[[ -x $ibsm ]] || { echo "build ibsm first (cmake -S . -B build -G Ninja && cmake --build build)" >&2; exit 1; }
work=$(mktemp -d /tmp/ibsm-bench-bringup.XXXXXX)
source "$top/bench/lib.sh"
trap 'kill $(jobs -p) 2>/dev/null; rm -rf "$work"' EXIT
cc -shared -fPIC -O2 -o "$work/umad_count.so" "$top/tools/umad_count/umad_count.c" -ldl -lpthread

peak_kb() { awk -F: '/Maximum resident set size/ {gsub(/ /,"",$2); print $2}' "$1"; }
mads() { awk -v c="$2" '$2==c {n+=$3} END {print n+0}' "$1"; }

# name | ibsm topo arguments (hosts >= 1000 each)
ibsim_fabrics=(
  "ls-1k|leaf-spine --leaves 32 --spines 16 --hosts 32"
  "ft-1.7k|fat-tree --k 12 --n 3"
  "ls-4k|leaf-spine --leaves 128 --spines 32 --hosts 32"
  "ls-8k|leaf-spine --leaves 128 --spines 32 --hosts 64"
)
sim_fabrics=(
  "ft-1k|fat-tree --k 10 --n 3"
  "ft-4k|fat-tree --k 16 --n 3"
  "ft-16k|xgft --down 32,32,16 --up 1,32,16"
  "ft-45k|xgft --down 32,32,44 --up 1,32,32"
)
if [[ $quick == 1 ]]; then ibsim_fabrics=("${ibsim_fabrics[@]:0:1}"); sim_fabrics=("${sim_fabrics[@]:0:2}"); fi

stop_ibsim() { kill "$sim" 2>/dev/null || true; wait "$sim" 2>/dev/null || true; }

# run_sm TAG COMMAND...: one run through umad2sim, timed and counted into $work/TAG.*
run_sm() {
  local tag=$1; shift
  rm -f "$work/$tag.count"
  UMAD_COUNT_FILE=$work/$tag.count LD_PRELOAD="$work/umad_count.so $umad2sim" \
    /usr/bin/time -v "$@" > "$work/$tag.out" 2> "$work/$tag.time" || { echo "$tag failed:"; tail -5 "$work/$tag.out" "$work/$tag.time"; }
}

if [[ $with_ibsim == 1 ]]; then
  echo "== ibsim: ibsm run -o vs opensm -o (min-hop both; SIM_HOST=host-0; fresh simulator per SM)"
  printf '%-8s %-6s %10s %10s %7s %9s %9s %7s %9s %9s\n' fabric run ibsm_mads osm_mads ratio ibsm_s osm_s ratio ibsm_MiB osm_MiB
  export SIM_HOST=host-0
  for f in "${ibsim_fabrics[@]}"; do
    name=${f%%|*}; args=${f#*|}
    # shellcheck disable=SC2086
    "$ibsm" topo $args -o "$work/$name.net" 2>/dev/null
    start_ibsim "$name" "$work/$name.net"
    rm -rf "$work/ibsm-cache"
    for run in first second; do
      run_sm "ibsm-$run" "$ibsm" run -o --cache-dir "$work/ibsm-cache" -f "$work/ibsm-$run.log"
    done
    stop_ibsim
    start_ibsim "$name" "$work/$name.net"
    rm -rf "$work/osm"; mkdir -p "$work/osm"
    for run in first second; do
      (cd "$work/osm" && OSM_CACHE_DIR=$work/osm OSM_TMP_DIR=$work/osm run_sm "osm-$run" opensm -o -f "$work/osm/opensm-$run.log")
    done
    stop_ibsim
    for run in first second; do
      im=$(mads "$work/ibsm-$run.count" ibsm); om=$(mads "$work/osm-$run.count" opensm)
      is=$(wall_s "$work/ibsm-$run.time"); os=$(wall_s "$work/osm-$run.time")
      printf '%-8s %-6s %10s %10s %7s %9s %9s %7s %9s %9s\n' "$name" "$run" "$im" "$om" "$(ratio "$im" "$om")" \
        "$is" "$os" "$(ratio "$is" "$os")" $(( $(peak_kb "$work/ibsm-$run.time") / 1024 )) \
        $(( $(peak_kb "$work/osm-$run.time") / 1024 ))
    done
  done
fi

if [[ $with_sim == 1 ]]; then
  echo
  echo "== SimFabric (in-process): ibsm run -o --sim"
  printf '%-8s %8s %10s %10s %10s\n' fabric nodes mads wall_s peak_MiB
  for f in "${sim_fabrics[@]}"; do
    name=${f%%|*}; args=${f#*|}
    # shellcheck disable=SC2086
    "$ibsm" topo $args -o "$work/$name.net" 2>/dev/null
    rm -rf "$work/sim-cache"
    /usr/bin/time -v "$ibsm" run -o --sim "$work/$name.net" --sim-lft-cap 49152 --cache-dir "$work/sim-cache" -f /dev/null \
      > "$work/$name.sim.out" 2> "$work/$name.sim.time" || { echo "$name failed: $(head -3 "$work/$name.sim.out")"; continue; }
    nodes=$(sed -nE 's/^SUBNET UP: ([0-9]+) nodes.*/\1/p' "$work/$name.sim.out")
    m=$(sed -nE 's/^ +([0-9]+) mads in.*/\1/p' "$work/$name.sim.out")
    printf '%-8s %8s %10s %10s %10s\n' "$name" "$nodes" "$m" "$(wall_s "$work/$name.sim.time")" \
      $(( $(peak_kb "$work/$name.sim.time") / 1024 ))
  done
fi
