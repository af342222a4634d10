#!/usr/bin/env bash
# Routing benchmark (not a test).
#  1. Offline, per engine, on generated fabrics from 1k to 45k endpoints:
#     `ibsm route -v` (one core): the engine's time and the post-routing
#     check's time, from the seconds its log lines carry; total wall time and
#     peak RSS of the whole run (netfile, LIDs, routing, check; the tables
#     are not written out, which at 45k endpoints is gigabytes of text) from
#     /usr/bin/time -v; the route quality the check logs (routes
#     per switch link, stretch, channel dependency cycle).
#  2. Side by side with OpenSM under ibsim, same fabric, same engine: each SM
#     brings a fresh simulator up (`opensm -o -R E`, `ibsm run -o -R E`); the
#     routing time comes from each SM's own log (OpenSM: from "building
#     routing with" to "tables configured", at -D 0x07; ibsm: the engine's
#     "computed the tables" line after the LID phase), and the tables are read
#     back from the switches with dump_fts and judged by the same `ibsm check`
#     against ibnetdiscover's view: max/mean/stddev routes per link, stretch.
# Usage: bench/routing.sh [--quick] [--no-offline] [--no-opensm] [--engines "minhop updn ..."]
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
ibsm=$(realpath -m "${IBSM:-$top/build/bin/ibsm}")  # absolute: some runs start in a scratch folder
umad2sim=/usr/lib/x86_64-linux-gnu/umad2sim/libumad2sim.so
quick=0; offline=1; with_opensm=1
engines="ftree minhop updn dnup sssp"
while [[ $# -gt 0 ]]; do
  case $1 in
    --quick) quick=1 ;; --no-offline) offline=0 ;; --no-opensm) with_opensm=0 ;;
    --engines) engines=$2; shift ;;
    *) echo "unknown option $1" >&2; exit 2 ;;
  esac
  shift
done
[[ -x $ibsm ]] || { echo "build ibsm first (cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE=Release && cmake --build build)" >&2; exit 1; }
work=$(mktemp -d /tmp/ibsm-bench-routing.XXXXXX)
source "$top/bench/lib.sh"
trap 'kill $(jobs -p) 2>/dev/null; rm -rf "$work"' EXIT

peak_mib() { awk -F: '/Maximum resident set size/ {gsub(/ /,"",$2); printf "%d", $2 / 1024}' "$1"; }
# Seconds since midnight of a log line's timestamp: OpenSM "Dec 01 06:48:22 250582", ibsm "Dec 01 06:47:36.200327".
osm_time() { awk '{split($3,t,":"); printf "%.6f\n", t[1]*3600 + t[2]*60 + t[3] + $4 / 1e6; exit}'; }
ibsm_time() { awk '{split($3,t,":"); printf "%.6f\n", t[1]*3600 + t[2]*60 + t[3]; exit}'; }
# The quality figures of an `ibsm check` summary line (or the daemon's check line).
quality() {
  sed -nE 's/.*(routes per switch link|link routes) max ([0-9]+) mean ([0-9.]+) stddev ([0-9.]+).*/\2 \3 \4/p' "$1" | head -1
}
stretch() { sed -nE 's/.*stretch max ([0-9.]+).*/\1/p' "$1" | head -1; }
cdg() { if grep -q 'cdg cycle' "$1"; then echo cycle; elif grep -q 'cdg acyclic' "$1"; then echo acyclic; else echo -; fi; }

offline_fabrics=(
  "ft-1k|fat-tree --k 10 --n 3"
  "torus-1k|torus --dims 8,8,8 --hosts 2"
  "random-2k|random --switches 256 --degree 8 --hosts 8 --seed 1"
  "ft-4k|fat-tree --k 16 --n 3"
  "ft-16k|xgft --down 32,32,16 --up 1,32,16"
  "ft-45k|xgft --down 32,32,44 --up 1,32,32"
)
opensm_fabrics=(
  "ls-1k|leaf-spine --leaves 32 --spines 16 --hosts 32"
  "ft-1.7k|fat-tree --k 12 --n 3"
  "random-1k|random --switches 128 --degree 8 --hosts 8 --seed 1"
)
if [[ $quick == 1 ]]; then offline_fabrics=("${offline_fabrics[@]:0:2}"); opensm_fabrics=("${opensm_fabrics[@]:0:1}"); fi

