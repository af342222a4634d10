#!/usr/bin/env bash
# Master/standby failover between OpenSM and ibsm on ibsim (IBA 14.4), judged
# from a third host (JUDGE_HOST, host-2) by the diag tools. One case per run:
#   a  OpenSM master, ibsm standby at a lower priority; OpenSM killed (SIGKILL):
#      ibsm takes over
#   b  OpenSM master; ibsm joins at a higher priority: OpenSM hands over to ibsm
#   c  ibsm master, OpenSM standby at a lower priority; ibsm killed: OpenSM
#      takes over
#   d  ibsm master; OpenSM joins at a higher priority: ibsm hands over to OpenSM
# Judged each time: sminfo at host-2 names the new master MASTER (and, after a
# handover, the old one STANDBY); every CA port has the new master's LID as
# its SM LID and is Active; ibnetdiscover shows the LIDs of before; dump_fts'
# tables deliver every CA pair (ibsm check).
# Usage: failover_opensm.sh NAME CASE. OSM_ARGS: more options for every
# OpenSM (e.g. OSM_ARGS="-D 0x0f" for a debug log). PEER=opensm plays ibsm's part with a
# second OpenSM (sminfo_polling_timeout 1000, polling_retry_number 2, close
# to ibsm's defaults): the harness checked on OpenSM alone.
# OpenSM keeps its defaults (polls every 10 s) except as the standby of (c),
# which polls every second (sminfo_polling_timeout 1000, polling_retry_number 2).
# Under ibsim no TrapRepress reaches anyone (ibsim drops method 0x07): each
# trap 144 OpenSM sends holds one of its max_wire_smps (4) slots for good, so
# in (d) OpenSM, polling every 10 s and trapping at each poll, falls silent
# about 30 s after it joins unless the master hands over first.
source "$(dirname "$0")/lib.sh"
e2e_setup "$1"
case=${2:?usage: failover_opensm.sh NAME a|b|c|d}
peer=${PEER:-ibsm}
read -r -a osm_args <<<"${OSM_ARGS:-}"

fabric_start --topo leaf-spine --leaves 3 --spines 2 --hosts 2  # host-0 .. host-5
low=5 high=10
# With ibsm on one side a handover takes well under a second (25 s bound: before
# OpenSM falls silent, see above). Two OpenSMs race under ibsim: ibsim's trap 144
# (IsSM set) makes the master hand over to the newcomer while it is still
# DISCOVERING, the newcomer then goes STANDBY on the master it saw, and both are
# STANDBY until the newcomer's polling gives up (4 s tuned, 50 s by default).
handover_bound=25
[[ $peer == opensm ]] && handover_bound=90
tuned=$(sm_conf tuned sminfo_polling_timeout 1000 polling_retry_number 2)
# peer_start HOST PRIORITY: ibsm's part (ibsm with its defaults, or OpenSM tuned).
peer_start() {
  if [[ $peer == opensm ]]; then sm_start peer opensm "$1" "$2" -F "$tuned" "${osm_args[@]}"; else sm_start peer ibsm "$1" "$2"; fi
}
must_log() {  # must_log NAME PATTERN SECONDS
  wait_log "$1" "$2" "$3" || fail "$1 did not log '$2' within $3 s: $(tail -3 "$(sm_log "$1")")"
}
up() { must_log "$1" "SUBNET UP" 60; }
elapsed() { awk -v a="$1" -v b="$(date +%s.%N)" 'BEGIN {printf "%.2f", b - a}'; }

