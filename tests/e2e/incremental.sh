#!/usr/bin/env bash
# Incremental resweeps on ibsim: with the daemon running, a spine-to-leaf
# cable is unlinked and linked back on the console. Each trap 128 leads to
# an incremental sweep (the log says so), far cheaper than the heavy sweep
# that brought the subnet up (umad_count counts what the SM sent around the
# two events); after each, every pair is delivered (ibsm check over
# ibnetdiscover and dump_fts, ibtracert through the spine) and every cabled
# port is Active (iblinkinfo).
source "$(dirname "$0")/lib.sh"
e2e_setup "$1"

fabric_start --topo leaf-spine --leaves 4 --spines 2 --hosts 2
counter=${UMAD_COUNT:?the path of umad_count.so}
SIM_HOST=host-0 UMAD_MARK_START=$PWD/mark.start UMAD_MARK_END=$PWD/mark.end UMAD_MARK_FILE=$PWD/window.count \
  LD_PRELOAD="$counter $UMAD2SIM" "$IBSM" run -f daemon.log -v -s 30 --cache-dir cache \
  --control-socket "$PWD/ctl.sock" > daemon.out 2>&1 &
DAEMON_PID=$!
trap 'rc=$?; sm_daemon_stop; set +e; (exit $rc); e2e_cleanup' EXIT

ups() { grep -c "SUBNET UP" daemon.log 2>/dev/null || true; }
incrementals() { grep -c "SUBNET UP: .*(incremental sweep)" daemon.log 2>/dev/null || true; }
at_least() { [[ $($1) -ge $2 ]]; }
# Host cables and leaf-spine cables, each listed from both ends.
cabled_ends=$(( (8 + 8) * 2 ))
all_active() {
  client iblinkinfo -l > links.out 2>/dev/null || return 1
  [[ $(grep '==(' links.out | grep -c 'Active/  LinkUp') -eq $1 ]]
}
routes_ok() {
  sim_client dump_fts > lfts.out 2>/dev/null || fail "dump_fts failed"
  client ibnetdiscover > topo.out 2>/dev/null || fail "ibnetdiscover failed"
  "$IBSM" check --topology topo.out --lfts lfts.out > check.out || fail "$1: $(cat check.out)"
  grep -q "delivered" check.out || fail "$1: no verdict: $(cat check.out)"
}
lid_of() { SIM_HOST=$1 client smpquery -D portinfo 0 1 2>/dev/null | awk -F. '/^Lid:/ {print $NF}'; }

wait_for 20 "SUBNET UP" at_least ups 1
wait_for 5 "every port Active" all_active $cabled_ends
heavy_mads=$(grep -m1 -oE "SUBNET UP: [0-9]+ nodes, [0-9]+ mads" daemon.log | awk '{print $5}')
[[ -n $heavy_mads ]] || fail "no mad count in the SUBNET UP line"

touch mark.start
# spine-1's port 3 goes to leaf-2 (leaf-spine: a spine's port p is leaf p-1).
ibsim_cmd 'Unlink "spine-1"[3]'
wait_for 10 "an incremental sweep after Unlink" at_least incrementals 1
wait_for 5 "the other ports Active" all_active $((cabled_ends - 2))
routes_ok "after Unlink"
# host-4 is on leaf-2: traced from host-0, through the remaining spine.
client ibtracert "$(lid_of host-0)" "$(lid_of host-4)" > trace.out 2>&1 || fail "ibtracert after Unlink: $(cat trace.out)"
grep -q "spine-0" trace.out || fail "the route to leaf-2 does not go through spine-0: $(cat trace.out)"

ibsim_cmd 'ReLink "spine-1"[3]'
wait_for 10 "an incremental sweep after ReLink" at_least incrementals 2
wait_for 5 "every port Active again" all_active $cabled_ends
routes_ok "after ReLink"
touch mark.end
[[ $(ups) -eq $(( $(incrementals) + 1 )) ]] || fail "a heavy sweep ran besides the incremental ones: $(grep 'SUBNET UP\|heavy sweep instead' daemon.log)"
grep -E "incremental sweep of [0-9]+ switches: [0-9]+ mads" daemon.log || fail "the incremental sweeps are not logged"

sm_daemon_stop
[[ -s window.count ]] || fail "umad_count wrote no window"
window=$(awk '{print $3}' window.count)
echo "heavy sweep: $heavy_mads mads; the pull and the return: $window mads (umad_count)"
[[ $window -gt 0 && $window -lt $heavy_mads ]] ||
  fail "the pull and its return cost $window mads, the heavy sweep $heavy_mads"
# No NodeInfo beyond the one port that came up, and its far end (both ends trap).
node_infos=$(tr ' ' '\n' < window.count | awk -F'[:=]' '$1=="0x81" && $2=="0x1" && $3=="0x11" {n+=$4} END {print n+0}')
[[ $node_infos -le 2 ]] || fail "$node_infos NodeInfo Gets: more than the ports that came up"
echo "incremental: $(incrementals) incremental sweeps, $window mads for both, $node_infos NodeInfo"
