#!/usr/bin/env bash
# MAD counts benchmark (not a test): what `ibsm run --sim -o --sweeps 2`
# sends on a few generated fabrics and the bundled default, per routing
# engine: the summary line of each sweep (MADs, PortInfo/SwitchInfo sets, LFT
# blocks, P_Key sets, ports armed and activated) and the MADs by kind.
# SimFabric is deterministic, so two builds that must behave alike (a
# refactoring) print the same text: diff the two outputs.
# Usage: bench/mad_counts.sh [IBSM] > counts.txt   (IBSM: default build/bin/ibsm)
#   e.g. bench/mad_counts.sh old/bin/ibsm > a; bench/mad_counts.sh new/bin/ibsm > b; diff a b
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
ibsm=$(realpath "${1:-$top/build/bin/ibsm}")
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
"$ibsm" topo fat-tree --k 8 --n 3 -o "$work/ft.net"
"$ibsm" topo leaf-spine --leaves 16 --spines 8 --hosts 16 -o "$work/ls.net"
"$ibsm" topo torus --dims 4,4,4 --hosts 1 -o "$work/torus.net"
"$ibsm" topo dragonfly --a 4 --p 2 --h 2 --g 9 -o "$work/df.net"
"$ibsm" topo fat-tree --k 8 --n 3 --fail-links 6 --seed 11 -o "$work/ftf.net"
cp "$top/conf/fabric-default.net" "$work/default.net"
for net in ft ls torus df ftf default; do
  for engine in minhop updn ftree dfsssp; do
    [[ $engine == ftree && $net != ft* ]] && continue
    echo "== $net $engine"
    # Each run its own cache folder, so the second sweep sees only the first.
    (cd "$work" && IBSM_SMALL_PAGES=1 "$ibsm" run --sim "$work/$net.net" -o --sweeps 2 -R "$engine" \
      --cache-dir "$work/cache-$net-$engine" 2>/dev/null || true) |
      grep -E "^SUBNET|mads in|mads by kind" | sed -E 's/ in [0-9.]+ s:/:/'
  done
done
