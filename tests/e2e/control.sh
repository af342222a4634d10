#!/usr/bin/env bash
# The control socket and `ibsm ctl` on ibsim, each command judged by the real
# tools or the daemon's log:
#  1. A (host-0, priority 10) is master with its socket in group G (a group
#     made for the test); status and sminfo agree with sminfo; loglevel debug
#     makes debug lines appear; resweep runs a light sweep (none is periodic
#     here), resweep --heavy and reroute heavy sweeps (every pair still
#     routed after); dump writes the OpenSM dump files.
#  2. Who may: a non-member (nobody) is refused by the socket's mode, and by
#     the daemon's credential check when the mode is opened wide; a member
#     by primary or by supplementary group is served.
#  3. Bad clients: an oversized request, a client that sends nothing, one that
#     disconnects mid-request: the daemon keeps serving saquery and ctl.
#  4. B (host-1, priority 5) joins as STANDBY; handover on A makes B the
#     master sminfo shows, and it stays so; disable on A (now STANDBY) makes
#     its SMInfo NOT ACTIVE, disable on the master B is refused; enable brings
#     A back to STANDBY.
source "$(dirname "$0")/lib.sh"
e2e_setup "$1"

fabric_start --topo leaf-spine --leaves 2 --spines 1 --hosts 2  # host-0 .. host-3
# Reachable by the unprivileged clients: the scratch folder is 0700.
chmod 711 "$E2E_DIR"
group=ibsmctl$$
groupadd "$group" || fail "groupadd $group"
gid=$(getent group "$group" | cut -d: -f3)
cleanup_group() { groupdel "$group" 2>/dev/null || true; }
A_SOCK=$E2E_DIR/A/ctl.sock  # where sm_start puts them
B_SOCK=$E2E_DIR/B/ctl.sock
ctl() { "$IBSM" ctl --timeout 20 "$@"; }
nobody() { setpriv --reuid=65534 --regid=65534 --clear-groups "$@"; }
must_log() { wait_log "$@" || fail "$1 did not log '$2' within $3 s: $(tail -3 "$(sm_log "$1")")"; }
json() { python3 -c "import json, sys; d = json.load(sys.stdin); print($1)"; }

sm_start A ibsm host-0 10 -F "$(sm_conf A control_group "$group" sweep_interval 0)"
trap 'rc=$?; sm_stop_all; cleanup_group; set +e; (exit $rc); e2e_cleanup' EXIT
must_log A "SUBNET UP" 60
for _ in $(seq 1 50); do [[ -S $A_SOCK ]] && break; sleep 0.1; done
[[ $(stat -c '%a %G' "$A_SOCK") == "660 $group" ]] || fail "socket mode: $(stat -c '%a %G' "$A_SOCK")"

# --- 1. Each command.
for _ in $(seq 1 50); do  # the status is published right after the sweep that logged SUBNET UP
  ctl --socket "$A_SOCK" status > status.txt || fail "ctl status"
  grep -q "^SM state        : MASTER" status.txt && break
  sleep 0.1
done
grep -q "^SM state        : MASTER" status.txt || fail "status: $(cat status.txt)"
ctl --socket "$A_SOCK" status --json > status.json || fail "ctl status --json"
[[ $(json 'd["state"], d["subnet"]["up"], d["subnet"]["nodes"], d["subnet"]["switches"]' < status.json) == "MASTER True 7 3" ]] ||
  fail "status --json: $(cat status.json)"
a_guid=$(port_guid host-0)
a_lid=$(port_lid host-0)
seen=$(sminfo_of "$a_lid") || fail "sminfo of A"
ctl --socket "$A_SOCK" sminfo --json > sminfo.json || fail "ctl sminfo --json"
mine=$(json 'd["state"], d["port_guid"], d["advertised_priority"], d["lid"]' < sminfo.json)
read -r s g p l <<<"$mine"
read -r ss sg sp <<<"$seen"
[[ $s == "$ss" && $(( g )) -eq $(( sg )) && $p == "$sp" && $l == "$a_lid" ]] ||
  fail "ctl sminfo ($mine) differs from sminfo ($seen, lid $a_lid)"
