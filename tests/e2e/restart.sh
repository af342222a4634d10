#!/usr/bin/env bash
# A daemon restart on ibsim (issue 13, "state is lost across a restart"):
#  1. A service (infinite lease) and one with a 3 s lease are registered,
#     host-3 subscribes (InformInfo, trap 64), host-2 creates a multicast
#     group; SIGTERM; 3 s later `ibsm run` starts again with the cache:
#     `saquery -S` shows the service, `saquery -g` the group at its MLID,
#     InformInfoRecord the subscription; the 3 s service is gone (its lease
#     ran out while the SM was down); umad_count: no LFT block Set.
#  2. The cache removed: still no LFT block Set (the switches' tables are
#     read first, only blocks that differ would be set), the LIDs are the
#     ones the ports hold, and the registrations are gone (nothing kept them).
#  3. A service registered, saved (at most a second later), then kill -9:
#     the restart has it, from the last complete save.
source "$(dirname "$0")/lib.sh"
e2e_setup "$1"

fabric_start --topo leaf-spine --leaves 2 --spines 1 --hosts 2
counter=${UMAD_COUNT:?the path of umad_count.so}
registrations=cache/ibsm-sa-registrations

# start_sm TAG: `ibsm run` at host-0, its MADs counted into TAG.count (written
# at exit), its log TAG.log; returns once the subnet is up.
start_sm() {
  local tag=$1
  SIM_HOST=host-0 UMAD_COUNT_FILE=$PWD/$tag.count LD_PRELOAD="$counter $UMAD2SIM" "$IBSM" run -f "$tag.log" -v \
    --cache-dir cache --control-socket "$E2E_DIR/ctl.sock" -s 1 > "$tag.out" 2>&1 &
  DAEMON_PID=$!
  DAEMON_LOG=$tag.log
  trap 'rc=$?; sm_daemon_stop; set +e; (exit $rc); e2e_cleanup' EXIT
  wait_for 20 "SUBNET UP ($tag)" grep -qs "SUBNET UP" "$tag.log"
}
# LFT block Sets (attribute 0x19) in a count file, LID-routed and directed-route.
lft_sets() { tr ' ' '\n' < "$1" | awk -F'[:=]' '($1=="0x1"||$1=="0x81") && $2=="0x2" && $3=="0x19" {n+=$4} END {print n+0}'; }
q() { local host=$1; shift; SIM_HOST=$host client timeout 20 "$IBSM" query --timeout 5000 "$@"; }
gid_of() { SIM_HOST=$1 client ibaddr | awk '{print $2}'; }
services() { SIM_HOST=leaf-0 sim_client timeout 10 saquery -S 2>/dev/null || true; }
groups() { SIM_HOST=leaf-0 sim_client timeout 10 saquery -g 2>/dev/null || true; }
subscriptions_of() { q host-2 IIR SubscriberGID="$1" --count; }
lids() { SIM_HOST=host-2 sim_client timeout 10 ibnetdiscover 2>/dev/null | grep -oE '(lid|base lid) [0-9]+' | sort; }

app=ff15:1234::42

# --- 1. Registrations, SIGTERM, restart with the cache.
start_sm first
gid2=$(gid_of host-2)
gid3=$(gid_of host-3)
[[ $gid2 == fe80::* && $gid3 == fe80::* ]] || fail "no port GIDs from ibaddr: '$gid2' '$gid3'"
q host-2 SR --set ServiceID=0x5a00 ServiceGID="$gid2" ServiceName=ibsm-restart > /dev/null ||
  fail "service registration failed"
# InformInfo (IBA 13.4.8.3): GID 0, LIDRangeBegin 0xFFFF, LIDRangeEnd 0, IsGeneric 1,
# Subscribe 1, Type 0xFFFF, TrapNumber 64, QPN 1, RespTimeValue 18, ProducerType 0xFFFFFF.
inform_info=$(printf '%032d' 0)ffff000000000101ffff00400000011200ffffff
SIM_HOST=host-3 client timeout 20 "$IBSM_TOOLS_DIR/sa_send_raw" method=0x02 attr=0x0003 data="$inform_info" \
  > subscribe.out 2> subscribe.err || true
grep -q "^answer method 0x81 status 0x0000 attr 0x0003" subscribe.out ||
  fail "InformInfo Set: $(cat subscribe.out subscribe.err)"
q host-2 MCMR --set MGID=$app PortGID="$gid2" JoinState=1 Q_Key=0x22 P_Key=0xffff SL=0 FlowLabel=0 TClass=0 \
  --json > create.json || fail "create of $app failed"
