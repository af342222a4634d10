#!/usr/bin/env bash
# Discovery benchmark (not a test): speed, SMPs and memory.
#  1. SimFabric: `ibsm discover --sim` on generated fat trees from 1k to 48k
#     endpoints: wall time, SMPs sent, peak RSS (/usr/bin/time -v).
#  2. ibsim: `ibsm discover` beside `ibnetdiscover` on the same fabrics:
#     wall-time ratio and SMP counts (counted by tools/umad_count/umad_count.c around umad_send).
# Usage: bench/discovery.sh [--quick] [--no-ibsim]
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
ibsm=$(realpath -m "${IBSM:-$top/build/bin/ibsm}")  # absolute: some runs start in a scratch folder
umad2sim=/usr/lib/x86_64-linux-gnu/umad2sim/libumad2sim.so
quick=0; with_ibsim=1
for a in "$@"; do
  case $a in --quick) quick=1 ;; --no-ibsim) with_ibsim=0 ;; *) echo "unknown option $a" >&2; exit 2 ;; esac
done
[[ -x $ibsm ]] || { echo "build ibsm first (cmake --build build)" >&2; exit 1; }
work=$(mktemp -d /tmp/ibsm-bench.XXXXXX)
source "$top/bench/lib.sh"
trap 'rm -rf "$work"' EXIT
cc -shared -fPIC -O2 -o "$work/umad_count.so" "$top/tools/umad_count/umad_count.c" -ldl -lpthread

# name | ibsm topo arguments
fabrics=(
  "ft-1k|fat-tree --k 10 --n 3"
  "ft-4k|fat-tree --k 16 --n 3"
  "ft-16k|xgft --down 32,32,16 --up 1,32,16"
  "ft-48k|xgft --down 32,32,48 --up 1,32,32"
)
ibsim_fabrics=("ft-1k" "ft-4k")
if [[ $quick == 1 ]]; then fabrics=("${fabrics[@]:0:2}"); ibsim_fabrics=("ft-1k"); fi

peak_kb() { awk -F: '/Maximum resident set size/ {gsub(/ /,"",$2); print $2}' "$1"; }

echo "== SimFabric (in-process): ibsm discover --sim"
printf '%-8s %8s %8s %10s %10s %10s\n' fabric nodes links smps wall_s peak_MiB
for f in "${fabrics[@]}"; do
  name=${f%%|*}; args=${f#*|}
  # shellcheck disable=SC2086
  "$ibsm" topo $args -o "$work/$name.net" 2>/dev/null
  /usr/bin/time -v "$ibsm" discover --sim "$work/$name.net" --stats -o /dev/null 2> "$work/$name.sim.err"
  stats=$(grep "ibsm discover:" "$work/$name.sim.err" | tail -1)
  nodes=$(sed -E 's/.*: ([0-9]+) nodes.*/\1/' <<<"$stats")
  links=$(sed -E 's/.* ([0-9]+) links.*/\1/' <<<"$stats")
  smps=$(sed -E 's/.* ([0-9]+) SMPs sent.*/\1/' <<<"$stats")
  printf '%-8s %8s %8s %10s %10s %10s\n' "$name" "$nodes" "$links" "$smps" "$(wall_s "$work/$name.sim.err")" \
    $(( $(peak_kb "$work/$name.sim.err") / 1024 ))
done

[[ $with_ibsim == 1 ]] || exit 0
echo
echo "== ibsim: ibsm discover vs ibnetdiscover (same fabric, same simulator)"
printf '%-8s %10s %10s %10s %10s %9s %9s\n' fabric ibsm_smps ibnd_smps smp_ratio ibsm_s ibnd_s time_ratio
for name in "${ibsim_fabrics[@]}"; do
  net=$work/$name.net
  nodes=$(grep -cE '^(Switch|Ca)' "$net")
  export IBSIM_SOCKNAME="ibsm-bench-$$-$name"
  (cd "$work" && mkfifo "console-$name" && exec ibsim -N $((nodes + 16)) -S $((nodes + 16)) -P $((nodes * 80)) \
      -s "$net" <>"console-$name" >"$work/$name.ibsim.out" 2>&1) &
  sim=$!
  for _ in $(seq 1 6000); do grep -q "Network simulator ready" "$work/$name.ibsim.out" 2>/dev/null && break; sleep 0.05; done
  export SIM_HOST=host-0
  rm -f "$work/count"
  s0=$(date +%s.%N)
  UMAD_COUNT_FILE=$work/count LD_PRELOAD="$work/umad_count.so $umad2sim" "$ibsm" discover -o /dev/null 2>/dev/null
  s1=$(date +%s.%N)
  UMAD_COUNT_FILE=$work/count LD_PRELOAD="$work/umad_count.so $umad2sim" ibnetdiscover >/dev/null 2>&1
  s2=$(date +%s.%N)
  kill $sim; wait $sim 2>/dev/null || true
  ours=$(awk '$2=="ibsm" {print $3}' "$work/count"); theirs=$(awk '$2=="ibnetdiscover" {print $3}' "$work/count")
  printf '%-8s %10s %10s %10.2f %10.3f %9.3f %9.2f\n' "$name" "$ours" "$theirs" "$(echo "$ours/$theirs" | bc -l)" \
    "$(echo "$s1-$s0" | bc -l)" "$(echo "$s2-$s1" | bc -l)" "$(echo "($s1-$s0)/($s2-$s1)" | bc -l)"
done
