#!/usr/bin/env bash
# Partitions on ibsim, judged by the diag tools: `ibsm run -P partitions.conf`
# on host-0 of a leaf/spine fabric with four hosts.
#  - smpquery pkeys: each host holds its partitions' keys, full or limited as
#    the file says, beside the Default partition (OpenSM's: limited with a
#    file, the SM's port full); the switch port facing a host holds its keys;
#  - smpquery portinfo: that switch port enforces partitions both ways;
#  - PathRecords (saquery, ibsm query) between hosts that share a partition
#    with a full member carry its key; between hosts that do not, none;
#  - a partitions file that is bad or named and missing: `ibsm run` exits 2
#    naming file:line;
#  - SIGHUP re-reads the file: a bad one keeps the tables, a good one is
#    applied.
source "$(dirname "$0")/lib.sh"
e2e_setup "$1"

fabric_start --topo leaf-spine --leaves 2 --spines 1 --hosts 2
for h in host-0 host-1 host-2 host-3; do
  guid=$(port_guid "$h")
  [[ -n $guid ]] || fail "no port guid for $h"
  declare "guid_${h#host-}=$guid"
done

cat > partitions.conf <<EOF
# Red: host-1 and host-2 full. Blue: host-3 full, host-2 limited.
Red=0x0010 : $guid_1=full, $guid_2=full ;
Blue=0x0020 : $guid_3=full, $guid_2 ;
EOF

# --- A bad file, a missing file named with -P: exit 2 naming file:line.
printf 'Red=0x0010 : ALL=full ;\nGreen=0x0030, mtu=99 : ALL ;\n' > bad.conf
rc=0
SIM_HOST=host-0 client "$IBSM" run -o -P bad.conf --cache-dir cache > bad.out 2> bad.err || rc=$?
[[ $rc -eq 2 ]] || fail "ibsm run -P bad.conf exited $rc, expected 2: $(cat bad.err)"
grep -q "bad.conf:2:" bad.err || fail "the error does not name bad.conf:2: $(cat bad.err)"
rc=0
SIM_HOST=host-0 client "$IBSM" run -o -P missing.conf --cache-dir cache > missing.out 2> missing.err || rc=$?
[[ $rc -eq 2 ]] || fail "ibsm run -P missing.conf exited $rc, expected 2"
grep -q "missing.conf" missing.err || fail "the error does not name missing.conf: $(cat missing.err)"

sm_daemon_start host-0 -P partitions.conf

# pkeys HOST: the P_Keys the host's port holds, one per line, in index order.
pkeys() {
  SIM_HOST=$1 sim_client timeout 10 smpquery -D pkeys 0 > "pkeys.$1" || fail "smpquery pkeys at $1"
  awk -F: '/^ *[0-9]+:/ {print $2}' "pkeys.$1" | tr ' ' '\n' | grep -v '^0x0000$' | grep . || true
}
expect_pkeys() {  # expect_pkeys HOST KEY...: the host's table holds exactly these keys, in this order
  local host=$1; shift
  local got
  got=$(pkeys "$host" | tr '\n' ' ')
  [[ "$got" == "$* " ]] || fail "$host holds P_Keys '$got', expected '$* '"
}
expect_pkeys host-0 0xffff
expect_pkeys host-1 0x7fff 0x8010
expect_pkeys host-2 0x7fff 0x8010 0x0020
expect_pkeys host-3 0x7fff 0x8020
echo "each host holds its partitions"

