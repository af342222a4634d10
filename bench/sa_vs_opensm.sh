#!/usr/bin/env bash
# SA benchmark (not a test): ibsm's SA against OpenSM's, each as the daemon
# on the same ibsim fabric (a fresh simulator each), queried by clients on
# other hosts through umad2sim:
#  1. `osmtest -f f` (OpenSM's SA flood: 100k single-MAD and RMPP queries,
#     one at a time): wall time (/usr/bin/time -v);
#  2. PathRecord Gets by SLID+DLID between random LIDs from several client
#     processes at once (bench/sa_load.cpp, several queries in flight each,
#     on different SIM_HOSTs) for a fixed time: answered queries per second.
# Prints a table with the ratio ibsm/OpenSM. ibsim allows 10 clients: the SM,
# osmtest and at most 8 load processes. Once in two runs of 8 x 32 queries in
# flight on 276 nodes, ibsm and ibsim wedged each other (ibsm blocked sending
# into ibsim's full socket, ibsim spinning to deliver to ibsm): loaders that
# get no answer are killed after 20 s and reported as stuck.
# Usage: bench/sa_vs_opensm.sh [--leaves L] [--hosts H] [--procs P] [--inflight N]
#                              [--seconds S] [--build-dir DIR]
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
build=${BUILD_DIR:-$top/build-rel}
umad2sim=/usr/lib/x86_64-linux-gnu/umad2sim/libumad2sim.so
leaves=16; hosts=16; procs=4; inflight=16; seconds=5
while [[ $# -gt 0 ]]; do
  case $1 in
    --leaves) leaves=$2; shift ;;
    --hosts) hosts=$2; shift ;;
    --procs) procs=$2; shift ;;
    --inflight) inflight=$2; shift ;;
    --seconds) seconds=$2; shift ;;
    --build-dir) build=$2; shift ;;
    *) echo "unknown option $1" >&2; exit 2 ;;
  esac
  shift
done
(( procs >= 1 && procs <= 8 )) || { echo "--procs 1-8 (ibsim takes 10 clients)" >&2; exit 2; }
cmake -S "$top" -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Release -DIBSM_TESTS=OFF > /dev/null
cmake --build "$build" --target ibsm sa_load > /dev/null
ibsm=$build/bin/ibsm
work=$(mktemp -d /tmp/ibsm-bench-sa.XXXXXX)
source "$top/bench/lib.sh"
trap 'kill $(jobs -p) 2>/dev/null; rm -rf "$work"' EXIT
cd "$work"

"$ibsm" topo leaf-spine --leaves "$leaves" --spines 4 --hosts "$hosts" -o fabric.net
nodes=$(grep -cE '^(Switch|Ca|Hca)' fabric.net)
cas=$(grep -cE '^(Ca|Hca)' fabric.net)
echo "fabric: leaf-spine, $leaves leaves, 4 spines, $cas hosts ($nodes nodes); $procs load processes x $inflight in flight, $seconds s"


# bench_sa NAME: starts the SM NAME at host-0 and measures; sets flood_NAME, qps_NAME, lost_NAME.
bench_sa() {
  local name=$1 sm i
  start_ibsim "$name" "$work/fabric.net"
  mkdir -p "$name" && cd "$name"
  if [[ $name == opensm ]]; then
    SIM_HOST=host-0 OSM_CACHE_DIR=$PWD OSM_TMP_DIR=$PWD LD_PRELOAD=$umad2sim opensm -d2 -f "$PWD/sm.log" > sm.out 2>&1 &
  else
    SIM_HOST=host-0 LD_PRELOAD=$umad2sim "$ibsm" run -s 10 -f "$PWD/sm.log" --cache-dir "$PWD" > sm.out 2>&1 &
  fi
  sm=$!
  for _ in $(seq 1 600); do grep -q "SUBNET UP" sm.log 2>/dev/null && break; sleep 0.1; done
  grep -q "SUBNET UP" sm.log || { echo "$name: no SUBNET UP" >&2; exit 1; }
  sleep 1  # the ports reach ACTIVE and learn the SM LID
  SIM_HOST=host-1 LD_PRELOAD=$umad2sim /usr/bin/time -v -o flood.time timeout 300 osmtest -f f -l "$PWD/flood.log" \
    > flood.out 2>&1 || echo "$name: osmtest -f f failed: $(grep -oE 'TEST .*' flood.out | tail -1)" >&2
  printf -v "flood_$name" '%s' "$(wall_s flood.time)"
  grep -q 'PASS' flood.out && printf -v "floodok_$name" 'PASS' || printf -v "floodok_$name" 'FAIL'
  local pids=()
  for i in $(seq 1 "$procs"); do
    SIM_HOST=host-$((i + 1)) LD_PRELOAD=$umad2sim timeout $((seconds + 20)) "$build/bin/sa_load" --lids "1-$nodes" --seconds "$seconds" \
      --inflight "$inflight" --seed "$i" > "load.$i" 2>&1 &
    pids+=($!)
  done
  for p in "${pids[@]}"; do wait "$p" || true; done
  for i in $(seq 1 "$procs"); do [[ -s load.$i ]] || echo "stuck: no answer for 20 s, killed" > "load.$i"; done
  printf -v "qps_$name" '%s' "$(cat load.* | awk '{q += $10} END {printf "%.0f", q}')"
  printf -v "lost_$name" '%s' "$(cat load.* | awk '{e += $4; t += $6} END {printf "%d/%d", e, t}')"
  cat load.* | sed "s/^/  $name load: /"
  stop "$sm"
  cd "$work"
  stop "$sim"
}

bench_sa opensm
bench_sa ibsm
echo
printf '%-40s %12s %12s %10s\n' "measure" "OpenSM" "ibsm" "ibsm/OpenSM"
printf '%-40s %12s %12s %10s\n' "osmtest -f f wall time (s)" "$flood_opensm" "$flood_ibsm" "$(ratio "$flood_ibsm" "$flood_opensm")"
printf '%-40s %12s %12s %10s\n' "osmtest -f f result" "$floodok_opensm" "$floodok_ibsm" ""
printf '%-40s %12s %12s %10s\n' "PathRecord Get answered/s ($procs procs)" "$qps_opensm" "$qps_ibsm" "$(ratio "$qps_ibsm" "$qps_opensm")"
printf '%-40s %12s %12s %10s\n' "error statuses/timeouts" "$lost_opensm" "$lost_ibsm" ""