mlid=$(python3 -c 'import json,sys; print("0x%04X" % json.load(open(sys.argv[1]))[0]["MLID"])' create.json)
[[ $(subscriptions_of "$gid3") -eq 1 ]] || fail "the subscription is not listed before the restart"
# Last before the stop, so that the stop's save holds it with most of its 3 s left.
q host-2 SR --set ServiceID=0x5a03 ServiceGID="$gid2" ServiceName=ibsm-short ServiceLease=3 > /dev/null ||
  fail "short-lease service registration failed"
registered=$(date +%s.%N)
sm_daemon_stop
[[ $(lft_sets first.count) -gt 0 ]] || fail "umad_count saw no LFT block Set on the fresh fabric: $(cat first.count)"
grep -q "^service " $registrations && grep -q "^subscription " $registrations && grep -q "^mcmember " $registrations ||
  fail "the stop saved no registrations: $(cat $registrations 2>/dev/null)"
# The 3 s lease ends while the SM is down. (On a machine so loaded that it
# ran out before the stop, the save has no such service: the restore's drop
# is then not shown, and said.)
short_saved=$(grep -c "^service 0000000000005a03" $registrations || true)
sleep "$(date +%s.%N | awk -v t="$registered" '{d = t + 3.2 - $1; print (d > 0 ? d : 0)}')"

start_sm second
grep -q "restoring 1 services, 1 subscriptions and 1 multicast members from the cache ($short_saved services whose lease ran out while down dropped)" second.log ||
  fail "no restore line: $(grep -i 'restor\|registrations' second.log)"
[[ $short_saved -eq 1 ]] || echo "the 3 s service ran out before the stop: its drop at the restore is not shown"
services > services.second
grep -qE "ServiceID\.+0x0000000000005a00" services.second && grep -qE "ServiceName\.+ibsm-restart" services.second ||
  fail "saquery -S after the restart: $(head -12 services.second)"
! grep -qE "ServiceID\.+0x0000000000005a03" services.second || fail "the 3 s service outlived its lease"
groups > groups.second
grep -A1 "MGID\.*ff15:1234::42\$" groups.second | grep -q "Mlid\.*$mlid" ||
  fail "saquery -g lacks $app at MLID $mlid after the restart: $(cat groups.second)"
[[ $(subscriptions_of "$gid3") -eq 1 ]] || fail "the subscription of host-3 did not survive the restart"
lids > lids.before
sm_daemon_stop
[[ -s second.count ]] || fail "umad_count wrote nothing for the restart"
[[ $(lft_sets second.count) -eq 0 ]] || fail "the restart with the cache set $(lft_sets second.count) LFT blocks"
echo "restart with the cache: service, subscription and group $app ($mlid) kept, 3 s lease dropped, 0 LFT blocks set"

# --- 2. No cache at all.
rm -rf cache
start_sm third
lids > lids.third
diff -u lids.before lids.third > lids.diff || fail "the restart without a cache changed LIDs: $(head lids.diff)"
services > services.third
! grep -qE "ServiceID\.+0x0000000000005a00" services.third || fail "a service came back without the cache"
groups > groups.third
! grep -q "MGID\.*ff15:1234::42\$" groups.third || fail "the group came back without the cache"
[[ $(subscriptions_of "$gid3") -eq 0 ]] || fail "a subscription came back without the cache"
sm_daemon_stop
[[ $(lft_sets third.count) -eq 0 ]] || fail "the restart without a cache set $(lft_sets third.count) LFT blocks"
echo "restart without a cache: same LIDs, 0 LFT blocks set, registrations gone (none kept)"

# --- 3. kill -9 after a save.
start_sm fourth
q host-2 SR --set ServiceID=0x5a01 ServiceGID="$gid2" ServiceName=ibsm-killed > /dev/null || fail "registration failed"
wait_for 20 "the registration saved" grep -q "^service 0000000000005a01" $registrations
killed_pid=$DAEMON_PID
kill -KILL "$DAEMON_PID"
wait "$DAEMON_PID" 2>/dev/null || true
DAEMON_PID=""
# A client killed by a signal keeps its ibsim slot at host-0: let ibsim drop it.
ibsim_cmd "Attached"
dead=$(grep -oE "Client [0-9]+: pid $killed_pid " sim.out | tail -1 | awk '{print $2}' | tr -d :)
[[ -n $dead ]] && ibsim_cmd "X $dead"
start_sm fifth
grep -q "restoring 1 services, 0 subscriptions and 0 multicast members from the cache" fifth.log ||
  fail "no restore after kill -9: $(grep -i 'restor\|registrations' fifth.log)"
q host-2 SR ServiceID=0x5a01 --count > killed.count || fail "SR query after kill -9 failed"
[[ $(cat killed.count) -eq 1 ]] || fail "the service saved before kill -9 is not served after the restart"
sm_daemon_stop
echo "kill -9 after a save: the restart serves what was saved"
echo "restart: pass"