case $case in
  a)  # OpenSM master, peer standby; OpenSM dies.
    sm_start osm opensm host-0 "$high" "${osm_args[@]}"; up osm
    peer_start host-1 "$low"
    must_log peer "Entering STANDBY state" 60
    [[ $(state_of "$(port_lid host-1)") == STANDBY ]] || fail "sminfo does not show $peer at host-1 STANDBY"
    wait_master "$(port_guid host-0)" 10 || fail "OpenSM is not the master before the kill: $(sminfo_of || true)"
    lid_map lids.before || fail "ibnetdiscover failed"
    # A service registered with OpenSM: an ibsm standby mirrors OpenSM's SA
    # (one MAD per table through umad2sim: one ServiceRecord fits).
    if [[ $peer == ibsm ]]; then
      owner_gid=$(python3 -c 'import ipaddress, sys; print(ipaddress.IPv6Address(0xfe80 << 112 | int(sys.argv[1], 16)))' \
        "$(port_guid host-4)")
      SIM_HOST=host-4 client timeout 30 "$IBSM" query --timeout 3000 SR --set ServiceID=0x5a01 ServiceGID="$owner_gid" \
        ServiceName=osm-failover > sr_set.out 2> sr_set.err || grep -q libumad2sim.so sr_set.err ||
        fail "registering a service with OpenSM: $(cat sr_set.out sr_set.err)"
      wait_log peer "mirrored 1 services" 10 || fail "the ibsm standby did not mirror OpenSM's service"
    fi
    t0=$(date +%s.%N)
    sm_kill osm KILL
    must_log peer "Entering MASTER state" 60
    echo "$peer at host-1 entered MASTER $(elapsed "$t0") s after OpenSM was killed"
    judge_master host-1 -
    if [[ $peer == ibsm ]]; then
      SIM_HOST=host-4 sim_client timeout 30 "$IBSM" query --timeout 3000 SR ServiceID=0x5a01 > sr_get.out 2> sr_get.err ||
        fail "querying the service on ibsm: $(cat sr_get.out sr_get.err)"
      grep -q "osm-failover" sr_get.out || fail "the service registered with OpenSM is not on ibsm: $(cat sr_get.out)"
      echo "the service registered with OpenSM is served by ibsm"
    fi
    ;;
  b)  # OpenSM master; a higher peer joins and gets the subnet.
    sm_start osm opensm host-0 "$low" "${osm_args[@]}"; up osm
    lid_map lids.before || fail "ibnetdiscover failed"
    t0=$(date +%s.%N)
    peer_start host-1 "$high"
    must_log peer "Entering MASTER state" "$handover_bound"
    must_log osm "Entering STANDBY state" 30
    echo "$peer at host-1 entered MASTER $(elapsed "$t0") s after it started; OpenSM went STANDBY"
    judge_master host-1 host-0
    sleep 3  # no ping-pong: OpenSM stays STANDBY
    [[ $(grep -c "Entering MASTER state" "$(sm_log osm)") -eq 1 ]] || fail "OpenSM took the subnet back"
    judge_master host-1 host-0
    ;;
  c)  # peer master, OpenSM standby (polling every second); the peer dies.
    peer_start host-0 "$high"; up peer
    sm_start osm opensm host-1 "$low" -F "$tuned" "${osm_args[@]}"
    must_log osm "Entering STANDBY state" 60
    wait_master "$(port_guid host-0)" 10 || fail "$peer is not the master before the kill: $(sminfo_of || true)"
    lid_map lids.before || fail "ibnetdiscover failed"
    t0=$(date +%s.%N)
    sm_kill peer KILL
    must_log osm "Entering MASTER state" 60
    echo "OpenSM at host-1 entered MASTER $(elapsed "$t0") s after $peer was killed"
    judge_master host-1 -
    ;;
  d)  # peer master; a higher OpenSM joins and gets the subnet.
    peer_start host-0 "$low"; up peer
    lid_map lids.before || fail "ibnetdiscover failed"
    t0=$(date +%s.%N)
    sm_start osm opensm host-1 "$high" "${osm_args[@]}"
    # OpenSM goes STANDBY on the master it finds (unless the handover comes while
    # it is DISCOVERING) and traps (144) at every poll (10 s); after 4
    # unrepressed traps it is silent.
    must_log osm "Entering MASTER state" "$handover_bound"
    must_log peer "Entering STANDBY state" 10
    echo "OpenSM at host-1 entered MASTER $(elapsed "$t0") s after it started; $peer went STANDBY"
    if [[ $peer == opensm ]]; then
      judge_master host-1 host-0
    else
      # Under ibsim OpenSM cannot finish the sweep it starts on taking the
      # subnet: the trap 144 it sent ibsm as a standby that outranks it stays
      # outstanding (ibsim drops every TrapRepress, umad2sim times nothing
      # out) and holds one of its wire slots, and its sweep waits for them
      # all. So no port learns OpenSM's LID as SM LID. Judged instead: SMInfo
      # of both SMs, the LIDs and the tables ibsm left, and ibsm following it.
      osm_lid=$(port_lid host-1)
      wait_master "$(port_guid host-1)" 10 "$osm_lid" || fail "sminfo of lid $osm_lid: $(sminfo_of "$osm_lid" || true)"
      [[ $(state_of "$(port_lid host-0)") == STANDBY ]] || fail "ibsm is $(sminfo_of "$(port_lid host-0)" || echo silent)"
      grep -qi "following the sm at port $(port_guid host-1)" "$(sm_log peer)" || fail "ibsm does not follow OpenSM"
      lid_map lids.after || fail "ibnetdiscover failed after the change"
      diff lids.before lids.after > lids.diff || fail "LIDs changed: $(head -6 lids.diff)"
      check_routed after || fail "the tables do not deliver every pair: $(tail -5 after.check)"
      echo "OpenSM is MASTER (lid $osm_lid), ibsm STANDBY following it, LIDs unchanged, every CA pair routed"
    fi
    sleep 3
    [[ $(grep -c "Entering MASTER state" "$(sm_log peer)") -le 1 ]] || fail "$peer took the subnet back"
    [[ $(state_of "$(port_lid host-0)") == STANDBY ]] || fail "$peer is not STANDBY any more"
    ;;
  *) fail "unknown case $case (a, b, c or d)" ;;
esac
echo "failover_opensm $case ($peer): pass"