# The switch port facing host-2: its keys, and enforcement both ways.
# host-2's switch and port, from ibnetdiscover.
SIM_HOST=host-1 sim_client timeout 20 ibnetdiscover > ibnetdiscover.out || fail "ibnetdiscover"
read -r leaf_guid leaf_port < <(python3 - ibnetdiscover.out <<'EOF'
import re, sys
guid = None
for line in open(sys.argv[1]):
    if line.startswith("switchguid="):
        guid = line.split("=")[1].split("(")[0]
    m = re.match(r'^\[(\d+)\]\s+"H-[0-9a-f]+"\[1\].*# "host-2', line)
    if m and guid:
        print(guid, m[1])
EOF
)
[[ -n ${leaf_port:-} ]] || fail "host-2's switch port not found in ibnetdiscover"
lid=$(awk -v g="$leaf_guid" '$0 ~ "switchguid="g {f=1} f && /base port 0 lid/ {match($0, /lid [0-9]+/); print substr($0, RSTART+4, RLENGTH-4); exit}' ibnetdiscover.out)
[[ -n $lid ]] || fail "no lid for switch $leaf_guid"
SIM_HOST=host-1 sim_client timeout 10 smpquery pkeys "$lid" "$leaf_port" > switch_pkeys.out || fail "smpquery pkeys $lid $leaf_port"
got=$(awk -F: '/^ *[0-9]+:/ {print $2}' switch_pkeys.out | tr ' ' '\n' | grep -v '^0x0000$' | grep . | tr '\n' ' ')
[[ "$got" == "0x7fff 0x8010 0x0020 " ]] || fail "switch port $leaf_port facing host-2 holds '$got'"
# ibsim (0.10) does not keep PortInfo:PartitionEnforcementInbound/Outbound:
# it answers a Set with both clear, and smpquery portinfo shows them clear.
# So the judge is what the SM asked of that port and what the port answered
# (its port settings cache: the last field, 3 = both ways), and that it does
# not ask again on every sweep (SimFabric, which keeps them, is judged by
# the unit tests).
SIM_HOST=host-1 sim_client timeout 10 smpquery portinfo "$lid" "$leaf_port" > switch_portinfo.out || fail "smpquery portinfo"
grep -qE '^PartEnforceInb:' switch_portinfo.out || fail "smpquery portinfo shows no PartEnforceInb"
asked=$(awk -v g="$leaf_guid" -v p="$leaf_port" '$1 == g && $2 == p {print $3}' cache/ibsm-port-settings)
[[ ${asked##*,} == 3 ]] || fail "the SM did not ask switch $leaf_guid port $leaf_port to enforce both ways: '$asked'"
echo "the switch port facing host-2 holds its keys and was asked to enforce both ways"

# --- PathRecords, asked from host-2 (in both partitions).
lid_of() { port_lid "$1"; }
l1=$(lid_of host-1); l2=$(lid_of host-2); l3=$(lid_of host-3)
q() { SIM_HOST=host-2 sim_client timeout 20 "$IBSM" query --timeout 5000 "$@"; }
expect_path() {  # expect_path SLID DLID P_KEY: one path, carrying that P_Key
  q PR SLID="$1" DLID="$2" --json > "pr.$1.$2.json" || fail "PR $1 -> $2 failed"
  python3 - "pr.$1.$2.json" "$3" <<'EOF' || fail "PR $1 -> $2: $(cat "pr.$1.$2.json")"
import json, sys
recs = json.load(open(sys.argv[1]))
assert len(recs) == 1, recs
assert int(str(recs[0]["P_Key"]), 0) == int(sys.argv[2], 0), recs[0]
EOF
}
expect_path "$l1" "$l2" 0x8010
expect_path "$l2" "$l3" 0x0020
if q PR SLID="$l1" DLID="$l3" --get > pr13.out 2> pr13.err; then
  fail "a path between host-1 (Red) and host-3 (Blue): $(cat pr13.out)"
fi
grep -q "ERR_NO_RECORDS" pr13.err || fail "PR host-1 -> host-3: $(cat pr13.err)"
# saquery, asked from host-2 and from the SM's own node (a full member of
# the Default partition, so it shares one with every port). Its answer is
# padded with zero records (IBSIM.md): the records with a source LID count.
real_paths() { awk '/^[[:space:]]*slid\./ {n = split($1, a, "."); if (a[n] != "0") c++} END {print c + 0}' "$1"; }
SIM_HOST=host-0 sim_client timeout 20 saquery -p --src-to-dst "$l1:$l3" > sq13.out 2>&1 || true
[[ $(real_paths sq13.out) -eq 0 ]] || fail "saquery found a path host-1 -> host-3: $(cat sq13.out)"
SIM_HOST=host-2 sim_client timeout 20 saquery -p --src-to-dst "$l1:$l2" > sq12.out 2>&1 || fail "saquery host-1 -> host-2: $(cat sq12.out)"
[[ $(real_paths sq12.out) -eq 1 ]] || fail "saquery host-1 -> host-2: $(cat sq12.out)"
grep -qE "pkey\.+0x8010" sq12.out || fail "saquery host-1 -> host-2 has no P_Key 0x8010: $(cat sq12.out)"
echo "paths within a partition, none across"

# hup_and_sweep: SIGHUP the daemon, wait for the heavy sweep it forces.
hup_and_sweep() {
  local sweeps i
  sweeps=$(grep -c "SUBNET UP" daemon.log)
  kill -HUP "$DAEMON_PID"
  for i in $(seq 1 100); do
    [[ $(grep -c "SUBNET UP" daemon.log) -gt $sweeps ]] && return 0
    sleep 0.1
  done
  fail "no heavy sweep after SIGHUP"
}

# --- SIGHUP with a bad file: the tables stay. With a good one: applied.
printf 'Red=0x0010 : %s=full, %s=full ;\nBlue=0x0020, rate=99 : %s ;\n' "$guid_1" "$guid_3" "$guid_3" > partitions.conf
hup_and_sweep
grep -q "partitions kept: partitions.conf:2:" daemon.log || fail "SIGHUP with a bad file: $(grep -i partition daemon.log | tail -3)"
expect_pkeys host-2 0x7fff 0x8010 0x0020
expect_pkeys host-3 0x7fff 0x8020
echo "SIGHUP with a bad partitions file keeps the tables"

# host-3 joins Red as well: its Blue key keeps its index.
printf 'Red=0x0010 : %s=full, %s=full, %s=full ;\nBlue=0x0020 : %s=full, %s ;\n' \
  "$guid_1" "$guid_2" "$guid_3" "$guid_3" "$guid_2" > partitions.conf
hup_and_sweep
expect_pkeys host-3 0x7fff 0x8020 0x8010
echo "SIGHUP applies a changed partitions file"
