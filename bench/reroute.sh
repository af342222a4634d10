#!/usr/bin/env bash
# Reroute benchmark (not a test): what one fault costs the master once the
# subnet is up, on ibsim with the SM running (issue 13's incremental resweeps).
# Events, on a fat tree (`ibsm topo fat-tree --k K --n 3`; SIM_HOST=host-0):
#   pull     Unlink "leaf-5"[K+1]   one leaf-to-aggregation cable
#   putback  ReLink "leaf-5"[K+1]   the same cable back
#   lost     Unlink "agg-7"         one aggregation switch, every cable
#   back     ReLink "agg-7"[1..2K]  its cables back
# For each: the reroute time (the console command to the last SUBNET UP it
# caused, the SM's log clock; a quiet 2 s ends the event) and the MADs sent.
#  - ibsm: one daemon per fabric (`ibsm run -s 0`: no light sweeps, traps
#    only), the events in turn; MADs from its log (each sweep's count), and
#    umad_count's window around all four events as a cross-check.
#  - OpenSM (--opensm; the 1k fabric only unless --opensm-k34): a fresh ibsim
#    and `opensm` per event, umad_count's window around the event. On the
#    k=34 fabric a cold OpenSM takes over 10 minutes, so there one daemon
#    takes the four events in turn, as ibsm's does.
# Usage: bench/reroute.sh [--k34] [--opensm] [--opensm-k34] [--no-ibsm]
#   (IBSM: default build-rel/bin/ibsm; KEEP=1 keeps the logs)
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
ibsm=$(realpath -m "${IBSM:-$top/build-rel/bin/ibsm}")  # absolute: some runs start in a scratch folder
umad2sim=/usr/lib/x86_64-linux-gnu/umad2sim/libumad2sim.so
k34=0; osm=0; osm_k34=0; with_ibsm=1
for a in "$@"; do
  case $a in
    --k34) k34=1 ;; --opensm) osm=1 ;; --opensm-k34) osm=1; osm_k34=1; k34=1 ;; --no-ibsm) with_ibsm=0 ;;
    *) echo "unknown option $a" >&2; exit 2 ;;
  esac
done
[[ -x $ibsm ]] || { echo "build ibsm first (a Release build in build-rel)" >&2; exit 1; }
work=$(mktemp -d /tmp/ibsm-bench-reroute.XXXXXX)
source "$top/bench/lib.sh"
trap 'kill $(jobs -p) 2>/dev/null; [[ -n ${KEEP:-} ]] && echo "kept $work" || rm -rf "$work"' EXIT
cc -shared -fPIC -O2 -o "$work/umad_count.so" "$top/tools/umad_count/umad_count.c" -ldl -lpthread
export SIM_HOST=host-0

# name|topo arguments|k
fabrics=("ft-1k|fat-tree --k 10 --n 3|10")
[[ $k34 == 1 ]] && fabrics+=("ft-k34|fat-tree --k 34 --n 3|34")

# Seconds of the day from the SMs' log clocks: ibsm "HH:MM:SS.uuuuuu",
# OpenSM "HH:MM:SS uuuuuu".
sod() { awk -v t="$1" -v u="${2:-}" 'BEGIN {split(t, a, ":"); s = a[1] * 3600 + a[2] * 60 + a[3]; if (u != "") s += u / 1e6; printf "%.6f", s}'; }
now_sod() { sod "$(date +%H:%M:%S.%N | cut -c1-15)"; }
ups() { grep -c "SUBNET UP" "$1" 2>/dev/null || true; }
# settle LOG N: more than N SUBNET UP lines, then 2 s without a new one (at most 900 s).
settle() {
  local log=$1 n=$2 i last
  for i in $(seq 1 9000); do [[ $(ups "$log") -gt $n ]] && break; sleep 0.1; done
  last=$(ups "$log")
  while true; do
    sleep 2
    [[ $(ups "$log") -eq $last ]] && return 0
    last=$(ups "$log")
  done
}
last_up() {  # LOG ibsm|opensm: seconds of the day of the last SUBNET UP
  if [[ $2 == ibsm ]]; then sod "$(awk '/SUBNET UP/ {t = $3} END {print t}' "$1")"
  else read -r t u < <(awk '/SUBNET UP/ {t = $3; u = $4} END {print t, u}' "$1"); sod "$t" "$u"; fi
}
# The console commands of an event.
event_cmds() {
  local e=$1 k=$2 p
  case $e in
    pull) echo "Unlink \"leaf-5\"[$((k + 1))]" ;;
    putback) echo "ReLink \"leaf-5\"[$((k + 1))]" ;;
    lost) echo 'Unlink "agg-7"' ;;
    back) for p in $(seq 1 $((2 * k))); do echo "ReLink \"agg-7\"[$p]"; done ;;
  esac
}
events=(pull putback lost back)
cold_mads() { awk '/SUBNET UP/ {for (i = 1; i <= NF; i++) if ($(i + 1) == "mads") {print $i; exit}}' "$1"; }
# MADs of the sweeps logged after line N of an ibsm log (incremental passes
# that gave up included).
mads_after() {
  tail -n +"$(( $2 + 1 ))" "$1" | awk '/SUBNET UP:|heavy sweep instead/ {
      for (i = 1; i <= NF; i++) if ($(i + 1) == "mads" || $(i + 1) == "mads)") {gsub(/\(/, "", $i); n += $i}}
    END {print n + 0}'
}
kinds_after() { tail -n +"$(( $2 + 1 ))" "$1" | grep -c "(incremental sweep)" || true; }
heavies_after() { tail -n +"$(( $2 + 1 ))" "$1" | grep "SUBNET UP" | grep -vc "(incremental sweep)" || true; }

