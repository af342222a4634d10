#!/usr/bin/env bash
# Multicast join storm benchmark (not a test): ibsm against OpenSM, each as
# the daemon on the same ibsim fabric (a fresh simulator each), the same
# storm: every CA port joins the default partition's IPoIB broadcast group
# ff12:401b:ffff::ffff:ffff as a full member.
#  - The joins come from --procs load processes (bench/mc_join_load.cpp, at
#    host-1..host-P, --inflight joins in flight each), every CA's port GUID
#    dealt out to them in turn: proxy joins with the SM_Key 1 (ibsm trusts a
#    proxy join only with the SM_Key; OpenSM takes one from any port sharing
#    the group's partition, osm_sa_mcmember_record.c; both SMs run with their
#    default SM_Key, 1). ibsim allows 10 clients: the SM, at most 8 loaders
#    and the judge.
#  - Both SMs run with periodic sweeps off (-s 0) so the counts are the
#    storm's. The SM's MADs are counted around umad_send (tools/umad_count's
#    marked window: from just before the first join to 2 s after every member
#    is reachable): MFT Sets (class 0x81 or 0x01, method Set, attribute
#    0x001B) and all MADs (SA answers included).
#  - Times, from the SM's first MCMemberRecord answer (when the storm reached
#    it; umad_count's UMAD_MARK_TIMES, the same clock for both SMs): its
#    last MCMemberRecord answer (every join answered) and its last MFT Set
#    sent (every member reachable once ibsim has applied it, well under a
#    millisecond later).
#  - Checked: the switches' MFTs, read back with dump_fts -M by the judge at
#    host-P+1 back to back while the storm runs, carry a tree that delivers
#    from every member to every other member (bench/mc_reach.py on the
#    netfile's cabling), and did not before the storm. The judge's wall
#    times from the loaders' start are printed too (the loaders' start-up
#    included; the resolution of "reached" is one dump, printed).
# Prints a table with the ratio ibsm/OpenSM. Machine caveat: ibsim, the SM,
# the loaders and the judge share the machine's cores.
# Usage: bench/multicast_vs_opensm.sh [--leaves L] [--spines S] [--hosts H] [--procs P]
#                                     [--inflight N] [--build-dir DIR]
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
build=${BUILD_DIR:-$top/build-rel}
umad2sim=/usr/lib/x86_64-linux-gnu/umad2sim/libumad2sim.so
leaves=16; spines=4; hosts=16; procs=8; inflight=16
while [[ $# -gt 0 ]]; do
  case $1 in
    --leaves) leaves=$2; shift ;;
    --spines) spines=$2; shift ;;
    --hosts) hosts=$2; shift ;;
    --procs) procs=$2; shift ;;
    --inflight) inflight=$2; shift ;;
    --build-dir) build=$2; shift ;;
    *) echo "unknown option $1" >&2; exit 2 ;;
  esac
  shift
done
(( procs >= 1 && procs <= 8 )) || { echo "--procs 1-8 (ibsim takes 10 clients: the SM, the loaders, the judge)" >&2; exit 2; }
cmake -S "$top" -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Release -DIBSM_TESTS=OFF > /dev/null
cmake --build "$build" --target ibsm mc_join_load > /dev/null
ibsm=$build/bin/ibsm
work=$(mktemp -d /tmp/ibsm-bench-mc.XXXXXX)
source "$top/bench/lib.sh"
pids=()
cleanup() {
  local p
  for p in "${pids[@]}"; do kill -KILL "$p" 2>/dev/null || true; done
  wait 2>/dev/null || true
  [[ -n ${KEEP:-} ]] && echo "kept $work" >&2 || rm -rf "$work"
}
trap cleanup EXIT
cd "$work"
cc -shared -fPIC -O2 -o umad_count.so "$top/tools/umad_count/umad_count.c" -ldl -lpthread

"$ibsm" topo leaf-spine --leaves "$leaves" --spines "$spines" --hosts "$hosts" -o fabric.net
nodes=$(grep -cE '^(Switch|Ca|Hca)' fabric.net)
# Every CA's port GUID (the line after its Ca line: "[1](guid) ..."), dealt out to the loaders.
awk '/^Ca/ {ca = 1; next} ca && /^\[1\]\(/ {s = $1; sub(/^\[1\]\(/, "", s); sub(/\).*/, "", s); print s; ca = 0}' fabric.net > members
cas=$(wc -l < members)
for i in $(seq 1 "$procs"); do awk -v n="$procs" -v i="$i" '(NR - 1) % n == i - 1' members > "guids.$i"; done
echo "fabric: leaf-spine, $leaves leaves x $hosts hosts, $spines spines: $cas CAs ($nodes nodes);" \
  "$procs load processes x $inflight joins in flight"

