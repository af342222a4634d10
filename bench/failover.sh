#!/usr/bin/env bash
# Failover benchmark (not a test): a master/standby pair on ibsim, OpenSM's and
# ibsm's side by side, on a small bundled fabric (conf/fabric-default.net: 6
# switches, 16 hosts). Each run gets a fresh simulator (a client killed by a
# signal keeps its ibsim slot). The master runs at host-0 (priority 10), the
# standby at host-1 (priority 5), the judges at host-2.
#  1. Polling cost: the standby's MADs per minute while it is STANDBY, counted
#     around umad_send (tools/umad_count's marked window, a window of --window seconds that
#     starts a second after "Entering STANDBY state"), the same way for both:
#     all = requests (its SMInfo polls of the master, traps) + answers (to the
#     master's SMInfo Gets as it sweeps).
#  2. Takeover: the master is SIGKILLed; then, from the kill,
#       master_s  sminfo at host-2 asked at the standby's LID says MASTER;
#       seen_s    plain sminfo at host-2 (the SM host-2's port knows) names the
#                 standby MASTER: host-2's SMLid has been reprogrammed;
#       ports_s   every CA port (PortInfo by smpquery) is Active with the
#                 standby's LID as SMLid: the new master has taken the subnet.
#     Polls run back to back (tens of ms each; ports_s stops at the first port
#     not yet there). After that, once per run: ibnetdiscover shows every LID
#     as before the kill, and dump_fts' tables deliver every CA pair (ibsm
#     check). The tables the old master programmed stay in the switches, so
#     "routed" alone would pass at once; the SMLid of every port is the honest
#     sign that the new master has swept.
# Modes: osm-default (OpenSM's defaults: sminfo_polling_timeout 10000,
# polling_retry_number 4), osm-tuned (sminfo_polling_timeout 1000,
# polling_retry_number 2, both SMs), ibsm (ibsm's defaults, 500 ms and 2),
# ibsm-tuned (ibsm with osm-tuned's file). An SM that never logs "Entering
# STANDBY state" (ibsm before its state machine) is reported as such.
# Usage: bench/failover.sh [--runs N] [--window S] [--modes a,b,...] [--netfile F]
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
ibsm=$(realpath -m "${IBSM:-$top/build/bin/ibsm}")  # absolute: some runs start in a scratch folder
umad2sim=/usr/lib/x86_64-linux-gnu/umad2sim/libumad2sim.so
netfile=$top/conf/fabric-default.net
runs=1; window=60; modes=osm-default,osm-tuned,ibsm,ibsm-tuned
while [[ $# -gt 0 ]]; do
  case $1 in
    --runs) runs=$2; shift ;;
    --window) window=$2; shift ;;
    --modes) modes=$2; shift ;;
    --netfile) netfile=$2; shift ;;
    *) echo "unknown option $1" >&2; exit 2 ;;
  esac
  shift
done
[[ -x $ibsm ]] || { echo "build ibsm first (cmake -S . -B build -G Ninja && ninja -C build ibsm)" >&2; exit 1; }
work=$(mktemp -d /tmp/ibsm-bench-failover.XXXXXX)
source "$top/bench/lib.sh"
pids=()
stop_pid() {  # stop_pid PID: TERM, 10 s, then KILL; reaped
  local i
  kill -TERM "$1" 2>/dev/null || return 0
  for i in $(seq 1 100); do kill -0 "$1" 2>/dev/null || break; sleep 0.1; done
  kill -KILL "$1" 2>/dev/null || true
  wait "$1" 2>/dev/null || true
}
cleanup() {
  local p
  for p in "${pids[@]}"; do kill -KILL "$p" 2>/dev/null || true; done
  wait 2>/dev/null || true
  [[ -n ${KEEP:-} ]] && echo "kept $work" >&2 || rm -rf "$work"
}
trap cleanup EXIT
cc -shared -fPIC -O2 -o "$work/umad_count.so" "$top/tools/umad_count/umad_count.c" -ldl -lpthread
printf 'sminfo_polling_timeout 1000\npolling_retry_number 2\n' > "$work/tuned.conf"
nodes=$(grep -cE '^(Switch|Ca|Hca)' "$netfile")

