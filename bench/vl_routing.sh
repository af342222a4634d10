#!/usr/bin/env bash
# Deadlock-free routing within a VL budget (not a test): ibsm's engines that
# assign SLs side by side with OpenSM's lash, dfsssp, nue, dor and torus-2QoS.
#  - ibsm, offline: `ibsm route -R E,no_fallback --max-vls 8 --sl` (one core;
#    --max-vls N narrows the budget, e.g. 4 for switches with 4 data VLs;
#    the same routing step the daemon runs): the engine's time from its log
#    lines, the VLs its SLs use and whether every VL's channel dependency graph
#    is acyclic (the post-routing check, on the VLs of the engine's SLs, and
#    again by `ibsm check --sl` on the tables and SLs it wrote), the most
#    routes on one channel.
#  - OpenSM under ibsim: `opensm -o -R E -D 0x07` on a fresh simulator; the
#    routing time from its log ("building routing with" to "tables
#    configured"), the engine that really configured the tables (OpenSM falls
#    back to min-hop when an engine runs out of VLs), the VLs it reports, the
#    tables read back with dump_fts and judged by `ibsm check` on VL 0: what
#    a fallback installs can deadlock. OpenSM's path SLs are not read back
#    (it dumps none, and its SA is gone with -o), so an engine that kept its
#    tables is taken at its word ("own word" in the cdg column).
# Usage: bench/vl_routing.sh [--quick] [--no-opensm] [--max-vls N] [--engines "dfsssp dor"]
#        [--osm-engines "lash dfsssp nue dor torus-2QoS"] [--only NAME]
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
ibsm=$(realpath -m "${IBSM:-$top/build/bin/ibsm}")  # absolute: some runs start in a scratch folder
umad2sim=/usr/lib/x86_64-linux-gnu/umad2sim/libumad2sim.so
quick=0; with_opensm=1; only=""; max_vls=8
engines="dfsssp"
osm_engines="lash dfsssp nue dor torus-2QoS"
while [[ $# -gt 0 ]]; do
  case $1 in
    --quick) quick=1 ;; --no-opensm) with_opensm=0 ;;
    --engines) engines=$2; shift ;;
    --osm-engines) osm_engines=$2; shift ;;
    --only) only=$2; shift ;;
    --max-vls) max_vls=$2; shift ;;
    *) echo "unknown option $1" >&2; exit 2 ;;
  esac
  shift
done
[[ -x $ibsm ]] || { echo "build ibsm first (cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE=Release && cmake --build build)" >&2; exit 1; }
work=$(mktemp -d /tmp/ibsm-bench-vl.XXXXXX)
source "$top/bench/lib.sh"
trap 'kill $(jobs -p) 2>/dev/null; rm -rf "$work"' EXIT

fabrics=(
  "ft3-failed|fat-tree --k 8 --n 3 --fail-links 12 --seed 3"
  "torus-8x8x8|torus --dims 8,8,8 --hosts 2"
  "dragonfly-1k|dragonfly --a 8 --p 4 --h 4 --g 33"
  "random-64|random --switches 64 --degree 8 --hosts 4 --seed 1"
  "random-128|random --switches 128 --degree 8 --hosts 8 --seed 1"
  "hypercube-7|hypercube --dim 7 --hosts 2"
)
quick_fabrics=(
  "ft3-failed|fat-tree --k 4 --n 3 --fail-links 4 --seed 3"
  "torus-4x4x4|torus --dims 4,4,4 --hosts 1"
  "dragonfly|dragonfly --a 4 --p 2 --h 2 --g 9"
  "random-64|random --switches 64 --degree 8 --hosts 4 --seed 1"
  "hypercube-5|hypercube --dim 5 --hosts 1"
)
[[ $quick == 1 ]] && fabrics=("${quick_fabrics[@]}")

osm_time() { awk '{split($3,t,":"); printf "%.6f\n", t[1]*3600 + t[2]*60 + t[3] + $4 / 1e6; exit}'; }
link_max() { sed -nE 's/.*(routes per switch link|link routes) max ([0-9]+).*/\2/p' "$1" | head -1; }
# "acyclic on vls 0,1" -> "2 acyclic"; "acyclic" (one VL) -> "1 acyclic"; a cycle -> "N cycle".
verdict() {
  local line
  line=$(grep -m1 -oE 'cdg (acyclic( on vls [0-9,]+)?|cycle on vl [0-9]+)' "$1" || true)
  case $line in
    "cdg acyclic on vls "*) echo "$(tr ',' '\n' <<<"${line#cdg acyclic on vls }" | wc -l) acyclic" ;;
    "cdg acyclic") echo "1 acyclic" ;;
    "cdg cycle"*) echo "? cycle" ;;
    *) echo "- -" ;;
  esac
}
at() { grep -m1 -- "$2" "$1" | sed -nE 's/^ibsm: \[ *([0-9.]+)\].*/\1/p'; }