now() { date +%s.%N; }
since() { awk -v a="$1" -v b="$2" 'BEGIN {printf "%.2f", b - a}'; }
stop_pid() {  # TERM (umad_count writes its counts at exit), 10 s, then KILL
  local i
  kill -TERM "$1" 2>/dev/null || return 0
  for i in $(seq 1 100); do kill -0 "$1" 2>/dev/null || break; sleep 0.1; done
  kill -KILL "$1" 2>/dev/null || true
  wait "$1" 2>/dev/null || true
}
judge() { SIM_HOST=host-$((procs + 1)) LD_PRELOAD=$umad2sim "$@"; }

# bench_mc NAME: the storm with SM NAME at host-0; sets mft_NAME, mads_NAME, joins_NAME, reach_NAME, ok_NAME.
bench_mc() {
  local name=$1 dir=$work/$1 sm sim i t0 t1 tr reach="-" dump_s="-" answered errors
  mkdir -p "$dir" && cd "$dir"
  export IBSIM_SOCKNAME="ibsm-bench-mc-$$-$name"
  mkfifo console
  ibsim -N $((nodes + 16)) -S $((nodes + 16)) -P $((nodes * 80)) -s "$work/fabric.net" <>console >sim.out 2>&1 &
  sim=$!; pids+=("$sim")
  for _ in $(seq 1 600); do grep -q "Network simulator ready" sim.out 2>/dev/null && break; sleep 0.05; done
  local count="UMAD_COUNT_FILE=$dir/sm.count UMAD_MARK_START=$dir/mark.start UMAD_MARK_END=$dir/mark.end UMAD_MARK_FILE=$dir/sm.mark UMAD_MARK_TIMES=$dir/sm.times"
  if [[ $name == opensm ]]; then
    env $count SIM_HOST=host-0 OSM_CACHE_DIR=$dir OSM_TMP_DIR=$dir LD_PRELOAD="$work/umad_count.so $umad2sim" \
      opensm -s 0 -d2 -f "$dir/sm.log" > sm.out 2>&1 &
  else
    env $count SIM_HOST=host-0 LD_PRELOAD="$work/umad_count.so $umad2sim" \
      "$ibsm" run -s 0 -f "$dir/sm.log" --cache-dir "$dir/cache" > sm.out 2>&1 &
  fi
  sm=$!; pids+=("$sm")
  for _ in $(seq 1 600); do grep -q "SUBNET UP" sm.log 2>/dev/null && break; sleep 0.1; done
  grep -q "SUBNET UP" sm.log || { echo "$name: no SUBNET UP" >&2; exit 1; }
  sleep 2  # the ports reach ACTIVE and learn the SM LID
  judge timeout 60 dump_fts -M > dump.before 2>/dev/null || true
  if python3 "$top/bench/mc_reach.py" "$work/fabric.net" dump.before "$work/members" > /dev/null; then
    echo "$name: the group reaches every member before any join" >&2; exit 1
  fi

  touch mark.start
  t0=$(now)
  local loaders=()
  for i in $(seq 1 "$procs"); do
    (SIM_HOST=host-$i LD_PRELOAD=$umad2sim timeout 120 "$build/bin/mc_join_load" --guids "$work/guids.$i" \
      --inflight "$inflight" > "load.$i" 2>&1 || true; now > "end.$i") &
    loaders+=($!)
  done
  # The judge: dump_fts -M back to back until the tree covers every member.
  local end
  end=$(awk -v t="$t0" 'BEGIN {printf "%.3f", t + 120}')
  while awk -v t="$(now)" -v e="$end" 'BEGIN {exit !(t < e)}'; do
    local d0 d1
    d0=$(now)
    judge timeout 60 dump_fts -M > dump.now 2>/dev/null || true
    d1=$(now)
    if python3 "$top/bench/mc_reach.py" "$work/fabric.net" dump.now "$work/members" > reach.out; then
      reach=$(since "$t0" "$d1"); dump_s=$(since "$d0" "$d1"); cp dump.now dump.reached
      break
    fi
  done
  for i in "${loaders[@]}"; do wait "$i" || true; done
  t1=$(sort -g end.* | tail -1)  # when the last loader exited
  tr=$(since "$t0" "$t1")
  sleep 2
  touch mark.end
  stop_pid "$sm"
  cd "$work"
  stop_pid "$sim"

  answered=$(cat "$dir"/load.* | awk '{a += $4} END {print a + 0}')
  errors=$(cat "$dir"/load.* | awk '{e += $6 + $8} END {print e + 0}')
  cat "$dir"/load.* | sed "s/^/  $name load: /"
  printf -v "joins_$name" '%s' "$tr"
  printf -v "reach_$name" '%s' "$reach"
  printf -v "dump_$name" '%s' "$dump_s"
  printf -v "ok_$name" '%s' "$answered/$cas answered, $errors errors; $(cat "$dir/reach.out" 2>/dev/null || echo 'not judged')"
  # The window's sends by kind: "class:method:attr=count" after the six leading fields.
  local mark
  mark=$(cat "$dir/sm.mark" 2>/dev/null || echo "- - 0 0 0 0")
  printf -v "mads_$name" '%s' "$(awk '{print $3}' <<<"$mark")"
  printf -v "mft_$name" '%s' "$(tr ' ' '\n' <<<"$mark" | awk -F'[:=]' '($1 == "0x81" || $1 == "0x1") && $2 == "0x2" && $3 == "0x1b" {n += $4} END {print n + 0}')"
  printf -v "sa_$name" '%s' "$(tr ' ' '\n' <<<"$mark" | awk -F'[:=]' '$1 == "0x3" {n += $4} END {print n + 0}')"
  # First and last sends by kind, from the start of the window.
  local times
  times=$(tr ' ' '\n' < "$dir/sm.times" 2>/dev/null | awk -F'[:=,]' 'NF == 5 {print $1 ":" $2 ":" $3, $4, $5}')
  printf -v "joinsv_$name" '%s' "$(awk '$1 == "0x3:0x81:0x38" {f = $2; l = $3} END {if (f != "") printf "%.3f", l - f; else print "-"}' <<<"$times")"
  printf -v "reachv_$name" '%s' "$(awk '$1 == "0x3:0x81:0x38" {f = $2} ($1 == "0x81:0x2:0x1b" || $1 == "0x1:0x2:0x1b") && $3 > l {l = $3}
    END {if (f != "" && l != "") printf "%.3f", l - f; else print "-"}' <<<"$times")"
}