now() { date +%s.%N; }
since() { awk -v a="$1" -v b="$2" 'BEGIN {printf "%.2f", b - a}'; }
sim() { SIM_HOST=$1 LD_PRELOAD=$umad2sim "${@:2}"; }  # sim HOST CMD...: a client at HOST
wait_log() {  # wait_log FILE PATTERN SECONDS
  local i
  for i in $(seq 1 $(($3 * 10))); do grep -qE "$2" "$1" 2>/dev/null && return 0; sleep 0.1; done
  return 1
}
# start_sm DIR MODE PRIORITY HOST [PRELOAD...]: the SM of MODE in DIR (log DIR/sm.log); sets $sm.
start_sm() {
  local dir=$1 mode=$2 prio=$3 host=$4; shift 4
  local preload="$* $umad2sim" conf=()
  mkdir -p "$dir"
  [[ $mode == *-tuned ]] && conf=(-F "$work/tuned.conf")
  case $mode in
    osm-*)
      (cd "$dir" && SIM_HOST=$host OSM_CACHE_DIR=$dir OSM_TMP_DIR=$dir LD_PRELOAD="$preload" \
        exec opensm -p "$prio" -d2 -f "$dir/sm.log" "${conf[@]}" > "$dir/out" 2>&1) &
      ;;
    ibsm*)
      (cd "$dir" && SIM_HOST=$host LD_PRELOAD="$preload" \
        exec "$ibsm" run -p "$prio" -f "$dir/sm.log" --cache-dir "$dir/cache" "${conf[@]}" > "$dir/out" 2>&1) &
      ;;
  esac
  sm=$!
  pids+=("$sm")
}
# lids OUT: "guid lid" of every port as ibnetdiscover at host-2 reads it; CA LIDs and ports into OUT.ca.
lids() {
  sim host-2 timeout 20 ibnetdiscover > "$1.ibnetdiscover" 2>/dev/null || return 1
  awk '/^switchguid=/ {split($1, a, /[=(]/); sw = a[2]}
       /^Switch/ {for (i = 1; i <= NF; i++) if ($i == "lid") {print sw, $(i+1); break}}
       /^\[[0-9]+\]\([0-9a-f]+\)/ {split($1, b, /[][()]/); for (i = 1; i <= NF; i++) if ($i == "lid") {print "0x" b[4], $(i+1), b[2]; break}}' \
    "$1.ibnetdiscover" | sort > "$1"
  awk 'NF == 3 {print $2, $3}' "$1" > "$1.ca"
}
sminfo_says() {  # sminfo_says STATE GUID [LID]: sminfo at host-2
  local out
  out=$(sim host-2 timeout 5 sminfo -t 200 ${3:+"$3"} 2>/dev/null) || return 1
  [[ $out == *"SMINFO_$1"* ]] && [[ $(( $(sed -E 's/.*sm guid (0x[0-9a-f]+),.*/\1/' <<<"$out") )) -eq $(( $2 )) ]]
}
ports_point_at() {  # ports_point_at LID CAFILE: every CA port Active with SMLid LID
  local lid port info
  while read -r lid port; do
    info=$(sim host-2 timeout 5 smpquery portinfo "$lid" "$port" 2>/dev/null) || return 1
    grep -qE "^SMLid:\.+$1\$" <<<"$info" && grep -qE "^LinkState:\.+Active" <<<"$info" || return 1
  done < "$2"
}
until_true() {  # until_true SECONDS CMD...: polls CMD back to back; 1 on timeout
  local end
  end=$(awk -v t="$(now)" -v s="$1" 'BEGIN {printf "%.3f", t + s}'); shift
  while awk -v t="$(now)" -v e="$end" 'BEGIN {exit !(t < e)}'; do "$@" && return 0; sleep 0.05; done
  return 1
}

