#!/usr/bin/env bash
# The daemon on ibsim when the fabric misbehaves:
#  - the whole simulator frozen (`Wait 5`) as a heavy sweep starts: the sweep
#    fails, the daemon probes the fabric every second, sweeps again as soon
#    as it answers ("the fabric answers again"), and every port is Active;
#  - a switch that answers no SMP (`Error "leaf-1" 100`, its links up): it
#    answered before, so the subnet is partial ("missing", not up) rather
#    than SUBNET UP without it; once it answers again the next sweep finds
#    it and the subnet is up with every node;
#  - 30% SMP loss on two switches (`Error ... 30`): no SUBNET UP with fewer
#    nodes than the fabric has (a live host missed by one sweep is not
#    dropped), and in the end every pair is routed (ibsm check on dump_fts).
source "$(dirname "$0")/lib.sh"
e2e_setup "$1"

"$IBSM" topo leaf-spine --leaves 3 --spines 2 --hosts 2 -o fabric.net
export SIM_HOST=host-0
ibsim_start "$PWD/fabric.net"
nodes=$(grep -cE '^(Switch|Ca|Hca)' fabric.net)

# -s 10: no light sweep comes to the rescue within the waits below.
LD_PRELOAD="$UMAD2SIM" "$IBSM" run -s 10 -f daemon.log -v --cache-dir cache --control-socket "$E2E_DIR/ctl.sock" \
  > daemon.out 2>&1 &
daemon=$!
trap 'rc=$?; kill "$daemon" 2>/dev/null; wait "$daemon" 2>/dev/null; (exit $rc); e2e_cleanup' EXIT

DAEMON_PID=$daemon
count() { grep -c "$1" daemon.log 2>/dev/null || true; }
more_than() { [[ $(count "$1") -gt $2 ]]; }
all_active() {
  client iblinkinfo -l > links.out 2>/dev/null || return 1
  [[ $(grep '==(' links.out | grep -c 'Active/  LinkUp') -eq $1 ]]
}
cabled_ends=$(( (6 + 6) * 2 ))
wait_for 10 "SUBNET UP" more_than "SUBNET UP" 0
wait_for 5 "every port Active" all_active $cabled_ends

# --- The simulator frozen as a heavy sweep starts.
ups=$(count "SUBNET UP")
echo "Wait 5" > console
sleep 0.2
kill -HUP "$daemon"
wait_for 20 "a sweep after the thaw" more_than "SUBNET UP" "$ups"
grep -q "heavy sweep failed\|subnet not up" daemon.log || fail "the sweep during the freeze did not fail: $(tail -5 daemon.log)"
grep -q "the fabric answers again: heavy sweep now" daemon.log ||
  fail "the retry was not brought forward by the probes: $(grep -E 'heavy sweep again|answers again' daemon.log)"
wait_for 5 "every port Active after the freeze" all_active $cabled_ends
echo "frozen fabric: the probes saw it thaw, every port Active"

# --- A switch that answers nothing: missing, the subnet partial.
ups=$(count "SUBNET UP")
ibsim_cmd 'Error "leaf-1" 100'
kill -HUP "$daemon"
wait_for 10 "the partial subnet" more_than "subnet not up" 0
sleep 2
[[ $(count "SUBNET UP") -eq $ups ]] || fail "SUBNET UP without leaf-1: $(grep 'SUBNET UP' daemon.log | tail -1)"
grep -qE "dr path [0-9,]+: no answer to NodeInfo" daemon.log || fail "leaf-1's silence is not logged"
ibsim_cmd 'Error "leaf-1" 0'
wait_for 20 "SUBNET UP once leaf-1 answers" more_than "SUBNET UP" "$ups"
grep "SUBNET UP" daemon.log | tail -1 | grep -q "SUBNET UP: $nodes nodes" ||
  fail "the subnet came up without every node: $(grep 'SUBNET UP' daemon.log | tail -1)"
wait_for 5 "every port Active with leaf-1 back" all_active $cabled_ends
echo "silent switch: partial until it answered, then up with all $nodes nodes"

# --- 30% SMP loss on two switches: no subnet declared up with fewer nodes.
ibsim_cmd 'Error "leaf-0" 30'
ibsim_cmd 'Error "spine-1" 30'
for _ in 1 2 3; do
  kill -HUP "$daemon"
  sleep 1.5
done
ibsim_cmd 'Error "leaf-0" 0'
ibsim_cmd 'Error "spine-1" 0'
ups=$(count "SUBNET UP")
kill -HUP "$daemon"
wait_for 20 "SUBNET UP after the loss" more_than "SUBNET UP" "$ups"
short=$(grep "SUBNET UP" daemon.log | grep -vc "SUBNET UP: $nodes nodes" || true)
[[ $short -eq 0 ]] || fail "$short SUBNET UP lines with fewer than $nodes nodes: $(grep 'SUBNET UP' daemon.log | grep -v "$nodes nodes")"
wait_for 10 "every port Active after the loss" all_active $cabled_ends
sim_client dump_fts > lfts.out 2>/dev/null
client ibnetdiscover > topo.out 2>/dev/null
"$IBSM" check --topology topo.out --lfts lfts.out > check.out || fail "after the loss: $(cat check.out)"
echo "30% loss: every SUBNET UP had all $nodes nodes; $(head -1 check.out)"
