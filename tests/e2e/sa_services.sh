#!/usr/bin/env bash
# ServiceRecords and InformInfo through the SA inside `ibsm run` on ibsim:
#  - a port registers a service as its own GID (--set), finds it by ServiceID
#    and ServiceName, saquery -S sees it; a lease of 4 s runs out; the owner
#    deletes; another host without the SM_Key is denied (status, exit 1) a
#    delete and a replace, and with --smkey 1 may delete;
#  - `ibsm query --subscribe 65` on one host: InformInfoRecord lists the
#    subscription, and nothing after the unsubscribe; a subscriber that can
#    receive Reports on ibsim (sa_send_raw --subscriber) gets trap 65 with
#    the GID of a host unplugged, after the daemon's next sweep.
source "$(dirname "$0")/lib.sh"
e2e_setup "$1"

fabric_start --topo leaf-spine --leaves 2 --spines 1 --hosts 2
sm_daemon_start host-0 -s 1
q() { sim_client timeout 20 "$IBSM" query --timeout 5000 "$@"; }
gid_of_host() {  # the port GID of HOST, from its own NodeInfo
  local guid
  guid=$(SIM_HOST=$1 sim_client timeout 10 smpquery -D nodeinfo 0 | awk -F. '/^PortGuid/ {print $NF}')
  python3 -c 'import ipaddress, sys; print(ipaddress.IPv6Address(0xfe80 << 112 | int(sys.argv[1], 16)))' "$guid"
}
owner_gid=$(gid_of_host host-2)
lost_gid=$(gid_of_host host-1)
subscriber_gid=$(gid_of_host host-3)

# op NAME HOST ARGS...: one ibsm query that changes something, run once (a
# second run would not be the same request); NAME.out, NAME.err, and OP_RC
# its exit status, or "crash" when umad2sim crashed it at exit (its output
# is then judged alone).
op() {
  local name=$1 host=$2; shift 2
  OP_RC=0
  SIM_HOST=$host client timeout 20 "$IBSM" query --timeout 5000 "$@" > "$name.out" 2> "$name.err" || OP_RC=$?
  if [[ $OP_RC -ne 0 ]] && { [[ $OP_RC -eq 139 ]] || grep -q "libumad2sim.so" "$name.err"; }; then OP_RC=crash; fi
}
expect_ok() {  # expect_ok NAME: the SA answered with the record
  [[ $OP_RC == 0 || $OP_RC == crash ]] && grep -q '"ServiceID": "0x0000000000005a00"' "$1.out" ||
    fail "$1: rc $OP_RC: $(cat "$1.out" "$1.err")"
}
expect_denied() {  # expect_denied NAME: ERR_REQ_DENIED printed, exit 1
  [[ $OP_RC == 1 || $OP_RC == crash ]] && grep -q "status 0x0700 (ERR_REQ_DENIED)" "$1.err" ||
    fail "$1: rc $OP_RC, expected ERR_REQ_DENIED: $(cat "$1.out" "$1.err")"
  echo "$1: $(grep -m1 status "$1.err")"
}
count_sr() { SIM_HOST=host-2 q SR ServiceID=0x5a00 --count; }
SVC=(ServiceID=0x5a00 ServiceGID="$owner_gid")

# --- Register with a lease of 4 s: found by ID and by name, seen by saquery;
# gone half a second after the lease ends.
op set_lease host-2 SR --set "${SVC[@]}" ServiceName=ibsm-e2e ServiceLease=4 --json
expect_ok set_lease
lease_ends=$(date +%s.%N | awk '{printf "%.3f", $1 + 4}')
[[ $(count_sr) -eq 1 ]] || fail "the service is not found by ServiceID"
SIM_HOST=host-2 q SR ServiceName=ibsm-e2e --json > by_name.json
python3 -c 'import json,sys; r=json.load(open(sys.argv[1])); assert len(r)==1 and r[0]["ServiceID"]=="0x0000000000005a00" and r[0]["ServiceLease"]==4, r' \
  by_name.json || fail "by ServiceName: $(cat by_name.json)"
# saquery at a node of its own (it cannot ACK the RMPP answer: the SA resends).
SIM_HOST=leaf-0 sim_client timeout 10 saquery -S > saquery_sr.out || fail "saquery -S failed"
grep -qE "ServiceID\.+0x0000000000005a00" saquery_sr.out && grep -qE "ServiceName\.+ibsm-e2e" saquery_sr.out ||
  fail "saquery -S: $(head -12 saquery_sr.out)"
left=$(date +%s.%N | awk -v end="$lease_ends" '{printf "%.3f", end - $1}')
awk -v l="$left" 'BEGIN {exit !(l > 0)}' || fail "the checks took longer than the 4 s lease"
sleep "$(awk -v l="$left" 'BEGIN {print l + 0.5}')"
[[ $(count_sr) -eq 0 ]] || fail "the service outlived its 4 s lease"

