#!/usr/bin/env bash
# The daemon on ibsim: `ibsm run` brings the fabric up and stays; sminfo shows
# it MASTER with its priority and GUID; a cable pulled and plugged back, and a
# LID changed behind its back (Baselid, put back), are found (trap or light sweep) and
# fixed by a heavy sweep; SIGHUP forces a heavy sweep; SIGTERM ends it
# cleanly with status 0.
source "$(dirname "$0")/lib.sh"
e2e_setup "$1"

"$IBSM" topo leaf-spine --leaves 3 --spines 2 --hosts 2 -o fabric.net
export SIM_HOST=host-0
ibsim_start "$PWD/fabric.net"

LD_PRELOAD="$UMAD2SIM" "$IBSM" run -s 1 -p 7 -f daemon.log -v --cache-dir cache --control-socket "$E2E_DIR/ctl.sock" > daemon.out 2>&1 &
daemon=$!
stop_daemon() { kill "$daemon" 2>/dev/null || true; wait "$daemon" 2>/dev/null || true; }
trap 'rc=$?; stop_daemon; (exit $rc); e2e_cleanup' EXIT

DAEMON_PID=$daemon
ups() { grep -c "SUBNET UP" daemon.log 2>/dev/null || true; }
more_ups_than() { [[ $(ups) -gt $1 ]]; }
all_active() {
  client iblinkinfo -l > links.out 2>/dev/null || return 1
  [[ $(grep '==(' links.out | grep -c 'Active/  LinkUp') -eq $1 ]]
}

wait_for 10 "SUBNET UP" more_ups_than 0
# 6 host cables and 6 leaf-spine cables, each listed from both ends.
cabled_ends=$(( (6 + 6) * 2 ))
wait_for 5 "every port Active" all_active $cabled_ends

# sminfo: ibsm is the master, with its priority and port GUID.
client sminfo > sminfo.out 2>&1 || fail "sminfo failed: $(cat sminfo.out)"
cat sminfo.out
grep -q "SMINFO_MASTER" sminfo.out || fail "sminfo does not show ibsm as MASTER"
grep -q "priority 7" sminfo.out || fail "sminfo does not show priority 7"
host0_guid=$(client smpquery -D nodeinfo 0 | awk -F. '/PortGuid/ {print $NF}')
shown=$(grep -oE 'sm guid 0x[0-9a-f]+' sminfo.out | awk '{print $3}')
[[ -n $shown && $((shown)) -eq $((host0_guid)) ]] || fail "sminfo shows GUID $shown, not host-0's port $host0_guid"

# A light sweep of the quiet fabric changes nothing.
n=$(ups)
sleep 2.5
[[ $(ups) -eq $n ]] || fail "a quiet fabric was heavy-swept again"

# A cable pulled, then plugged back: a heavy sweep each time, all Active at the end.
n=$(ups)
ibsim_cmd 'Unlink "spine-1"[2]'
wait_for 10 "a heavy sweep after Unlink" more_ups_than "$n"
wait_for 5 "the other ports Active" all_active $((cabled_ends - 2))
n=$(ups)
ibsim_cmd 'ReLink "spine-1"[2]'
wait_for 10 "a heavy sweep after ReLink" more_ups_than "$n"
wait_for 5 "every port Active again" all_active $cabled_ends

# A LID changed behind the SM's back is found by the light sweep. First the
# sweeps the ReLink set off must be over (its two ends' traps may bring a
# second heavy sweep, which would restore the LID before any light sweep
# looks): no new SUBNET UP for 2 s.
quiet_for_2s() {
  local before
  before=$(ups)
  sleep 2
  [[ $(ups) -eq $before ]]
}
wait_for 20 "the sweeps after ReLink to end" quiet_for_2s
host4_lid() { SIM_HOST=host-4 client smpquery -D portinfo 0 1 2>/dev/null | awk -F. '/^Lid:/ {print $NF}'; }
lid_before=$(host4_lid)
[[ -n $lid_before && $lid_before -ne 99 ]] || fail "host-4's lid before Baselid: '$lid_before'"
n=$(ups)
ibsim_cmd 'Baselid "host-4"[1] 99'
wait_for 10 "a heavy sweep after Baselid" more_ups_than "$n"
# ibsim raises PortStateChange on the host's switch too; either finding will do.
grep -qE "light sweep: .*(lid 99|changed state)" daemon.log || fail "the light sweep did not report the change"
# Put back to the SM's assignment, and logged with the port (OpenSM restores it too).
[[ $(host4_lid) -eq $lid_before ]] || fail "host-4's lid is $(host4_lid) after Baselid 99, expected $lid_before back"
grep -qE "port 1: lid 99 -> $lid_before \(changed behind the sm's back: restored" daemon.log ||
  fail "the restored lid is not logged: $(grep -E 'lid 99' daemon.log)"
sim_client dump_fts > lfts.out 2>/dev/null
client ibnetdiscover > topo.out 2>/dev/null
"$IBSM" check --topology topo.out --lfts lfts.out > check.out || fail "after Baselid: $(cat check.out)"

# SIGHUP: a heavy sweep now.
n=$(ups)
kill -HUP "$daemon"
wait_for 5 "a heavy sweep after SIGHUP" more_ups_than "$n"
grep -q "SIGHUP: heavy sweep" daemon.log || fail "SIGHUP not logged"

# SIGTERM: a clean exit.
kill -TERM "$daemon"
for _ in $(seq 1 50); do kill -0 "$daemon" 2>/dev/null || break; sleep 0.1; done
kill -0 "$daemon" 2>/dev/null && fail "the daemon did not stop on SIGTERM"
wait "$daemon"; rc=$?
[[ $rc -eq 0 ]] || fail "the daemon exited with $rc on SIGTERM"
grep -q "stopping on signal" daemon.log || fail "the stop was not logged"
echo "daemon: master with priority 7, $(ups) heavy sweeps, clean stop"
