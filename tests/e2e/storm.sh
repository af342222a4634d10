#!/usr/bin/env bash
# The daemon on ibsim in storms, with a ServiceRecord registered and an
# InformInfo subscription (trap 128) live throughout:
#  1. 20 flaps of one switch-to-switch cable, written to the console at once
#     (flap_quarantine_threshold 0: this part judges coalescing, not the
#     quarantine): the traps are merged into a few sweeps, the repeated ones
#     counted and past OpenSM's limit of 10 neither swept for nor reported;
#  2. a whole switch unlinked, then relinked;
#  3. with flap_quarantine_threshold 3 (applied by SIGHUP), a host's cable
#     pulled three times: its switch port is quarantined (PortPhysicalState
#     Disabled, held down even when ibsim relinks it), reported by
#     `ibsm ctl status`, the subnet still up; `ibsm ctl release` lets it
#     train again.
# After each: every connected port Active (iblinkinfo), every pair routed
# (ibsm check on ibnetdiscover and dump_fts), the ServiceRecord and the
# subscription still there (ibsm query SR and IIR).
source "$(dirname "$0")/lib.sh"
e2e_setup "$1"

"$IBSM" topo leaf-spine --leaves 3 --spines 2 --hosts 2 -o fabric.net
ibsim_start "$PWD/fabric.net"
conf=$E2E_DIR/storm.conf
printf 'flap_quarantine_threshold 0\nsweep_interval 10\n' > "$conf"
sm_daemon_start host-0 -F "$conf"

q() { SIM_HOST=host-2 sim_client timeout 20 "$IBSM" query --timeout 5000 "$@"; }
ctl() { "$IBSM" ctl --socket "$E2E_DIR/ctl.sock" "$@"; }
counter() { ctl status --json | python3 -c 'import json, sys; print(json.load(sys.stdin)["counters"][sys.argv[1]])' "$1"; }
links_active() {  # links_active N: iblinkinfo shows N port ends Active/LinkUp
  SIM_HOST=host-1 client iblinkinfo -l > links.out 2>/dev/null || return 1
  [[ $(grep '==(' links.out | grep -c 'Active/  LinkUp') -eq $1 ]]
}
routed() {
  SIM_HOST=host-1 sim_client timeout 20 dump_fts > lfts.out 2>/dev/null &&
    SIM_HOST=host-1 sim_client timeout 20 ibnetdiscover > topo.out 2>/dev/null &&
    "$IBSM" check --topology topo.out --lfts lfts.out > check.out 2>&1
}
kept() {  # the ServiceRecord and the subscription survived
  [[ $(q SR ServiceID=0x5a00 --count) -eq 1 ]] || fail "$1: the ServiceRecord is gone"
  [[ $(q IIR --count) -ge 1 ]] || fail "$1: the subscription is gone"
}
judge() {  # judge WHAT ACTIVE_ENDS
  wait_for 20 "$1: $2 port ends Active" links_active "$2"
  wait_for 10 "$1: every pair routed" routed
  kept "$1"
  echo "$1: $2 port ends Active, $(head -1 check.out), service and subscription kept"
}
# Sweeps that configured the subnet: heavy, or incremental (a trap 128 from a
# switch of the subnet brings one).
configuring_sweeps() { echo $(( $(counter heavy_sweeps) + $(counter incremental_sweeps) )); }
more_sweeps_than() { [[ $(configuring_sweeps) -gt $1 ]]; }
all_ends=$(( (3 * 2 + 3 * 2) * 2 ))

# A service (infinite lease) and a subscriber to trap 128 that prints the
# Reports (sa_send_raw opens issm, which ibsim needs to hand it Reports).
gid=$(python3 -c 'import ipaddress, sys; print(ipaddress.IPv6Address(0xfe80 << 112 | int(sys.argv[1], 16)))' \
  "$(port_guid host-2)")
q SR --set ServiceID=0x5a00 ServiceGID="$gid" ServiceName=storm --json > sr.out || fail "SR Set: $(cat sr.out)"
# InformInfo (IBA 13.4.8.3): GID 0, LIDRangeBegin 0xFFFF, IsGeneric 1, Subscribe 1, Type 0xFFFF,
# TrapNumber 128, QPN 1, RespTimeValue 18, ProducerType 0xFFFFFF.
inform_info=$(printf '%032d' 0)ffff000000000101ffff00800000011200ffffff
SIM_HOST=host-3 client timeout 120 "$IBSM_TOOLS_DIR/sa_send_raw" --subscriber --wait 100000 \
  method=0x02 attr=0x0003 data="$inform_info" > reports.out 2> reports.err &
subscriber=$!
trap 'rc=$?; set +e; kill "$subscriber" 2>/dev/null; wait "$subscriber" 2>/dev/null; sm_daemon_stop; (exit $rc); e2e_cleanup' EXIT
wait_for 5 "the subscription" grep -q "^answer method 0x81 status 0x0000 attr 0x0003" reports.out
judge "before" "$all_ends"

