#!/usr/bin/env bash
# The cost of watching (benchmark, not a test): the SA's PathRecord rate and
# the heavy sweep's time with the daemon watched -- /metrics and the status
# page scraped every second, the performance manager sweeping every port's
# PMA counters every second -- against the daemon with both off, on the same
# ibsim fabric (a fresh simulator each run). Runs alternate off/on, R times
# each, and the table gives the medians and the ratio on/off.
#  - SA: PathRecord Gets by SLID+DLID between random LIDs from P load
#    processes (bench/sa_load.cpp, N in flight each) for S seconds;
#  - sweep: the "SUBNET UP ... in X s" of K heavy sweeps forced by SIGHUP
#    (one at a time, each after the last is up).
# --watch metrics (scraping only) or perf (the PMA sweeps only) splits the cost.
# Usage: bench/watch_cost.sh [--k K] [--n N] [--procs P] [--inflight N] [--seconds S]
#                            [--sweeps K] [--runs R] [--watch both|metrics|perf] [--build-dir DIR]
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
build=${BUILD_DIR:-$top/build-rel}
umad2sim=/usr/lib/x86_64-linux-gnu/umad2sim/libumad2sim.so
k=4; n=3; procs=4; inflight=16; seconds=8; sweeps=5; runs=3; watch=both
while [[ $# -gt 0 ]]; do
  case $1 in
    --k) k=$2; shift ;;
    --n) n=$2; shift ;;
    --procs) procs=$2; shift ;;
    --inflight) inflight=$2; shift ;;
    --seconds) seconds=$2; shift ;;
    --sweeps) sweeps=$2; shift ;;
    --runs) runs=$2; shift ;;
    --watch) watch=$2; shift ;;
    --build-dir) build=$2; shift ;;
    *) echo "unknown option $1" >&2; exit 2 ;;
  esac
  shift
done
(( procs >= 1 && procs <= 7 )) || { echo "--procs 1-7 (ibsim takes 10 clients: the SM, the loaders, the judges)" >&2; exit 2; }
cmake -S "$top" -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Release -DIBSM_TESTS=OFF > /dev/null
cmake --build "$build" --target ibsm sa_load > /dev/null
ibsm=$build/bin/ibsm
work=$(mktemp -d /tmp/ibsm-bench-watch.XXXXXX)
source "$top/bench/lib.sh"
trap 'kill $(jobs -p) 2>/dev/null; rm -rf "$work"' EXIT
cd "$work"

"$ibsm" topo fat-tree --k "$k" --n "$n" -o fabric.net > /dev/null
nodes=$(grep -cE '^(Switch|Ca|Hca)' fabric.net)
echo "fabric: fat tree k=$k n=$n ($nodes nodes); $procs loaders x $inflight in flight, $seconds s; $sweeps heavy sweeps; $runs runs each"

ups() { grep -c "SUBNET UP" sm.log 2>/dev/null || true; }

# run MODE INDEX: one daemon, watched (on) or not (off); appends to MODE.qps and MODE.sweep.
run() {
  local mode=$1 index=$2 sm watcher="" i
  start_ibsim "$mode-$index" "$work/fabric.net"
  mkdir -p "$mode.$index" && cd "$mode.$index"
  if [[ $mode == on ]]; then
    printf 'metrics_listen %s\nperfmgr %s\nperfmgr_sweep_time_s 1\n' "$([[ $watch == perf ]] && echo off || echo 127.0.0.1:0)" \
      "$([[ $watch == metrics ]] && echo FALSE || echo TRUE)" > sm.conf
  else
    printf 'metrics_listen off\nperfmgr FALSE\n' > sm.conf
  fi
  SIM_HOST=host-0 LD_PRELOAD=$umad2sim "$ibsm" run -F sm.conf -s 10 -f "$PWD/sm.log" --cache-dir "$PWD" \
    --control-socket "$PWD/ctl.sock" > sm.out 2>&1 &
  sm=$!
  for _ in $(seq 1 600); do [[ $(ups) -ge 1 ]] && break; sleep 0.1; done
  [[ $(ups) -ge 1 ]] || { echo "$mode: no SUBNET UP: $(tail -3 sm.log)" >&2; exit 1; }
  sleep 1
  if [[ $mode == on && $watch != perf ]]; then
    local port
    port=$(grep -oE 'serving metrics on http://127\.0\.0\.1:[0-9]+' sm.log | grep -oE '[0-9]+$')
    ( while :; do curl -s --max-time 5 -o /dev/null "http://127.0.0.1:$port/metrics"
                  curl -s --max-time 5 -o /dev/null "http://127.0.0.1:$port/"; sleep 1; done ) &
    watcher=$!
  fi
  local pids=()
  for i in $(seq 1 "$procs"); do
    SIM_HOST=host-$((i + 1)) LD_PRELOAD=$umad2sim timeout $((seconds + 20)) "$build/bin/sa_load" --lids "1-$nodes" \
      --seconds "$seconds" --inflight "$inflight" --seed "$i" > "load.$i" 2>&1 &
    pids+=($!)
  done
  for p in "${pids[@]}"; do wait "$p" || true; done
  cat load.* | awk '{q += $10} END {printf "%.0f\n", q}' >> "$work/$mode.qps"
  for i in $(seq 1 "$sweeps"); do
    local before
    before=$(ups)
    kill -HUP "$sm"
    for _ in $(seq 1 600); do [[ $(ups) -gt $before ]] && break; sleep 0.05; done
  done
  grep "SUBNET UP" sm.log | tail -n "$sweeps" | sed -E 's/.* in ([0-9.]+) s.*/\1/' >> "$work/$mode.sweep"
  if [[ $mode == on ]]; then grep -c "pma sweep [0-9]*:" sm.log > "$work/on.pma.$index" || true; fi
  [[ -n $watcher ]] && stop "$watcher"
  stop "$sm"
  cd "$work"
  stop "$sim"
}

for r in $(seq 1 "$runs"); do
  run off "$r"
  run on "$r"
done
qps_off=$(median < off.qps) qps_on=$(median < on.qps)
sw_off=$(median < off.sweep) sw_on=$(median < on.sweep)
pma=$(cat on.pma.* | median)
echo
printf '%-44s %12s %12s %8s\n' "measure (median of $runs runs)" "off" "watched" "on/off"
printf '%-44s %12s %12s %8s\n' "PathRecord Gets answered/s" "$qps_off" "$qps_on" "$(ratio "$qps_on" "$qps_off" 3)"
printf '%-44s %12s %12s %8s\n' "heavy sweep (s, median of $sweeps per run)" "$sw_off" "$sw_on" "$(ratio "$sw_on" "$sw_off" 3)"
echo "watched ($watch): /metrics and / scraped every second: $([[ $watch == perf ]] && echo no || echo yes); PMA sweeps of every port per run (median): $pma"
