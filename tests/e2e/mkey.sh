#!/usr/bin/env bash
# M_Key on ibsim. The daemon, configured with m_key, protection level 2 and
# a 60 s lease, writes all three into the PortInfo Set of every end port
# and switch port 0: read on the wire (umad_count's dump of every SMP the
# daemon sends), because ibsim keeps none of them. It keeps working: a
# heavy resweep comes up again without setting any PortInfo again, every
# pair is routed, the SA answers; guid2mkey in the cache is written, mode
# 600, and lists what the ports hold.
#
# What ibsim 0.10 does with M_Key (measured here and printed): it answers
# PortInfo Sets but keeps no M_Key field; a Get reads M_Key 0, ProtectBits
# 0, MkeyLeasePeriod 4089, whoever asks with whatever key. It neither
# enforces nor stores M_Key (IBA 14.2.4 is not modelled), so the ports hold
# no key and the daemon, which talks to each port with the key it holds,
# sends 0 once the Sets are answered. SimFabric enforces the keys; its unit
# tests (tests/mad/sim/sim_m_key.tests.cpp, tests/sm/sweep/m_key_sweep,
# tests/sm/manager/m_key) show the refusals, trap 256 and the lease.
source "$(dirname "$0")/lib.sh"
e2e_setup "$1"

KEY=00000000c0ffee01
fabric_start --topo leaf-spine --leaves 2 --spines 1 --hosts 2  # 3 switches, 4 hosts: 7 lids
cat > mkey.conf <<CONF
m_key 0x$KEY
m_key_protection_level 2
m_key_lease_period 60
sweep_interval 0
CONF
export UMAD_DUMP_FILE=$PWD/smps.hex
E2E_PRELOAD=${UMAD_COUNT:?the path of umad_count.so} sm_daemon_start host-0 -F mkey.conf
JUDGE_HOST=host-1

# PortInfo Sets on the wire: (M_Key in the data, ProtectBits, LeasePeriod)
# of each, and how many Sets there are at all.
portinfo_sets() {
  python3 - "$1" "$2" <<'PY'
import sys
lines = open(sys.argv[1]).read().split()[int(sys.argv[2]):]
sets = [bytes.fromhex(l) for l in lines]
sets = [m for m in sets if m[1] in (0x01, 0x81) and m[3] == 0x02 and m[16:18] == b"\x00\x15"]
for m in sets:
    d = m[64:128]  # SMP data: PortInfo (IBA 14.2.5.6)
    print(d[0:8].hex(), d[34] >> 6, int.from_bytes(d[26:28], "big"))
PY
}
portinfo_sets smps.hex 0 > sets.first
keyed=$(grep -c "^$KEY 2 60\$" sets.first || true)
[[ $keyed -ge 7 ]] || fail "$keyed PortInfo Sets carry m_key $KEY, level 2, lease 60 (want one per lid, 7): $(sort sets.first | uniq -c)"
others=$(grep -v "^$KEY 2 60\$" sets.first | grep -vc "^0000000000000000 0 " || true)
[[ $others -eq 0 ]] || fail "PortInfo Sets with other key fields: $(grep -v "^$KEY 2 60\$" sets.first | sort | uniq -c)"
echo "$keyed PortInfo Sets carry m_key 0x$KEY, protection level 2, lease 60 s (the rest, to switch external ports, none)"

# What ibsim kept of them (measured, printed; ibsim is not the judge here).
info=$(SIM_HOST=$JUDGE_HOST client timeout 10 smpquery -K -D portinfo 0 2>&1) || fail "smpquery: $info"
echo "ibsim reads back: $(grep -E '^(Mkey|ProtectBits|MkeyLeasePeriod):' <<<"$info" | tr -s '.' ' ' | tr '\n' ' ')"
wait_for 10 "guid2mkey in the cache" test -e cache/guid2mkey
[[ $(stat -c %a cache/guid2mkey) == 600 ]] || fail "guid2mkey mode $(stat -c %a cache/guid2mkey)"
held=$(grep -c . cache/guid2mkey || true)
echo "guid2mkey lists $held ports with a key (the ports say they hold none)"

# It keeps working: a heavy resweep comes up again and sets no PortInfo
# again (the ports keep what they keep, and it remembers what they said).
before=$(wc -l < smps.hex)
ups=$(grep -c "SUBNET UP" daemon.log)
"$IBSM" ctl --timeout 20 --socket "$E2E_DIR/ctl.sock" resweep --heavy > /dev/null || fail "ctl resweep --heavy"
wait_for 20 "a second SUBNET UP" bash -c "[[ \$(grep -c 'SUBNET UP' daemon.log) -gt $ups ]]"
portinfo_sets smps.hex "$before" > sets.again
[[ ! -s sets.again ]] || fail "the resweep set PortInfo again: $(sort sets.again | uniq -c)"
grep -q "m_key refused" daemon.log && fail "m_key refused: $(grep 'm_key refused' daemon.log | head -3)"
check_routed keyed || fail "not every pair routed: $(tail -3 keyed.check)"
count=$(SIM_HOST=$JUDGE_HOST client timeout 10 "$IBSM" query NR --count) || fail "ibsm query NR failed"
[[ $count -eq 7 ]] || fail "expected 7 node records, got $count"
echo "resweep: up, no PortInfo set again, every pair routed, the SA answers"