ctl --socket "$A_SOCK" sminfo | grep -q "sminfo: sm lid $a_lid sm guid .* priority 10 state 3 SMINFO_MASTER" ||
  fail "ctl sminfo text: $(ctl --socket "$A_SOCK" sminfo)"
echo "status and sminfo agree with sminfo: $seen"

log=$(sm_log A)
grep -q "light sweep: no change" "$log" && fail "a light sweep before resweep (sweep_interval 0)"
ctl --socket "$A_SOCK" loglevel debug | grep -q "log level debug" || fail "loglevel debug"
ctl --socket "$A_SOCK" resweep | grep -q "light sweep requested" || fail "resweep"
must_log A "light sweep: no change" 10
must_log A "\[debug\]" 5
ups=$(grep -c "SUBNET UP" "$log")
ctl --socket "$A_SOCK" resweep --heavy --json | json 'd["ok"]' | grep -q True || fail "resweep --heavy"
must_log A "SUBNET UP" 20 $((ups + 1))
ctl --socket "$A_SOCK" reroute > reroute.out || fail "reroute: $(cat reroute.out)"
must_log A "SUBNET UP" 20 $((ups + 2))
check_routed reroute || fail "not every pair routed after the reroute"
ctl --socket "$A_SOCK" loglevel info > /dev/null || fail "loglevel info"
ctl --socket "$A_SOCK" dump "$E2E_DIR/dumps" | grep -q "dumps written" || fail "dump"
for f in opensm-subnet.lst opensm.fdbs opensm-lfts.dump; do
  [[ -s dumps/$f ]] || fail "dump: no $f"
done
[[ -e dumps/opensm.mcfdbs ]] || fail "dump: no opensm.mcfdbs"  # empty: no group joined
grep -qi "$(printf '%016x' "$a_guid")" dumps/opensm-subnet.lst || fail "dump: A's port not in opensm-subnet.lst"
rc=0; ctl --socket "$A_SOCK" loglevel loud 2> /dev/null || rc=$?
[[ $rc -eq 2 ]] || fail "a bad level exits $rc, not 2"
rc=0; ctl --socket "$A_SOCK" bogus 2> /dev/null || rc=$?
[[ $rc -eq 2 ]] || fail "an unknown command exits $rc, not 2"
rc=0; ctl --socket "$E2E_DIR/none.sock" status 2> none.err || rc=$?
[[ $rc -eq 1 ]] && grep -q "no ibsm daemon at" none.err || fail "no daemon: rc $rc, $(cat none.err)"

# --- 2. Who may.
rc=0; nobody "$IBSM" ctl --socket "$A_SOCK" status > /dev/null 2> nobody.err || rc=$?
[[ $rc -eq 1 ]] && grep -q "permission denied on" nobody.err || fail "nobody (mode): rc $rc, $(cat nobody.err)"
setpriv --reuid=65534 --regid="$gid" --clear-groups "$IBSM" ctl --socket "$A_SOCK" status > /dev/null ||
  fail "a member by primary group was refused"
setpriv --reuid=65534 --regid=65534 --groups="$gid" "$IBSM" ctl --socket "$A_SOCK" status > /dev/null ||
  fail "a member by supplementary group was refused"
chmod 666 "$A_SOCK"  # the mode opened wide: the credential check still refuses
rc=0; nobody "$IBSM" ctl --socket "$A_SOCK" status > /dev/null 2> nobody.err || rc=$?
[[ $rc -eq 1 ]] && grep -q "permission denied: uid 65534 .* is not root nor in group $group" nobody.err ||
  fail "nobody (credentials): rc $rc, $(cat nobody.err)"
