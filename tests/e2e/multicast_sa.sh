#!/usr/bin/env bash
# Multicast groups in ibsm's SA on ibsim, judged by saquery, osmtest and
# `ibsm query MCMR`:
#  - the default partition's IPoIB broadcast group ff12:401b:ffff::ffff:ffff
#    exists from the first sweep, at MLID 0xC000 (saquery -g);
#  - `ibsm query MCMR --set` joins it and creates a group, `--delete` leaves
#    and deletes; a trusted GetTable (--smkey) lists every member with its
#    PortGID, an untrusted one a record per group with PortGID zero, as
#    OpenSM answers (saquery -m shows the members only with --smkey);
#  - a join without the components a create needs is ERR_REQ_INSUFFICIENT_COMPONENTS;
#  - osmtest -f m (OpenSM's multicast flow: creates, joins, partial leaves,
#    bad MGIDs, selectors, MLIDs) passes.
# osmtest under ibsim sees only the first MAD of a GetTable answer: 3
# MCMemberRecords, in MGID order. It ends by deleting the non-IPoIB groups it
# sees and failing if a group it created is still seen, so with only the
# broadcast group present it would see its own leftovers beyond the first
# MAD. An IPoIB host's joins fill the first MAD as on a real subnet: the
# IPv4 all-hosts and IPv6 all-nodes groups ff12:401b:ffff::1 and
# ff12:601b:ffff::1 (created by the host's full-member join, as the IPoIB
# driver does; OpenSM does not predefine them either).
# Not checked here: the multicast forwarding tables (the SM programs them in
# sm/multicast/, wired by the lead): ibroute -M / ibtracert -m for a joined
# group belong to that part.
source "$(dirname "$0")/lib.sh"
e2e_setup "$1"

fabric_start --topo leaf-spine --leaves 3 --spines 2 --hosts 4
sm_daemon_start host-0 -s 10
daemon=$DAEMON_PID

bcast=ff12:401b:ffff::ffff:ffff
bcast_full=ff12:401b:ffff:0000:0000:0000:ffff:ffff
app=ff15:1234::42
app_full=ff15:1234:0000:0000:0000:0000:0000:0042

# q HOST ARGS...: ibsm query from HOST.
q() { local host=$1; shift; SIM_HOST=$host sim_client "$IBSM" query "$@"; }
# qd HOST ARGS...: a delete (the tables after it are judged on their own).
qd() { local host=$1; shift; SIM_HOST=$host sim_delete "$IBSM" query "$@"; }
gid_of() { SIM_HOST=$1 sim_client ibaddr | awk '{print $2}'; }
gid5=$(gid_of host-5)
gid6=$(gid_of host-6)
[[ $gid5 == fe80::* && $gid6 == fe80::* ]] || fail "no port GIDs from ibaddr: '$gid5' '$gid6'"

# --- The broadcast group is there before anyone joins.
SIM_HOST=host-5 sim_client saquery -g || fail "saquery -g failed"
cp sim_client.out groups0.out
grep -A1 "MGID\.*$bcast\$" groups0.out | grep -q "Mlid\.*0xC000" ||
  fail "saquery -g lacks the broadcast group at MLID 0xC000: $(cat groups0.out)"
[[ $(grep -c "MGID\.*ff" groups0.out) -eq 1 ]] || fail "saquery -g lists other groups: $(cat groups0.out)"

# --- Joins: host-5 joins the broadcast group, creates $app; host-6 joins $app as a non-member.
q host-5 MCMR --set MGID=$bcast PortGID="$gid5" JoinState=1 --json > join.json || fail "broadcast join failed"
q host-5 MCMR --set MGID=$app PortGID="$gid5" JoinState=1 Q_Key=0x22 P_Key=0xffff SL=0 FlowLabel=0 TClass=0 \
  --json > create.json || fail "create of $app failed"
q host-6 MCMR --set MGID=$app PortGID="$gid6" JoinState=2 --json > join6.json || fail "non-member join failed"
python3 - join.json create.json join6.json <<'EOF' || fail "join answers: $(cat join.json create.json join6.json)"
import json, sys
j, c, n = (json.load(open(f))[0] for f in sys.argv[1:])
assert j["MLID"] == 0xC000 and j["JoinState"] == 1 and j["Q_Key"] == "0x00000b1b", j
assert c["MLID"] == 0xC001 and c["Q_Key"] == "0x00000022" and c["Scope"] == 5, c
assert n["MLID"] == 0xC001 and n["JoinState"] == 2, n
EOF

# A create without Q_Key, P_Key, SL, FlowLabel, TClass: insufficient components.
set +e
q host-5 MCMR --set MGID=ff15:1234::43 PortGID="$gid5" JoinState=1 > insufficient.out 2>&1
rc=$?
set -e
[[ $rc -eq 1 ]] && grep -q "ERR_REQ_INSUFFICIENT_COMPONENTS" insufficient.out ||
  fail "a create without its components was not refused: rc $rc $(cat insufficient.out)"