bench_mc opensm
bench_mc ibsm
echo
printf '%-44s %12s %12s %10s\n' "measure" "OpenSM" "ibsm" "ibsm/OpenSM"
printf '%-44s %12s %12s %10s\n' "MFT Sets (0x81/0x01 Set 0x001B)" "$mft_opensm" "$mft_ibsm" "$(ratio "$mft_ibsm" "$mft_opensm")"
printf '%-44s %12s %12s %10s\n' "SM MADs in the window (all)" "$mads_opensm" "$mads_ibsm" "$(ratio "$mads_ibsm" "$mads_opensm")"
printf '%-44s %12s %12s %10s\n' "  of them SA (class 0x03) MADs" "$sa_opensm" "$sa_ibsm" "$(ratio "$sa_ibsm" "$sa_opensm")"
printf '%-44s %12s %12s %10s\n' "every join answered (s from the 1st answer)" "$joinsv_opensm" "$joinsv_ibsm" "$(ratio "$joinsv_ibsm" "$joinsv_opensm")"
printf '%-44s %12s %12s %10s\n' "last MFT Set sent (s from the 1st answer)" "$reachv_opensm" "$reachv_ibsm" "$(ratio "$reachv_ibsm" "$reachv_opensm")"
printf '%-44s %12s %12s %10s\n' "judge: loaders start -> all exited (s)" "$joins_opensm" "$joins_ibsm" "$(ratio "$joins_ibsm" "$joins_opensm")"
printf '%-44s %12s %12s %10s\n' "judge: loaders start -> all reached (s)" "$reach_opensm" "$reach_ibsm" "$(ratio "$reach_ibsm" "$reach_opensm")"
printf '%-44s %12s %12s\n' "  one dump_fts -M (s): its resolution" "$dump_opensm" "$dump_ibsm"
echo "OpenSM: $ok_opensm"
echo "ibsm:   $ok_ibsm"
