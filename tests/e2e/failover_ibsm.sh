#!/usr/bin/env bash
# Two ibsm daemons on ibsim, judged by sminfo and ibnetdiscover from a third
# host: the higher-priority one is MASTER and the other STANDBY; a service
# registered with the master is on the standby's mirror; SIGKILL of the
# master makes the standby MASTER (the time it took is printed) with every
# LID where it was and the service still served; the killed SM started again
# at a higher priority gets the mastership back by HANDOVER.
source "$(dirname "$0")/lib.sh"
e2e_setup "$1"

"$IBSM" topo leaf-spine --leaves 3 --spines 2 --hosts 2 -o fabric.net
ibsim_start "$PWD/fabric.net"

pids=()
stop_all() { for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; wait "$p" 2>/dev/null || true; done; }
trap 'rc=$?; stop_all; set +e; (exit $rc); e2e_cleanup' EXIT

# start_sm HOST PRIORITY LOG: an ibsm daemon; its pid in last_pid.
start_sm() {
  mkdir -p "cache-$1"
  SIM_HOST=$1 LD_PRELOAD="$UMAD2SIM" "$IBSM" run -p "$2" -s 1 -f "$3" -v --cache-dir "cache-$1" > "$3.out" 2>&1 &
  last_pid=$!
  pids+=("$last_pid")
}
# wait_for SECONDS WHAT COMMAND...
wait_for() {
  local seconds=$1 what=$2; shift 2
  local i
  for i in $(seq 1 $((seconds * 20))); do
    "$@" && return 0
    sleep 0.05
  done
  fail "timed out waiting for $what"
}
in_log() { grep -q "$2" "$1" 2>/dev/null; }
judge() { SIM_HOST=host-5 sim_client timeout 10 "$@"; }
master_is() {  # master_is GUID: sminfo from a third host names it MASTER
  judge sminfo > sminfo.out 2>/dev/null || return 1
  grep -q SMINFO_MASTER sminfo.out || return 1
  local shown
  shown=$(grep -oE 'sm guid 0x[0-9a-f]+' sminfo.out | awk '{print $3}')
  [[ -n $shown && $((shown)) -eq $(($1)) ]]
}
port_guid_of() {  # the port GUID of HOST's port 1, from the netfile's switch side
  grep -oE "\"$1\"\[1\]\([0-9a-f]+\)" fabric.net | head -1 | grep -oE '\([0-9a-f]+\)' | tr -d '()'
}
lids() { judge ibnetdiscover > now.out 2>/dev/null && grep -oE 'lid [0-9]+' now.out | sort; }

start_sm host-0 10 a.log
a=$last_pid
wait_for 20 "SUBNET UP on host-0" in_log a.log "SUBNET UP"
start_sm host-1 5 b.log
b=$last_pid
wait_for 20 "host-1 STANDBY" in_log b.log "Entering STANDBY state"
guid_a=0x$(port_guid_of host-0)
guid_b=0x$(port_guid_of host-1)
[[ $guid_a != 0x && $guid_b != 0x ]] || fail "no port guids for host-0 and host-1 in fabric.net"
wait_for 10 "sminfo: host-0 master" master_is "$guid_a"
lids > lids-before.out || fail "ibnetdiscover failed"

# A service registered with the master; the standby's mirror reads it.
gid_2=$(python3 -c 'import ipaddress, sys; print(ipaddress.IPv6Address(0xfe80 << 112 | int(sys.argv[1], 16)))' \
  "$(port_guid_of host-2)")
SIM_HOST=host-2 sim_client timeout 20 "$IBSM" query --timeout 5000 SR --set ServiceID=0x1234 \
  ServiceGID="$gid_2" ServiceName=failover-e2e ServiceLease=0xffffffff > sr-set.out 2>&1 || fail "service registration failed: $(cat sr-set.out)"
sleep 2

kill -9 "$a"
t0=$(date +%s%N)
wait_for 10 "host-1 MASTER" in_log b.log "Entering MASTER state"
wait_for 10 "sminfo: host-1 master" master_is "$guid_b"
t1=$(date +%s%N)
echo "takeover: $(( (t1 - t0) / 1000000 )) ms from SIGKILL to sminfo showing the standby MASTER"
wait_for 10 "a sweep by host-1" in_log b.log "SUBNET UP"
lids > lids-after.out || fail "ibnetdiscover failed"
diff -u lids-before.out lids-after.out || fail "a LID changed in the takeover"
SIM_HOST=host-2 sim_client timeout 20 "$IBSM" query --timeout 5000 SR ServiceID=0x1234 --json > sr-get.out 2>&1 ||
  fail "service query on the new master failed: $(cat sr-get.out)"
grep -q "failover-e2e" sr-get.out || fail "the service is not on the new master: $(cat sr-get.out)"

# The killed SM restarts higher: HANDOVER gives it the mastership back.
# (A SIGKILLed client keeps its ibsim slot; host-0's port gets a new one.)
start_sm host-0 12 a2.log
wait_for 20 "host-1 hands over" in_log b.log "Entering STANDBY state"
wait_for 10 "sminfo: host-0 master again" master_is "$guid_a"
in_log a2.log "HANDOVER received" || fail "host-0 did not get the mastership by HANDOVER: $(grep Entering a2.log)"
echo "two ibsm daemons: election, takeover, handover, nothing lost"