# OpenSM on a fabric where a cold start takes minutes: one ibsim and one
# daemon, the four events in turn (settled between), umad_count's marks
# around each event.
osm_events_in_turn() {
  local name=$1 k=$2 d e n t m
  start_ibsim "$name-osm" "$work/$name.net" "${sim_args[@]}"
  d=$work/osm-$name; rm -rf "$d"; mkdir -p "$d"
  rm -f "$work/mark.start" "$work/mark.end"
  (cd "$d" && OSM_CACHE_DIR=$d OSM_TMP_DIR=$d UMAD_COUNT_FILE=$d/count UMAD_MARK_START=$work/mark.start \
    UMAD_MARK_END=$work/mark.end UMAD_MARK_REARM=1 UMAD_MARK_FILE=$d/window LD_PRELOAD="$work/umad_count.so $umad2sim" \
    exec opensm -s 0 -d2 -f "$d/opensm.log" > "$d/out" 2>&1) &
  daemon=$!
  local t_start cold_s times=()
  t_start=$(now_sod)
  settle "$d/opensm.log" 0
  cold_s=$(awk -v a="$(last_up "$d/opensm.log" opensm)" -v b="$t_start" 'BEGIN {printf "%.1f", a - b}')
  for e in "${events[@]}"; do
    n=$(ups "$d/opensm.log")
    rm -f "$work/mark.end"
    touch "$work/mark.start"  # a new mtime: umad_count closes the last window, opens this one
    t0=$(now_sod)
    event_cmds "$e" "$k" > "$work/console"
    settle "$d/opensm.log" "$n"
    touch "$work/mark.end"
    times+=("$(awk -v a="$(last_up "$d/opensm.log" opensm)" -v b="$t0" 'BEGIN {printf "%.3f", a - b}') $(( $(ups "$d/opensm.log") - n ))")
    sleep 1.1  # mtimes a second apart at least
  done
  local peak
  peak=$(awk '/VmHWM/ {printf "%d MiB", $2 / 1024}' "/proc/$daemon/status")
  stop "$daemon"
  stop "$sim"
  # The window file: one line per event, in turn, written as the next opened and at exit.
  local i=0 up_mads
  up_mads=$(awk '{print $3}' "$d/count" 2>/dev/null | head -1 || true)
  printf '%-7s %-5s %-8s %9s %9s %6s %7s %s\n' "$name" osm cold "$cold_s" "-" 100 1 "bring-up ($up_mads mads in the whole run)"
  for e in "${events[@]}"; do
    read -r t sweeps <<< "${times[$i]}"
    m=$(sed -n "$((i + 1))p" "$d/window" | awk '{print $3}')
    printf '%-7s %-5s %-8s %9s %9s %6s %7s %s\n' "$name" osm "$e" "$t" "${m:--}" "-" "$sweeps" "heavy sweeps"
    i=$((i + 1))
  done
  echo "  opensm peak RSS: $peak"
}
mads() { awk -v c="$2" '$2==c {n+=$3} END {print n+0}' "$1"; }