# last_words DIR: the SM's last line of output, or else of its log.
last_words() {
  local f
  for f in "$1/out" "$1/sm.log"; do
    [[ -s $f ]] && { grep -v '^$' "$f" | tail -1 | cut -c1-100; return; }
  done
  echo "(nothing)"
}
# one_run MODE N: prints "MODE N rate master_s seen_s ports_s lids routed standby_mads note"
one_run() {
  local mode=$1 n=$2 dir=$work/$1.$2 sim_pid master standby t0 t1 t2 t3 ms="-" ss="-" ps="-" lid guid
  local note="" rate="-" lids_ok="-" routed="-" total="-"
  mkdir -p "$dir"
  export IBSIM_SOCKNAME="ibsm-bench-failover-$$-$mode-$n"
  mkfifo "$dir/console"
  ibsim -N $((nodes + 16)) -S $((nodes + 16)) -P $((nodes * 80)) -s "$netfile" <>"$dir/console" > "$dir/sim.out" 2>&1 &
  sim_pid=$!; pids+=("$sim_pid")
  wait_log "$dir/sim.out" "Network simulator ready" 30 || { echo "$mode $n - - - - - - - ibsim did not start"; return; }
  start_sm "$dir/master" "$mode" 10 host-0; master=$sm
  if ! wait_log "$dir/master/sm.log" "SUBNET UP" 60; then
    note="master: no SUBNET UP: $(last_words "$dir/master")"
  else
    UMAD_COUNT_FILE=$dir/standby.count UMAD_MARK_FILE=$dir/standby.mark UMAD_MARK_START=$dir/mark.start \
      UMAD_MARK_END=$dir/mark.end start_sm "$dir/standby" "$mode" 5 host-1 "$work/umad_count.so"
    standby=$sm
    if ! wait_log "$dir/standby/sm.log" "Entering STANDBY state" 60; then
      note="standby: no 'Entering STANDBY state' in 60 s; it logged: $(last_words "$dir/standby")"
    else
      lid=$(sim host-1 timeout 10 smpquery -D portinfo 0 | awk -F. '/^Lid:/ {print $NF}')
      guid=$(sim host-1 timeout 10 smpquery -D nodeinfo 0 | awk -F. '/^PortGuid/ {print $NF}')
      lids "$dir/lids.before" || note="ibnetdiscover failed"
      sleep 1; touch "$dir/mark.start"; sleep "$window"; touch "$dir/mark.end"
      t0=$(now)
      kill -KILL "$master"; wait "$master" 2>/dev/null || true
      if until_true 240 sminfo_says MASTER "$guid" "$lid"; then
        t1=$(now); ms=$(since "$t0" "$t1")
        if until_true 60 sminfo_says MASTER "$guid"; then t2=$(now); ss=$(since "$t0" "$t2"); fi
        if until_true 60 ports_point_at "$lid" "$dir/lids.before.ca"; then t3=$(now); ps=$(since "$t0" "$t3"); fi
        lids "$dir/lids.after" && cmp -s "$dir/lids.before" "$dir/lids.after" && lids_ok=same || lids_ok=CHANGED
        if sim host-2 timeout 20 dump_fts > "$dir/lfts" 2>/dev/null &&
          "$ibsm" check --topology "$dir/lids.after.ibnetdiscover" --lfts "$dir/lfts" > "$dir/check" 2>&1; then
          routed=yes
        else routed=NO; fi
      else
        note="the standby did not become MASTER within 240 s"
      fi
    fi
    stop_pid "$standby"
    if [[ -s $dir/standby.mark ]]; then
      # MADs per minute: all, and as requests (its polls, traps) + answers (to the master's SMInfo Gets).
      rate=$(awk '$4 > 0 {printf "%.1f=%.1f+%.1f", $3 * 60 / $4, $5 * 60 / $4, $6 * 60 / $4}' "$dir/standby.mark")
      rate=${rate:--}
    fi
    [[ -s $dir/standby.count ]] && total=$(awk '{n += $3} END {print n + 0}' "$dir/standby.count")
  fi
  stop_pid "$master"
  stop_pid "$sim_pid"
  echo "$mode $n $rate $ms $ss $ps $lids_ok $routed $total $note"
}


echo "fabric: $(basename "$netfile") ($nodes nodes); master host-0 (priority 10), standby host-1 (5), judges at host-2;" \
  "polling window $window s; $runs run(s) per mode"
results=$work/results
: > "$results"
IFS=, read -r -a mode_list <<<"$modes"
for mode in "${mode_list[@]}"; do
  for n in $(seq 1 "$runs"); do
    line=$(one_run "$mode" "$n")
    echo "  run: $line"
    echo "$line" >> "$results"
  done
done
echo
printf '%-12s %18s %10s %10s %10s %6s %7s  %s\n' mode "standby MAD/min" master_s seen_s ports_s LIDs routed note
for mode in "${mode_list[@]}"; do
  col() { awk -v m="$mode" -v c="$1" '$1 == m && $c != "-" {print $c}' "$results" | median; }
  rates() {  # the median of each part of all=requests+answers
    local parts=() i
    for i in 1 2 3; do
      parts+=("$(awk -v m="$mode" -v i="$i" '$1 == m && $3 != "-" {split($3, r, /[=+]/); print r[i]}' "$results" | median)")
    done
    [[ ${parts[0]} == - ]] && echo - || echo "${parts[0]}=${parts[1]}+${parts[2]}"
  }
  last() { awk -v m="$mode" -v c="$1" '$1 == m {v = $c} END {print v}' "$results"; }
  note=$(awk -v m="$mode" '$1 == m && NF > 9 {$1 = $2 = $3 = $4 = $5 = $6 = $7 = $8 = $9 = ""; sub(/^ +/, ""); print; exit}' "$results")
  printf '%-12s %18s %10s %10s %10s %6s %7s  %s\n' "$mode" "$(rates)" "$(col 4)" "$(col 5)" "$(col 6)" "$(last 7)" "$(last 8)" "$note"
done
echo "(medians over the runs; standby MAD/min: all=requests+answers; master_s/seen_s/ports_s: seconds from the"
echo " SIGKILL of the master, see the header)"