must_log A "control socket: refused uid 65534" 5
chmod 660 "$A_SOCK"
echo "a non-member is refused by the mode and by the credential check; members are served"

# --- 3. Bad clients: none of them stalls the SA or the socket.
python3 - "$A_SOCK" > oversized.out <<'PY'
import socket, sys
s = socket.socket(socket.AF_UNIX); s.connect(sys.argv[1]); s.settimeout(10)
try:
    s.sendall(b"status " + b"x" * 5000 + b"\n")
except OSError:
    pass
print(s.recv(200).decode().strip())
PY
grep -q "^error: request longer than 1024 bytes" oversized.out || fail "oversized: $(cat oversized.out)"
python3 - "$A_SOCK" <<'PY'
import socket, sys
s = socket.socket(socket.AF_UNIX); s.connect(sys.argv[1]); s.sendall(b"stat"); s.close()
PY
python3 - "$A_SOCK" > silent.out <<'PY' &
import socket, sys
s = socket.socket(socket.AF_UNIX); s.connect(sys.argv[1]); s.settimeout(20)
print(s.recv(200).decode().strip())
PY
silent=$!
sleep 0.5
SIM_HOST=$JUDGE_HOST sim_client timeout 20 saquery -N > nr.out 2>/dev/null || fail "saquery while a client is silent"
grep -q "NodeRecord" nr.out || fail "saquery: no NodeRecord"
ctl --socket "$A_SOCK" status > /dev/null || fail "ctl status while a client is silent"
wait "$silent" || true
grep -q "^error: timed out waiting for the request line" silent.out || fail "silent client: $(cat silent.out)"
must_log A "disconnected before its request was complete" 5
echo "an oversized request, a silent client and a vanished one leave saquery and ctl served"

# --- 4. Handover and disable.
sm_start B ibsm host-1 5 -F "$(sm_conf B sweep_interval 0)"
must_log B "Entering STANDBY state" 60
ups=$(grep -c "SUBNET UP" "$log")
ctl --socket "$A_SOCK" resweep --heavy > /dev/null || fail "resweep --heavy before the handover"
must_log A "SUBNET UP" 20 $((ups + 1))
ctl --socket "$A_SOCK" handover > handover.out || fail "handover: $(cat handover.out)"
b_guid=$(port_guid host-1)
b_lid=$(port_lid host-1)
grep -q "handing over to the sm at port" handover.out || fail "handover: $(cat handover.out)"
wait_master "$b_guid" 20 "$b_lid" || fail "B is not master after the handover: $(sminfo_of "$b_lid" || true)"
must_log A "Entering STANDBY state" 10
sleep 2
wait_master "$b_guid" 1 "$b_lid" || fail "B did not stay master: $(sminfo_of "$b_lid" || true)"
[[ $(sminfo_of "$a_lid" | cut -d' ' -f1,3) == "STANDBY 0" ]] || fail "A after the handover: $(sminfo_of "$a_lid")"
echo "handover: B is master, A standby at priority 0"
rc=0; ctl --socket "$B_SOCK" disable 2> disable.err || rc=$?
[[ $rc -eq 1 ]] && grep -q "MASTER" disable.err || fail "disable on the master: rc $rc, $(cat disable.err)"
ctl --socket "$A_SOCK" disable > /dev/null || fail "disable on A"
[[ $(sminfo_of "$a_lid" | cut -d' ' -f1) == NOTACT ]] || fail "A's SMInfo after disable: $(sminfo_of "$a_lid")"
ctl --socket "$A_SOCK" status --json | json 'd["state"]' | grep -q "NOT ACTIVE" || fail "A's status after disable"
ctl --socket "$A_SOCK" enable > /dev/null || fail "enable on A"
must_log A "Entering STANDBY state" 20 2
echo "disable: A NOT ACTIVE; the master refuses; enable: A STANDBY again"