printf '%-13s %6s %5s  %-6s %-12s %9s %4s %-9s %9s\n' fabric hosts sws sm engine route_s vls cdg link_max
for f in "${fabrics[@]}"; do
  name=${f%%|*}; args=${f#*|}
  [[ -n $only && $name != "$only" ]] && continue
  # shellcheck disable=SC2086
  "$ibsm" topo $args -o "$work/$name.net" 2>/dev/null
  hosts=$(grep -cE '^(Ca|Hca)' "$work/$name.net"); sws=$(grep -c '^Switch' "$work/$name.net")

  for e in $engines; do
    if ! "$ibsm" route -t "$work/$name.net" -R "$e,no_fallback" --max-vls "$max_vls" -v --lfts "$work/$e.lfts" \
        --guid2lid "$work/$e.guid2lid" --sl "$work/$e.sls" > "$work/route.out" 2> "$work/route.err"; then
      printf '%-13s %6s %5s  %-6s %-12s %s\n' "$name" "$hosts" "$sws" ibsm "$e" \
        "refused: $(grep -m1 -oE 'refused: .{0,90}' "$work/route.err" || tail -1 "$work/route.err")"
      continue
    fi
    t0=$(at "$work/route.err" "with '$e,no_fallback'"); t1=$(at "$work/route.err" "computed the tables")
    read -r vls cdg <<<"$(verdict "$work/route.err")"
    # The written tables and SLs judged again, offline.
    "$ibsm" check --topology "$work/$name.net" --guid2lid "$work/$e.guid2lid" --lfts "$work/$e.lfts" \
      --sl "$work/$e.sls" > "$work/check.out" 2>&1 || cdg="$cdg(check:fail)"
    printf '%-13s %6s %5s  %-6s %-12s %9s %4s %-9s %9s\n' "$name" "$hosts" "$sws" ibsm "$e" \
      "$(awk -v a="$t0" -v b="$t1" 'BEGIN {printf "%.3f", b - a}')" "$vls" "$cdg" "$(link_max "$work/route.err")"
  done

  [[ $with_opensm == 1 ]] || continue
  for e in $osm_engines; do
    start_ibsim "$name" "$work/$name.net"
    rm -rf "$work/osm"; mkdir -p "$work/osm"
    (cd "$work/osm" && SIM_HOST=host-0 OSM_CACHE_DIR=$work/osm OSM_TMP_DIR=$work/osm LD_PRELOAD="$umad2sim" \
      timeout 900 opensm -o -R "$e" -D 0x07 -f "$work/osm/osm.log" > "$work/osm.out" 2>&1) || true
    log=$work/osm/osm.log
    used=$(sed -nE 's/.*osm_ucast_mgr_process: ([A-Za-z0-9-]+) tables configured.*/\1/p' "$log" | head -1)
    if [[ -z $used ]] || ! grep -q "building routing with '$e'" "$log"; then
      printf '%-13s %6s %5s  %-6s %-12s %s\n' "$name" "$hosts" "$sws" opensm "$e" "no tables: $(grep -m1 -E 'ERR|failed' "$log" | cut -c1-90)"
      stop "$sim"
      continue
    fi
    t0=$(grep "building routing with '$e'" "$log" | osm_time); t1=$(grep "$used tables configured" "$log" | osm_time)
    SIM_HOST=host-0 LD_PRELOAD="$umad2sim" ibnetdiscover > "$work/osm.topo" 2>/dev/null || true
    SIM_HOST=host-0 LD_PRELOAD="$umad2sim" dump_fts > "$work/osm.lfts" 2>/dev/null || true
    stop "$sim"
    "$ibsm" check --topology "$work/osm.topo" --lfts "$work/osm.lfts" > "$work/osm.check" 2>&1 || true
    # dfsssp: "Virtual Lanes needed: 5"; other engines: whatever count of lanes or layers they log.
    vls=$(grep -oiE '(virtual lanes needed|lanes? needed|layers?( used| needed)?|vls? (needed|used))[: ]+[0-9]+' "$log" |
      grep -oE '[0-9]+$' | tail -1 || true)
    read -r _ vl0 <<<"$(verdict "$work/osm.check")"
    if [[ $used != "$e" ]]; then
      cdg="$vl0(fell back to $used)"
    elif [[ $vl0 == acyclic ]]; then
      cdg=acyclic
    else
      cdg="own word"  # acyclic only on its SLs, which are not read back
    fi
    printf '%-13s %6s %5s  %-6s %-12s %9s %4s %-9s %9s\n' "$name" "$hosts" "$sws" opensm "$e" \
      "$(awk -v a="$t0" -v b="$t1" 'BEGIN {printf "%.3f", b - a}')" "${vls:--}" "$cdg" "$(link_max "$work/osm.check")"
  done
done
