#!/usr/bin/env bash
# dor and torus-2QoS offline (`ibsm route`, no fabric, no ibsim): torus-2QoS
# finds a generated 4x4x4 torus from its cables, with and without failed
# cables, or from a torus-2QoS.conf, and its tables deliver every pair; a bad
# torus-2QoS.conf line is refused with its file and line; on a fat tree
# torus-2QoS refuses and the chain moves on to min-hop; dor routes a mesh
# acyclic.
source "$(dirname "$0")/lib.sh"
e2e_setup "$1"

route() {  # route NAME NETFILE ENGINES [ARGS...]: tables NAME.lfts/.guid2lid, log NAME.err
  local name=$1 net=$2 engines=$3; shift 3
  "$IBSM" route -v -t "$net" -R "$engines" --lfts "$name.lfts" --guid2lid "$name.guid2lid" "$@" 2> "$name.err" ||
    fail "ibsm route -R $engines $* on $net failed: $(cat "$name.err")"
}
delivered() {  # delivered NAME NETFILE PAIRS: every pair of NAME's tables delivered
  "$IBSM" check --topology "$2" --guid2lid "$1.guid2lid" --lfts "$1.lfts" > "$1.check" 2>&1 ||
    fail "ibsm check of $1: $(cat "$1.check")"
  grep -q "pairs $3: delivered $3, unreachable 0, looping 0" "$1.check" || fail "$1: not every pair: $(cat "$1.check")"
}

"$IBSM" topo torus --dims 4,4,4 --hosts 1 -o torus.net || fail "ibsm topo torus failed"
route pristine torus.net torus-2QoS,no_fallback
grep -q "torus-2QoS: a 4x4x4 torus of 64 switches, found from the cables" pristine.err ||
  fail "the torus found is not logged: $(cat pristine.err)"
delivered pristine torus.net 4032

"$IBSM" topo torus --dims 4,4,4 --hosts 1 --fail-links 3 --seed 5 -o failed.net || fail "ibsm topo --fail-links failed"
route failed failed.net torus-2QoS,no_fallback
grep -q "computed the tables" failed.err || fail "torus-2QoS did not route the torus with failed cables: $(cat failed.err)"
delivered failed failed.net 4032

# A torus-2QoS.conf seeded at sw-0-0-0 (the netfile names its GUIDs).
guid() { awk -v n="\"$1\"" -F'[=(]' '/^switchguid=/ {g = $2} $0 ~ "^Switch" && index($0, n) {print g; exit}' torus.net; }
origin=$(guid sw-0-0-0) xp=$(guid sw-1-0-0) xm=$(guid sw-3-0-0) yp=$(guid sw-0-1-0) ym=$(guid sw-0-3-0) zp=$(guid sw-0-0-1) zm=$(guid sw-0-0-3)
[[ -n $origin && -n $zm ]] || fail "no switch GUIDs in torus.net: $(grep -m2 Switch torus.net)"
cat > torus-2QoS.conf << CONF
# the generated torus, x y z as named
torus 4 4 4
xp_link $origin $xp
xm_link $origin $xm
yp_link $origin $yp
ym_link $origin $ym
zp_link $origin $zp
zm_link $origin $zm
x_dateline 1
CONF
route seeded torus.net torus-2QoS,no_fallback --torus_config torus-2QoS.conf
grep -q "torus-2QoS: a 4x4x4 torus of 64 switches, from seed 1 of the torus config" seeded.err ||
  fail "the seed is not logged: $(cat seeded.err)"
delivered seeded torus.net 4032

printf 'torus 4 4 4\nxp_link %s\n' "$origin" > bad.conf
rc=0
"$IBSM" route -t torus.net -R torus-2QoS --torus_config bad.conf --lfts bad.lfts 2> bad.err || rc=$?
[[ $rc -eq 2 ]] || fail "a bad torus-2QoS.conf: exit $rc, expected 2: $(cat bad.err)"
grep -q "bad.conf:2: " bad.err || fail "the bad line is not named: $(cat bad.err)"

# Not a torus: torus-2QoS refuses, min-hop routes.
"$IBSM" topo fat-tree --k 4 --n 2 -o tree.net || fail "ibsm topo fat-tree failed"
route tree tree.net torus-2QoS
grep -q "routing engine torus-2QoS refused: " tree.err || fail "the refusal is not logged: $(cat tree.err)"
grep -q "routing engine minhop computed the tables" tree.err || fail "the chain did not move on: $(cat tree.err)"

# dor on a mesh: shortest paths, no cycle (dimension order).
"$IBSM" topo mesh --dims 4,4 --hosts 1 -o mesh.net || fail "ibsm topo mesh failed"
route dor mesh.net dor,no_fallback
delivered dor mesh.net 240
grep -q "cdg: .*: acyclic" dor.check || fail "dor on a mesh has a cycle: $(cat dor.check)"
echo "torus-2QoS routed a 4x4x4 torus (pristine, 3 failed cables, seeded by torus-2QoS.conf), refused a fat tree; dor routed a mesh acyclic"