# --- 1. 20 flaps of leaf-1 <-> spine-0 in one burst.
sweeps0=$(configuring_sweeps); traps0=$(counter traps); merged0=$(counter sweep_requests_coalesced)
for i in $(seq 1 20); do printf 'Unlink "leaf-1"[3]\nReLink "leaf-1"[3]\n'; done > console
sleep 1
judge "20 flaps" "$all_ends"
sweeps=$(( $(configuring_sweeps) - sweeps0 )); traps=$(( $(counter traps) - traps0 ))
merged=$(( $(counter sweep_requests_coalesced) - merged0 )); ignored=$(counter traps_ignored)
reports=$(grep -c "^report trap 128" reports.out || true)
echo "20 flaps: $traps traps, $sweeps sweeps (heavy or incremental), $merged sweep requests coalesced, $ignored ignored, $reports reported"
[[ $traps -ge 20 ]] || fail "only $traps traps reached the SM"
[[ $sweeps -ge 1 && $sweeps -le 5 ]] || fail "$sweeps sweeps for $traps traps"
[[ $merged -ge 1 ]] || fail "no sweep request was coalesced"
[[ $ignored -ge 1 ]] || fail "no repeated trap was ignored"
# Forwarded: those acted on, never the ignored. A Report is sent up to 4
# times (1 + max_report_retries) when its ReportResponse is lost.
[[ $reports -ge 1 && $reports -le $((4 * (traps - ignored))) ]] ||
  fail "$reports trap 128 reports for $traps traps, $ignored ignored"
grep -q "identical ones within 10 s of each other" daemon.log || fail "the repeats were not summed up in the log"

# --- 2. A whole switch unlinked, then relinked.
ibsim_cmd 'Unlink "spine-1"'
judge "spine-1 unlinked" $(( all_ends - 3 * 2 ))
ibsim_cmd 'ReLink "spine-1"'
judge "spine-1 relinked" "$all_ends"

# --- 3. Quarantine: host-5's cable (leaf-2 port 2) pulled three times.
printf 'flap_quarantine_threshold 3\nflap_quarantine_window_s 60\nflap_quarantine_hold_s 0\nsweep_interval 10\n' > "$conf"
kill -HUP "$DAEMON_PID"
wait_for 5 "the reload" grep -q "configuration reloaded" daemon.log
# settle: until no sweep has ended for 0.5 s, so the sweep a pull waits for
# is not one still running for the change before.
settle() {
  local a b
  b=$(configuring_sweeps)
  for _ in $(seq 1 20); do sleep 0.5; a=$(configuring_sweeps); [[ $a == "$b" ]] && return 0; b=$a; done
}
for i in 1 2 3; do
  settle
  sweeps0=$(configuring_sweeps)
  ibsim_cmd 'Unlink "leaf-2"[2]'
  wait_for 10 "the sweep after pull $i" more_sweeps_than "$sweeps0"
  [[ $i -lt 3 ]] || break
  ibsim_cmd 'ReLink "leaf-2"[2]'
  wait_for 10 "host-5 back after pull $i" links_active "$all_ends"
done
wait_for 10 "the quarantine" grep -q 'port 2 of 0x0002c90300000002 ("leaf-2") quarantined' daemon.log
grep 'quarantined: its link' daemon.log | tail -1
# ibsim relinks it; the SM holds it down again.
ibsim_cmd 'ReLink "leaf-2"[2]'
leaf2_port2() {  # leaf2_port2 PHYSSTATE: iblinkinfo shows leaf-2 port 2 in it
  SIM_HOST=host-1 client iblinkinfo -l > links.out 2>/dev/null || return 1
  grep -E "\"\\s*leaf-2\".* 2\\[  \\] ==\\(.*$1\\)" links.out > /dev/null
}
wait_for 10 "leaf-2 port 2 Disabled" leaf2_port2 Disabled
judge "quarantined" $(( all_ends - 2 ))
ctl status --json > status.json
python3 - status.json <<'EOF' || fail "ctl status: $(cat status.json)"
import json, sys
s = json.load(open(sys.argv[1]))
q = [p for p in s["problems"] if p["kind"] == "quarantined"]
assert len(q) == 1 and q[0]["node"] == "0x0002c90300000002" and q[0]["port"] == 2, q
assert s["subnet"]["up"], "the subnet is not up"
assert s["counters"]["ports_quarantined"] == 1, s["counters"]
EOF
ctl status | grep -E "^(Problem|Quarantined|Traps)"
ctl release 0x0002c90300000002 2>/dev/null && fail "release without a port number was taken"
ctl release leaf-2 2 2>/dev/null && fail "release of a name, not a GUID, was taken"
ctl release 0x0002c90300000002 2 || fail "ctl release failed"
wait_for 10 "the release" grep -q "released by the operator" daemon.log
ctl release 0x0002c90300000002 2 2> release_again.err && fail "a second release was taken"
grep -q "not quarantined" release_again.err || fail "second release: $(cat release_again.err)"
# PortPhysicalState Polling now. ibsim does not retrain a port set to
# Polling; a replug (Unlink, ReLink) brings it up, as the cable would.
wait_for 5 "leaf-2 port 2 Polling" leaf2_port2 Polling
ibsim_cmd 'Unlink "leaf-2"[2]'
ibsim_cmd 'ReLink "leaf-2"[2]'
judge "released" "$all_ends"
[[ $(ctl status --json | python3 -c 'import json, sys; print(len([p for p in json.load(sys.stdin)["problems"] if p["kind"] == "quarantined"]))') -eq 0 ]] ||
  fail "still reported as quarantined after the release"
echo "storm: coalesced, quarantined and released; the service and the subscription kept throughout"
