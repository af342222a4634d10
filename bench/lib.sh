# Shared helpers for the benchmark scripts (source it after setting `work`,
# the scratch folder):
#   start_ibsim NAME NETFILE [IBSIM ARGS...]  a fresh ibsim sized for NETFILE (the args, e.g. -L, after
#                             the sizes, override them), console on $work/console; sets sim
#                             ($IBSIM_ARGS adds options too, e.g. -L 49152 for LFTs past 30,720 LIDs)
#   stop PID                  kill and reap
#   wall_s TIMEFILE           the wall time in seconds from a `/usr/bin/time -v` file
#   ratio A B [DIGITS]        A/B (2 decimals by default), "-" when B is 0
#   median                    the median of the numbers on standard input, "-" for none

start_ibsim() {
  local name=$1 net=$2 nodes
  shift 2
  nodes=$(grep -cE '^(Switch|Ca|Hca)' "$net")
  export IBSIM_SOCKNAME="ibsm-bench-$$-$name-$RANDOM"
  rm -f "$work/console" "$work/ibsim.out"
  mkfifo "$work/console"
  # shellcheck disable=SC2086
  ibsim -N $((nodes + 16)) -S $((nodes + 16)) -P $((nodes * 80)) ${IBSIM_ARGS:-} "$@" -s "$net" <>"$work/console" >"$work/ibsim.out" 2>&1 &
  sim=$!
  for _ in $(seq 1 6000); do grep -q "Network simulator ready" "$work/ibsim.out" 2>/dev/null && break; sleep 0.05; done
}
stop() { kill "$1" 2>/dev/null || true; wait "$1" 2>/dev/null || true; }
wall_s() { awk '/Elapsed \(wall clock\)/ {n=split($NF,t,":"); s=0; for(i=1;i<=n;i++) s=s*60+t[i]; print s}' "$1"; }
ratio() { awk -v a="$1" -v b="$2" -v d="${3:-2}" 'BEGIN {if (b > 0) printf "%.*f", d, a / b; else print "-"}'; }
median() {
  sort -g | awk '{v[NR] = $1} END {if (NR == 0) print "-"; else if (NR % 2) print v[(NR + 1) / 2]; else print (v[NR / 2] + v[NR / 2 + 1]) / 2}'
}
