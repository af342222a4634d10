#!/usr/bin/env bash
# How the dispatcher's window (SMPs in flight) changes discovery time on ibsim:
# the measurement behind DispatcherOptions::window's default. Not a test.
# Usage: bench/dispatcher_window.sh [ibsm topo args...]   (default: fat-tree --k 16 --n 3)
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
ibsm=$(realpath -m "${IBSM:-$top/build/bin/ibsm}")  # absolute: some runs start in a scratch folder
umad2sim=/usr/lib/x86_64-linux-gnu/umad2sim/libumad2sim.so
args=("$@"); [[ ${#args[@]} -gt 0 ]] || args=(fat-tree --k 16 --n 3)
work=$(mktemp -d /tmp/ibsm-window.XXXXXX)
cd "$work"
"$ibsm" topo "${args[@]}" -o fabric.net 2>/dev/null
n=$(grep -cE '^(Switch|Ca)' fabric.net)
export IBSIM_SOCKNAME="ibsm-window-$$" SIM_HOST=host-0
mkfifo console
ibsim -N $((n + 16)) -S $((n + 16)) -P $((n * 80)) -s fabric.net <>console >sim.out 2>&1 &
sim=$!
trap 'kill $sim 2>/dev/null; wait $sim 2>/dev/null || true; rm -rf "$work"' EXIT
for _ in $(seq 1 6000); do grep -q "Network simulator ready" sim.out && break; sleep 0.05; done

echo "fabric: ${args[*]} ($n nodes); median of 5 runs"
printf '%8s %10s %10s\n' window smps median_s
for w in 1 2 4 8 16 32 64 128; do
  times=()
  for _ in 1 2 3 4 5; do
    s0=$(date +%s.%N)
    smps=$(LD_PRELOAD=$umad2sim "$ibsm" discover --window "$w" --stats -o /dev/null 2>&1 | sed -nE 's/.* ([0-9]+) SMPs sent.*/\1/p')
    s1=$(date +%s.%N)
    times+=("$(echo "$s1 - $s0" | bc -l)")
  done
  median=$(printf '%s\n' "${times[@]}" | sort -g | sed -n 3p)
  printf '%8s %10s %10.3f\n' "$w" "$smps" "$median"
done
