#!/usr/bin/env bash
# discover_matches_ibnetdiscover.sh NAME NETFILE | NAME --topo KIND [topo args...]
# On ibsim loaded with the netfile (or a fabric `ibsm topo` generates), `ibsm
# discover` through libibumad must report exactly the nodes, GUIDs, port numbers
# and links that ibnetdiscover reports; `ibsm discover --sim` on the same file
# must give the same fabric again, without ibsim. SIM_HOST, when set, names
# the node both attach at (ibsim's default is the netfile's first node).
source "$(dirname "$0")/lib.sh"
name=$1; shift
e2e_setup "$name"

fabric_start "$@"
netfile=$NETFILE

client ibnetdiscover > ibnetdiscover.out 2> ibnetdiscover.err || fail "ibnetdiscover failed: $(cat ibnetdiscover.err)"
client "$IBSM" discover --stats > ibsm.out 2> ibsm.err || fail "ibsm discover failed: $(cat ibsm.err)"
cat ibsm.err >&2

"$IBSM_TOOLS_DIR/netfile_compare" ibnetdiscover.out ibsm.out || fail "ibsm discover (ibsim) differs from ibnetdiscover"
sim_node=()
[[ -n "${SIM_HOST:-}" ]] && sim_node=(--sim-node "$SIM_HOST")
"$IBSM" discover --sim "$netfile" "${sim_node[@]}" > sim.out.net 2> sim.err || fail "ibsm discover --sim failed: $(cat sim.err)"
"$IBSM_TOOLS_DIR/netfile_compare" ibnetdiscover.out sim.out.net || fail "ibsm discover --sim differs from ibnetdiscover"

echo "discovered the same fabric over ibsim and SimFabric: $(wc -l < ibsm.out) lines"