# --- GetTable: trusted, every member; untrusted, a record per group with PortGID zero.
q host-6 MCMR --smkey 1 --json > trusted.json || fail "trusted MCMR table failed"
q host-6 MCMR --json > untrusted.json || fail "MCMR table failed"
python3 - trusted.json untrusted.json "$bcast_full" "$app_full" "$gid5" "$gid6" <<'EOF' || fail "MCMR tables: $(cat trusted.json untrusted.json)"
import json, sys, ipaddress
t, u = json.load(open(sys.argv[1])), json.load(open(sys.argv[2]))
bcast, app = sys.argv[3], sys.argv[4]
g5, g6 = (ipaddress.IPv6Address(g) for g in sys.argv[5:7])
members = sorted((r["MGID"], ipaddress.IPv6Address(r["PortGID"]), r["JoinState"]) for r in t)
assert members == sorted([(bcast, g5, 1), (app, g5, 1), (app, g6, 2)]), members
assert [r["MGID"] for r in u] == [bcast, app], u
assert all(ipaddress.IPv6Address(r["PortGID"]) == ipaddress.IPv6Address("::") and r["JoinState"] == 0 for r in u), u
EOF
# saquery -m with the SM_Key shows host-5 in the broadcast group; without it, no PortGID.
SIM_HOST=host-6 sim_client saquery -m --smkey 1 || fail "saquery -m --smkey 1 failed"
grep -A2 "MGID\.*$bcast\$" sim_client.out | grep -q "PortGid\.*$gid5" || fail "saquery -m --smkey 1: $(cat sim_client.out)"
SIM_HOST=host-6 sim_client saquery -m || fail "saquery -m failed"
grep -A2 "MGID\.*$bcast\$" sim_client.out | grep -q "PortGid\.*::$" || fail "saquery -m showed PortGIDs: $(cat sim_client.out)"

# --- Leaves: host-6 leaves $app, host-5's leave deletes it; the broadcast group stays.
qd host-6 MCMR --delete MGID=$app PortGID="$gid6" JoinState=2 --json > leave6.json || fail "leave of host-6 failed"
qd host-5 MCMR --delete MGID=$app PortGID="$gid5" JoinState=1 --json > leave5.json || fail "leave of host-5 failed"
qd host-5 MCMR --delete MGID=$bcast PortGID="$gid5" JoinState=1 > /dev/null || fail "broadcast leave failed"
q host-6 MCMR --json > after.json || fail "MCMR table after the leaves failed"
python3 - after.json "$bcast_full" <<'EOF' || fail "groups after the leaves: $(cat after.json)"
import json, sys
assert [r["MGID"] for r in json.load(open(sys.argv[1]))] == [sys.argv[2]]
EOF
grep -q "multicast group $app_full (mlid 0xc001) deleted" daemon.log || fail "the daemon did not log the deletion"

# --- Traps 66 and 67 reach a subscriber (sa_send_raw --subscriber, as in
# sa_services.sh: ibsim hands the SA's Reports only to a client with issm
# open): every generic trap (TrapNumber 0xFFFF), then host-5 creates and
# deletes a group.
inform_info=$(printf '%032d' 0)ffff000000000101ffffffff0000011200ffffff
SIM_HOST=host-8 client timeout 20 "$IBSM_TOOLS_DIR/sa_send_raw" --subscriber --wait 8000 \
  method=0x02 attr=0x0003 data="$inform_info" > reports.out 2> reports.err &
reporter=$!
for _ in $(seq 1 50); do grep -q "^answer" reports.out && break; sleep 0.1; done
grep -q "^answer method 0x81 status 0x0000 attr 0x0003" reports.out || fail "InformInfo Set: $(cat reports.out reports.err)"
trapped=ff15:1234::77
q host-5 MCMR --set MGID=$trapped PortGID="$gid5" JoinState=1 Q_Key=0x22 P_Key=0xffff SL=0 FlowLabel=0 TClass=0 \
  > /dev/null || fail "create of $trapped failed"
qd host-5 MCMR --delete MGID=$trapped PortGID="$gid5" JoinState=1 > /dev/null || fail "delete of $trapped failed"
for _ in $(seq 1 50); do grep -q "^report trap 67" reports.out && break; sleep 0.1; done
kill "$reporter" 2>/dev/null || true
wait "$reporter" 2>/dev/null || true
for trap in 66 67; do
  reported=$(grep -m1 "^report trap $trap" reports.out | awk '{print $NF}')
  [[ -n $reported ]] || fail "no trap $trap report: $(cat reports.out)"
  python3 -c 'import ipaddress, sys; assert ipaddress.IPv6Address(sys.argv[1]) == ipaddress.IPv6Address(sys.argv[2])' \
    "$reported" "$trapped" || fail "trap $trap reported $reported, not $trapped"
done
echo "traps 66 and 67 reported $trapped to a subscriber"

# --- osmtest -f m, after an IPoIB host's all-nodes joins (see the header).
for m in ff12:401b:ffff::1 ff12:601b:ffff::1; do
  q host-7 MCMR --set MGID=$m PortGID="$(gid_of host-7)" JoinState=1 Q_Key=0x0b1b P_Key=0xffff SL=0 FlowLabel=0 \
    TClass=0 > /dev/null || fail "IPoIB join of $m failed"
done
set +e
SIM_HOST=host-5 client timeout 120 osmtest -f m -l "$PWD/osmtest-m.log" > osmtest-m.out 2>&1
rc=$?
set -e
if [[ $rc -ne 0 ]] || ! grep -q 'TEST "Multicast" PASS' osmtest-m.out; then
  grep -E 'ERR 02|ERR 01' osmtest-m.log | tail -5 >&2 || true
  fail "osmtest -f m failed against ibsm (exit $rc)"
fi

kill -0 "$daemon" 2>/dev/null || fail "the daemon died: $(tail -5 daemon.log)"
echo "multicast SA: broadcast group at 0xC000, joins, leaves, tables, osmtest -f m pass"