# --- Infinite lease: the owner deletes it; another host may not, unless trusted.
op set host-2 SR --set "${SVC[@]}" ServiceName=ibsm-e2e --json
expect_ok set
op other_delete host-3 SR --delete "${SVC[@]}" --json
expect_denied other_delete
op other_replace host-3 SR --set "${SVC[@]}" ServiceName=taken --json
expect_denied other_replace
[[ $(count_sr) -eq 1 ]] || fail "a denied request changed the service"
op owner_delete host-2 SR --delete "${SVC[@]}" --json
expect_ok owner_delete
[[ $(count_sr) -eq 0 ]] || fail "the owner's delete left the service"
op set_again host-2 SR --set "${SVC[@]}" --json
expect_ok set_again
op trusted_delete host-3 SR --delete "${SVC[@]}" --smkey 1 --json
expect_ok trusted_delete
[[ $(count_sr) -eq 0 ]] || fail "the trusted delete left the service"

# --- InformInfo. `ibsm query --subscribe 65` on host-3: InformInfoRecord
# lists the subscription while it lasts, and nothing after its unsubscribe.
SIM_HOST=host-3 client timeout 20 "$IBSM" query --subscribe 65 --wait 4 > subscriber.out 2> subscriber.err &
subscriber=$!
for _ in $(seq 1 50); do grep -q "^subscribed" subscriber.out && break; sleep 0.1; done
grep -q "^subscribed to trap 65" subscriber.out || fail "no subscription: $(cat subscriber.out subscriber.err)"
SIM_HOST=host-2 q IIR --json > iir.json || fail "IIR failed"
python3 - iir.json "$subscriber_gid" <<'EOF2' || fail "InformInfoRecords while subscribed: $(cat iir.json)"
import ipaddress, json, sys
r = json.load(open(sys.argv[1]))
assert len(r) == 1, f"{len(r)} records"
assert ipaddress.IPv6Address(r[0]["SubscriberGID"]) == ipaddress.IPv6Address(sys.argv[2]), r[0]["SubscriberGID"]
assert r[0]["TrapNumber"] == 65 and r[0]["Subscribe"] == 1, r[0]
EOF2
wait "$subscriber" || grep -q "libumad2sim.so" subscriber.err || fail "the subscriber failed: $(cat subscriber.err)"
grep -q "unsubscribe done" subscriber.out || fail "unsubscribe: $(cat subscriber.out)"
[[ $(SIM_HOST=host-2 q IIR --count) -eq 0 ]] || fail "InformInfoRecords left after the unsubscribe"

# The Report itself: ibsim hands a request to QP1 (the SA's Report) only to a
# client that opened the port's issm device, which `ibsm query` does not, so
# sa_send_raw --subscriber (issm open) subscribes to trap 65 with the same
# InformInfo (every LID, generic, QPN 1, RespTimeValue 18) and prints the
# Reports. Unplugging host-1 makes the daemon (-s 1) sweep; trap 65 names
# host-1's GID.
# InformInfo (IBA 13.4.8.3): GID 0, LIDRangeBegin 0xFFFF, LIDRangeEnd 0, IsGeneric 1,
# Subscribe 1, Type 0xFFFF, TrapNumber 65, QPN 1, RespTimeValue 18, ProducerType 0xFFFFFF.
inform_info=$(printf '%032d' 0)ffff000000000101ffff00410000011200ffffff
SIM_HOST=host-3 client timeout 20 "$IBSM_TOOLS_DIR/sa_send_raw" --subscriber --wait 8000 \
  method=0x02 attr=0x0003 data="$inform_info" > reports.out 2> reports.err &
reporter=$!
for _ in $(seq 1 50); do grep -q "^answer" reports.out && break; sleep 0.1; done
grep -q "^answer method 0x81 status 0x0000 attr 0x0003" reports.out || fail "InformInfo Set: $(cat reports.out reports.err)"
ibsim_cmd 'Unlink "host-1"'
for _ in $(seq 1 70); do grep -q "^report trap 65" reports.out && break; sleep 0.1; done
grep -q "^report trap 65" reports.out || fail "no trap 65 report: $(cat reports.out); $(grep -i 'sweep\|trap' daemon.log | tail -5)"
grep "^report" reports.out
reported=$(grep -m1 "^report trap 65" reports.out | awk '{print $NF}')
python3 -c 'import ipaddress, sys; assert ipaddress.IPv6Address(sys.argv[1]) == ipaddress.IPv6Address(sys.argv[2])' \
  "$reported" "$lost_gid" || fail "trap 65 reported $reported, not host-1's $lost_gid"
kill "$reporter" 2>/dev/null || true
wait "$reporter" 2>/dev/null || true
echo "sa_services: register/find/lease/delete/deny, trap 65 for $lost_gid, IIR while subscribed only"