printf '%-7s %-5s %-8s %9s %9s %6s %7s %s\n' fabric sm event time_s mads "%cold" sweeps note
for f in "${fabrics[@]}"; do
  IFS='|' read -r name args k <<< "$f"
  # shellcheck disable=SC2086
  "$ibsm" topo $args -o "$work/$name.net" 2>/dev/null
  sim_args=()
  # (what `ibsm topo` asks for at k=34: -N 42772 -S 3468 -P 317900 -L 42773)
  [[ $k -ge 30 ]] && sim_args=(-N 51000 -S 4000 -P 320000 -L 49152)

  # ibsm: one daemon, the four events in turn.
  if [[ $with_ibsm == 1 ]]; then
  start_ibsim "$name" "$work/$name.net" "${sim_args[@]}"
  log=$work/$name.ibsm.log
  rm -f "$work/mark.start" "$work/mark.end"
  UMAD_COUNT_FILE=$work/$name.ibsm.count UMAD_MARK_START=$work/mark.start UMAD_MARK_END=$work/mark.end \
    UMAD_MARK_FILE=$work/$name.ibsm.window LD_PRELOAD="$work/umad_count.so $umad2sim" \
    "$ibsm" run -s 0 -f "$log" -v --cache-dir "$work/$name.cache" --control-socket "$work/ctl.sock" \
    > "$work/$name.ibsm.out" 2>&1 &
  daemon=$!
  settle "$log" 0
  cold=$(cold_mads "$log")
  printf '%-7s %-5s %-8s %9s %9s %6s %7s %s\n' "$name" ibsm cold - "$cold" 100 1 "bring-up"
  touch "$work/mark.start"
  for e in "${events[@]}"; do
    n=$(ups "$log"); lines=$(wc -l < "$log")
    t0=$(now_sod)
    event_cmds "$e" "$k" > "$work/cmds"
    cat "$work/cmds" > "$work/console"
    settle "$log" "$n"
    t=$(awk -v a="$(last_up "$log" ibsm)" -v b="$t0" 'BEGIN {printf "%.3f", a - b}')
    m=$(mads_after "$log" "$lines")
    printf '%-7s %-5s %-8s %9s %9s %6s %7s %s\n' "$name" ibsm "$e" "$t" "$m" "$(ratio $((m * 100)) "$cold")" \
      "$(kinds_after "$log" "$lines")+$(heavies_after "$log" "$lines")" "incremental+heavy"
  done
  touch "$work/mark.end"
  stop "$daemon"
  stop "$sim"
  echo "  umad_count, the four events: $(awk '{print $3}' "$work/$name.ibsm.window") mads sent by ibsm"
  fi

  # OpenSM: a fresh simulator and daemon per event.
  [[ $osm == 1 && ( $k -lt 30 || $osm_k34 == 1 ) ]] || continue
  if [[ $k -ge 30 || -n ${OSM_IN_TURN:-} ]]; then osm_events_in_turn "$name" "$k"; continue; fi
  for e in "${events[@]}"; do
    start_ibsim "$name-osm" "$work/$name.net" "${sim_args[@]}"
    d=$work/osm-$e; rm -rf "$d"; mkdir -p "$d"
    rm -f "$work/mark.start" "$work/mark.end"
    (cd "$d" && OSM_CACHE_DIR=$d OSM_TMP_DIR=$d UMAD_MARK_START=$work/mark.start UMAD_MARK_END=$work/mark.end \
      UMAD_MARK_FILE=$d/window LD_PRELOAD="$work/umad_count.so $umad2sim" \
      exec opensm -s 0 -d2 -f "$d/opensm.log" > "$d/out" 2>&1) &
    daemon=$!
    settle "$d/opensm.log" 0
    case $e in putback) event_cmds pull "$k" > "$work/console"; n=$(ups "$d/opensm.log"); settle "$d/opensm.log" "$n" ;;
               back) event_cmds lost "$k" > "$work/console"; n=$(ups "$d/opensm.log"); settle "$d/opensm.log" "$n" ;; esac
    n=$(ups "$d/opensm.log")
    touch "$work/mark.start"
    t0=$(now_sod)
    event_cmds "$e" "$k" > "$work/console"
    settle "$d/opensm.log" "$n"
    touch "$work/mark.end"
    t=$(awk -v a="$(last_up "$d/opensm.log" opensm)" -v b="$t0" 'BEGIN {printf "%.3f", a - b}')
    stop "$daemon"
    stop "$sim"
    m=$(awk '{print $3}' "$d/window")
    printf '%-7s %-5s %-8s %9s %9s %6s %7s %s\n' "$name" osm "$e" "$t" "$m" "-" "$(( $(ups "$d/opensm.log") - n ))" "heavy sweeps"
  done
done
