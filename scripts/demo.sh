#!/usr/bin/env bash
# The main job on the bundled default fabric: installs what is missing, builds
# ibsm, starts its own ibsim on conf/fabric-default.net, brings the subnet up
# with `ibsm run -o` through the real libibumad (umad2sim), shows it with the
# diag tools, and stops the simulator.
set -euo pipefail
cd "$(dirname "$0")/.."
top=$PWD
IBSM_CROSS=0 bash scripts/install-deps.sh
cmake -S . -B build -G Ninja >/dev/null
cmake --build build -j"$(nproc)" --target ibsm >/dev/null

netfile=${1:-$top/conf/fabric-default.net}
work=$(mktemp -d /tmp/ibsm-demo.XXXXXX)
export IBSIM_SOCKNAME="ibsm-demo-$$"
# ibsm runs where a fabric's SM usually does: on a host.
export SIM_HOST=${SIM_HOST:-host-0}
cd "$work"
mkfifo console
ibsim -s "$netfile" <>console >sim.out 2>&1 &
sim=$!
trap 'kill $sim 2>/dev/null; wait $sim 2>/dev/null || true; rm -rf "$work"' EXIT
for _ in $(seq 1 200); do grep -q "Network simulator ready" sim.out && break; sleep 0.05; done
grep -q "Network simulator ready" sim.out || { cat sim.out; exit 1; }

umad2sim=/usr/lib/x86_64-linux-gnu/umad2sim/libumad2sim.so
echo "=== ibsm run -o on $(basename "$netfile") (ibsim, through libibumad)"
LD_PRELOAD=$umad2sim "$top/build/bin/ibsm" run -o --cache-dir "$work/cache" -f "$work/ibsm.log"
echo
echo "=== the fabric as ibnetdiscover sees it now"
LD_PRELOAD=$umad2sim ibnetdiscover > "$work/ibnetdiscover.out" 2>/dev/null
grep -E '^(Switch|Ca)|^\[' "$work/ibnetdiscover.out" | head -40 || true
echo "..."
echo
LD_PRELOAD=$umad2sim iblinkinfo > "$work/iblinkinfo.out" 2>/dev/null
echo "=== iblinkinfo: $(grep -c 'Active/  LinkUp' "$work/iblinkinfo.out") port lines Active/LinkUp, $(grep -c 'Down/' "$work/iblinkinfo.out") down"
echo
echo "=== summary: the switches' tables as dump_fts reads them back, every pair traced (ibsm check)"
# umad2sim sometimes crashes a client at exit: up to three tries.
for _ in 1 2 3; do LD_PRELOAD=$umad2sim dump_fts > "$work/lfts.out" 2>/dev/null && break; done
"$top/build/bin/ibsm" check --topology "$work/ibnetdiscover.out" --lfts "$work/lfts.out"
nodes=$(grep -cE '^(Switch|Ca)' "$work/ibnetdiscover.out")
links=$(( $(grep -cE '^\[' "$work/ibnetdiscover.out") / 2 ))  # each cable is listed from both ends
lids=$(grep -oE 'lid [0-9]+' "$work/ibnetdiscover.out" | sort -u | wc -l)
echo "fabric: $nodes nodes, $links links, $lids lids"