if [[ $offline == 1 ]]; then
  echo "== offline: ibsm route -R ENGINE,no_fallback (one core; tables not written out)"
  printf '%-10s %7s %6s %-7s %9s %8s %8s %8s %9s %9s %8s %8s %-8s\n' fabric hosts sws engine engine_s check_s \
    total_s peak_MiB link_max link_mean stddev stretch cdg
  # Seconds since start on the first log line matching $2.
  at() { grep -m1 -- "$2" "$1" | sed -nE 's/^ibsm: \[ *([0-9.]+)\].*/\1/p'; }
  for f in "${offline_fabrics[@]}"; do
    name=${f%%|*}; args=${f#*|}
    # shellcheck disable=SC2086
    "$ibsm" topo $args -o "$work/$name.net" 2>/dev/null
    hosts=$(grep -cE '^(Ca|Hca)' "$work/$name.net"); sws=$(grep -c '^Switch' "$work/$name.net")
    for e in $engines; do
      if ! /usr/bin/time -v "$ibsm" route -t "$work/$name.net" -R "$e,no_fallback" -v \
          > "$work/route.out" 2> "$work/route.err"; then
        printf '%-10s %7s %6s %-7s %s\n' "$name" "$hosts" "$sws" "$e" "refused: $(grep -m1 -oE 'refused: .{0,60}' "$work/route.err" || tail -1 "$work/route.err")"
        continue
      fi
      t0=$(at "$work/route.err" "with '$e,no_fallback'"); t1=$(at "$work/route.err" "computed the tables")
      t2=$(at "$work/route.err" "routing check (")
      read -r lmax lmean lsd <<< "$(quality "$work/route.err")"
      printf '%-10s %7s %6s %-7s %9s %8s %8s %8s %9s %9s %8s %8s %-8s\n' "$name" "$hosts" "$sws" "$e" \
        "$(awk -v a="$t0" -v b="$t1" 'BEGIN {printf "%.2f", b - a}')" "$(awk -v a="$t1" -v b="$t2" 'BEGIN {printf "%.2f", b - a}')" \
        "$(wall_s "$work/route.err")" "$(peak_mib "$work/route.err")" "${lmax:--}" "${lmean:--}" "${lsd:--}" \
        "$(stretch "$work/route.err")" "$(cdg "$work/route.err")"
    done
  done
fi

stop_ibsim() { kill "$sim" 2>/dev/null || true; wait "$sim" 2>/dev/null || true; }
client() { LD_PRELOAD="$umad2sim" "$@"; }
# judge TAG: reads the tables back from the switches and checks them.
judge() {
  client ibnetdiscover > "$work/$1.topo" 2>/dev/null
  client dump_fts > "$work/$1.lfts" 2>/dev/null
  "$ibsm" check --topology "$work/$1.topo" --lfts "$work/$1.lfts" --engine "$2" > "$work/$1.check" 2>&1 || true
}

if [[ $with_opensm == 1 ]]; then
  echo
  echo "== ibsim: ibsm run -o -R E vs opensm -o -R E (fresh simulator per SM; SIM_HOST=host-0)"
  echo "   routing time from each SM's log; quality from ibsm check on dump_fts read back from the switches"
  echo "   (OpenSM's updn finds no root on fabrics where every switch has CAs and routes min-hop instead;"
  echo "    its dnup then ranks every switch alike: the cdg columns say whose tables can deadlock)"
  printf '%-10s %-7s %9s %9s %7s %9s %9s %8s %8s %9s %9s %-8s %-8s\n' fabric engine ibsm_s osm_s ratio ibsm_max osm_max \
    ibsm_sd osm_sd ibsm_str osm_str ibsm_cdg osm_cdg
  export SIM_HOST=host-0
  e_note=""
  for f in "${opensm_fabrics[@]}"; do
    name=${f%%|*}; args=${f#*|}
    # shellcheck disable=SC2086
    "$ibsm" topo $args -o "$work/$name.net" 2>/dev/null
    for e in $engines; do
      start_ibsim "$name" "$work/$name.net"
      rm -rf "$work/ibsm-cache" "$work/ibsm.log"
      client "$ibsm" run -o -R "$e,no_fallback" --cache-dir "$work/ibsm-cache" -f "$work/ibsm.log" > "$work/ibsm.out" 2>&1 || true
      if grep -q "computed the tables" "$work/ibsm.log"; then
        t0=$(grep "phase assign lids" "$work/ibsm.log" | ibsm_time)
        t1=$(grep "computed the tables" "$work/ibsm.log" | ibsm_time)
        is=$(awk -v a="$t0" -v b="$t1" 'BEGIN {printf "%.3f", b - a}')
        judge ibsm "$e"
      else
        is=-; : > "$work/ibsm.check"
      fi
      stop_ibsim
      start_ibsim "$name" "$work/$name.net"
      rm -rf "$work/osm"; mkdir -p "$work/osm"
      (cd "$work/osm" && OSM_CACHE_DIR=$work/osm OSM_TMP_DIR=$work/osm client opensm -o -R "$e" -D 0x07 \
        -f "$work/osm/osm.log" > "$work/osm.out" 2>&1) || true
      # The engine that configured the tables (OpenSM falls back to minhop when updn finds no root).
      oe=$(sed -nE 's/.*osm_ucast_mgr_process: ([a-z0-9-]+) tables configured.*/\1/p' "$work/osm/osm.log" | head -1)
      if [[ -n $oe ]] && grep -q "building routing with '$e'" "$work/osm/osm.log"; then
        t0=$(grep "building routing with '$e'" "$work/osm/osm.log" | osm_time)
        t1=$(grep "$oe tables configured" "$work/osm/osm.log" | osm_time)
        [[ $oe == "$e" ]] || e_note="$e_note $name/$e:opensm-used-$oe"
        os=$(awk -v a="$t0" -v b="$t1" 'BEGIN {printf "%.3f", b - a}')
        judge osm "$e"
      else
        os=-; : > "$work/osm.check"
      fi
      stop_ibsim
      read -r imax _ isd <<< "$(quality "$work/ibsm.check")"
      read -r omax _ osd <<< "$(quality "$work/osm.check")"
      read -r istr _ <<< "$(stretch "$work/ibsm.check")"
      read -r ostr _ <<< "$(stretch "$work/osm.check")"
      printf '%-10s %-7s %9s %9s %7s %9s %9s %8s %8s %9s %9s %-8s %-8s\n' "$name" "$e" "$is" "$os" "$(ratio "$is" "$os")" \
        "${imax:--}" "${omax:--}" "${isd:--}" "${osd:--}" "${istr:--}" "${ostr:--}" "$(cdg "$work/ibsm.check")" \
        "$(cdg "$work/osm.check")"
    done
  done
  [[ -z $e_note ]] || echo "   OpenSM fell back:$e_note"
fi
