#!/usr/bin/env bash
# SLs and SL2VL tables end to end: `ibsm run -R torus-2QoS` on a ring of five
# switches under ibsim. torus-2QoS keeps a path's SL for the whole way and
# lets each switch's SL2VL table (by input and output port) choose the VL of
# each hop, so a per-VL check must read those tables (IBA 7.6.6):
#  - the SA's path SLs (`saquery -p`) equal what `ibsm route --sl` computes
#    offline, and the tables read back with `smpquery sl2vl` equal what
#    `ibsm route --sl2vl` writes;
#  - the judge that shares no code with ibsm (vl_cdg_judge.py), from those
#    SLs, the SL2VL tables and the LFTs read back (dump_fts), finds the
#    dependencies acyclic, as `ibsm check --sl --sl2vl` does offline on the
#    same tables, on the same VLs;
#  - with every SL2VL entry forced to VL 0, both find the credit loop.
# Then torus-2QoS's promise that a failed cable changes no path's SL, on the
# same fabric and daemon: the dateline cable (sw-4 to sw-0) is unlinked on the
# ibsim console, and after the daemon's resweep
#  - its log shows torus-2QoS routing afresh on the torus it found before
#    (a 5 torus, not the 5 line the cables alone now show);
#  - the SA's path SLs are exactly those from before; the LFTs changed in
#    exactly the entries that sent packets over the cable, each now out of
#    the switch's other ring port (the long way);
#  - the SL2VL tables read back again change only on the two dead ports,
#    and the judge and `ibsm check --sl --sl2vl`, on the fabric read back
#    (ibnetdiscover lacks the cable) with the SA's SLs and the tables read
#    back, find every CA pair delivered and the dependencies acyclic on the
#    same VLs as before;
# and once the cable is linked again the SLs are still the same and the
# LFTs and SL2VL tables are the pristine ones.
source "$(dirname "$0")/lib.sh"
here=$(cd "$(dirname "$0")" && pwd)
e2e_setup "$1"

fabric_start --topo torus --dims 5 --hosts 1
sm_daemon_start host-0 -R torus-2QoS,no_fallback
grep -q "routing engine torus-2QoS computed the tables" daemon.log ||
  fail "torus-2QoS did not route: $(grep -i routing daemon.log | tail -3)"

# The fabric and the tables as the diag tools read them back.
read_back_fabric
(( ${#ca_lids[@]} == 5 )) || fail "expected 5 CA lids, found ${#ca_lids[@]}: ${ca_lids[*]}"

# Every CA pair's PathRecord SL from the SA, as SLID DLID SL lines (only SLs off 0).
sa_path_sls sa.sls
[[ -s sa.sls ]] || fail "every path is on sl 0: no path crosses the dateline"

# Every switch's SL2VL tables, one `smpquery sl2vl LID OUTPORT` per output
# port (each prints the rows of every input port), read back from the switches
# (those fabric.ibnetdiscover lists) into FILE.
read_sl2vl() {
  local file=$1 lid ports out
  : > "$file"
  while read -r lid ports; do
    for ((out = 1; out <= ports; out++)); do
      sim_client timeout 10 smpquery sl2vl "$lid" "$out" >> "$file" 2>/dev/null || fail "smpquery sl2vl $lid $out failed"
    done
  done < <(awk '/^Switch/ {ports = $2; if (match($0, /lid [0-9]+/)) print substr($0, RSTART + 4, RLENGTH - 4), ports}' fabric.ibnetdiscover)
  grep -q '^ports: in' "$file" || fail "smpquery sl2vl printed no rows: $(head -3 "$file")"
}
read_sl2vl fabric.sl2vl

# The same fabric routed offline, the SM at host-0 as in the daemon: the same
# SLs, and the same SL2VL tables as the switches hold.
"$IBSM" route --topology "$NETFILE" -R torus-2QoS,no_fallback --sm-node host-0 --lfts offline.lfts --sl offline.sls \
  --sl2vl offline.sl2vl 2> route.err || fail "ibsm route failed: $(cat route.err)"
ca_pattern="^($(IFS='|'; echo "${ca_lids[*]}")) ($(IFS='|'; echo "${ca_lids[*]}")) "
grep -E "$ca_pattern" offline.sls | sort > offline-ca.sls
sort sa.sls > sa-sorted.sls
diff sa-sorted.sls offline-ca.sls > sls.diff || fail "the SA's SLs differ from ibsm route's: $(head -5 sls.diff)"
tables=0
while read -r guid in out vls; do
  lid=$(awk -v g="$guid" '/^Switch/ && index($0, "S-" substr(g, 3)) && match($0, /lid [0-9]+/) {print substr($0, RSTART + 4, RLENGTH - 4)}' fabric.ibnetdiscover)
  [[ -n $lid ]] || continue  # a CA port's own table: smpquery reads switches here
  row=$(awk -v l="$lid" -v i="$in" -v o="$out" '
    /^# SL2VL table: Lid/ {at = $NF}
    at == l && $0 ~ "^ports: in +" i ", out +" o ":" {sub(/^[^|]*/, ""); gsub(/[| ]+/, " "); print; exit}' fabric.sl2vl)
  [[ "$(echo $row)" == "$vls" ]] || fail "switch $guid in $in out $out: read back '$row', ibsm route wrote '$vls'"
  tables=$((tables + 1))
done < <(grep -v '^#' offline.sl2vl)
(( tables > 0 )) || fail "ibsm route --sl2vl wrote no switch table: $(head -3 offline.sl2vl)"

# The independent judge and ibsm check agree: acyclic, on the same VLs.
python3 "$here/vl_cdg_judge.py" fabric.ibnetdiscover fabric.lfts sa.sls fabric.sl2vl > judge.out ||
  fail "the judge: $(cat judge.out)"
judge_vls=$(grep -oE 'vls [0-9,]+; acyclic$' judge.out) || fail "the judge: $(cat judge.out)"
"$IBSM" check --topology fabric.ibnetdiscover --lfts fabric.lfts --engine torus-2QoS --sl offline.sls \
  --sl2vl offline.sl2vl > check.out 2>&1 || fail "ibsm check --sl --sl2vl: $(tail -3 check.out)"
check_vls=$(tail -1 check.out | grep -oE 'cdg acyclic on vls [0-9,]+$') || fail "ibsm check --sl --sl2vl: $(tail -1 check.out)"
[[ ${check_vls#cdg acyclic on } == "${judge_vls%; acyclic}" ]] || fail "ibsm check: $check_vls; the judge: $judge_vls"

# Every SL2VL entry on VL 0: both find the credit loop the ring closes.
sed -E '/^ports: in/ s/\|[ 0-9]{2}/| 0/g' fabric.sl2vl > zero.sl2vl
! python3 "$here/vl_cdg_judge.py" fabric.ibnetdiscover fabric.lfts sa.sls zero.sl2vl > judge-zero.out ||
  fail "the judge finds no cycle with every table on vl 0: $(cat judge-zero.out)"
grep -q "cycle on vl 0:" judge-zero.out || fail "the judge (vl 0): $(cat judge-zero.out)"
awk '/^#/ {print; next} {printf "%s %s %s", $1, $2, $3; for (i = 0; i < 16; i++) printf " 0"; print ""}' \
  offline.sl2vl > zero-offline.sl2vl
! "$IBSM" check --topology fabric.ibnetdiscover --lfts fabric.lfts --engine torus-2QoS --sl offline.sls \
  --sl2vl zero-offline.sl2vl > check-zero.out 2>&1 || fail "ibsm check (vl 0) passed: $(tail -1 check-zero.out)"
grep -q "cdg cycle on vl 0" check-zero.out || fail "ibsm check (vl 0): $(tail -1 check-zero.out)"
kill -0 "$DAEMON_PID" 2>/dev/null || fail "the daemon died: $(tail -5 daemon.log)"

echo "torus-2QoS on a ring of 5: $(wc -l < sa.sls) of 20 CA paths off sl 0 (SA = ibsm route);" \
  "$tables switch SL2VL tables read back = ibsm route's; judge and ibsm check: ${check_vls#cdg }" \
  "(every table on vl 0: a cycle)"

# --- The dateline cable fails: no path's SL changes -------------------------
# "GUID LID PORT" lines of a dump_fts file, sorted.
lft_entries() {
  awk '/^Unicast lids/ && match($0, /guid 0x[0-9a-f]+/) {g = substr($0, RSTART + 5, RLENGTH - 5)}
       /^0x[0-9a-f]+ [0-9]+ :/ {print g, $1, $2 + 0}' "$1" | sort
}
# smpquery's SL2VL rows ($1) in the format `ibsm check --sl2vl` reads
# (NODEGUID INPORT OUTPORT VLs), switch LIDs to GUIDs by fabric.ibnetdiscover.
sl2vl_for_check() {
  python3 - "$1" fabric.ibnetdiscover > "$2" <<'PY'
import re, sys
guid_of = {}
for line in open(sys.argv[2]):
    m = re.match(r'^Switch\s.*?"S-([0-9a-f]+)".*\blid (\d+)', line)
    if m: guid_of[m.group(2)] = '0x' + m.group(1)
owner = None
for line in open(sys.argv[1]):
    m = re.match(r'^# SL2VL table: Lid (\d+)', line)
    if m: owner = guid_of[m.group(1)]; continue
    m = re.match(r'^ports: in\s+(\d+), out\s+(\d+):(.*)$', line)
    if m: print(owner, m.group(1), m.group(2), *re.findall(r'\d+', m.group(3)))
PY
}
ups() { grep -c "SUBNET UP" daemon.log || true; }
more_ups_than() { (( $(ups) > $1 )); }
# The log quiet for a second: the sweeps the traps of both cable ends asked
# for have run.
log_quiet() {
  local size
  size=$(stat -c %s daemon.log)
  sleep 1
  [[ $(stat -c %s daemon.log) == "$size" ]]
}
# The routing lines of the sweeps since log line $1.
routing_since() { tail -n +"$(( $1 + 1 ))" daemon.log | grep -E "routing: (torus-2QoS|routing engine|routing check|.*tables (kept|mended))"; }
# A resweep after a cable change: SUBNET UP again, then quiet; torus-2QoS
# routed afresh on the torus it knew, and its check passed.
resweep_after() {
  local what=$1 ups0=$2 line0=$3
  wait_for 20 "SUBNET UP after $what" more_ups_than "$ups0"
  wait_for 20 "the sweeps after $what to settle" log_quiet
  routing_since "$line0" > routing.log || true
  grep -q "routing engine torus-2QoS computed the tables" routing.log ||
    fail "after $what the daemon did not route with torus-2QoS afresh: $(cat routing.log)"
  grep -q "torus-2QoS: a 5 torus of 5 switches" routing.log ||
    fail "after $what torus-2QoS did not route on the 5 torus it found before: $(grep 'torus-2QoS:' routing.log)"
  grep -qE "routing check \(torus-2QoS\): 20/20 pairs delivered.*cdg acyclic on vls 0,1$" routing.log ||
    fail "after $what the daemon's check: $(grep 'routing check' routing.log)"
}

mkdir before
cp fabric.ibnetdiscover fabric.lfts fabric.sl2vl sa-sorted.sls before/
cut_a=0x0002c90300000004 cut_a_port=2  # sw-4's x+ port ...
cut_b=0x0002c90300000000 cut_b_port=3  # ... to sw-0's x- port: the x dateline
ups0=$(ups) line0=$(wc -l < daemon.log)
ibsim_cmd 'Unlink "sw-4"[2]'
resweep_after "the unlink" "$ups0" "$line0"
cp routing.log routing-unlink.log

read_back_fabric
(( ${#ca_lids[@]} == 5 )) || fail "after the unlink: expected 5 CA lids, found ${#ca_lids[@]}"
ring_ends() { grep -cE '^\[[0-9]+\]\s+"S-' "$1"; }  # switch-to-switch cable ends
(( $(ring_ends before/fabric.ibnetdiscover) == 10 && $(ring_ends fabric.ibnetdiscover) == 8 )) ||
  fail "ibnetdiscover shows $(ring_ends fabric.ibnetdiscover) switch cable ends after the unlink (before: $(ring_ends before/fabric.ibnetdiscover))"

# The SLs: exactly the ones from before.
sa_path_sls sa-unlinked.sls
sort sa-unlinked.sls > sa-unlinked-sorted.sls
diff before/sa-sorted.sls sa-unlinked-sorted.sls > sls-unlinked.diff ||
  fail "the unlink changed path SLs (< before, > after): $(head -8 sls-unlinked.diff)"

# The LFTs: an entry changed exactly where the route from that switch to that
# LID crossed the cable before (followed through the tables and cables of
# before), each to the switch's other ring port: the long way. "crossed N
# changed N long-way N" when it holds.
lft_entries before/fabric.lfts > lft-before.txt
lft_entries fabric.lfts > lft-unlinked.txt
(( $(wc -l < lft-before.txt) >= 50 )) || fail "dump_fts read $(wc -l < lft-before.txt) entries (5 switches x 10 LIDs)"
python3 - before/fabric.ibnetdiscover lft-before.txt lft-unlinked.txt "$cut_a:$cut_a_port" "$cut_b:$cut_b_port" \
  > lft-unlinked.verdict <<'PY' || fail "the LFTs after the unlink: $(cat lft-unlinked.verdict)"
import re, sys
peer, guid = {}, None  # (switch guid, port) -> remote switch guid
for line in open(sys.argv[1]):
    m = re.match(r'^switchguid=0x([0-9a-f]+)', line)
    if m: guid = int(m.group(1), 16); continue
    m = re.match(r'^\[(\d+)\]\s+"S-([0-9a-f]+)"\[\d+\]', line)
    if m and guid is not None: peer[(guid, int(m.group(1)))] = int(m.group(2), 16)
def entries(path):
    return {(int(g, 16), int(l, 16)): int(p) for g, l, p in (line.split() for line in open(path))}
before, after = entries(sys.argv[2]), entries(sys.argv[3])
cut = {(int(g, 16), int(p)) for g, p in (a.split(':') for a in sys.argv[4:6])}
crossed = set()
for (sw, lid) in before:
    at = sw
    for _ in range(len(peer) + 1):
        port = before.get((at, lid))
        if (at, port) in cut: crossed.add((sw, lid)); break
        if (at, port) not in peer: break  # delivered (or port 0)
        at = peer[(at, port)]
changed = {k for k in before if after.get(k) != before[k]}
long_way = {k for k in crossed if after.get(k) == 5 - before[k]}  # ring ports 2 and 3
print('crossed %d changed %d long-way %d' % (len(crossed), len(changed), len(long_way)))
wrong = sorted(changed ^ crossed) + sorted(crossed - long_way)
for sw, lid in wrong[:5]: print('switch %#018x lid %d: %s -> %s' % (sw, lid, before[(sw, lid)], after.get((sw, lid))))
sys.exit(0 if crossed and not wrong else 1)
PY
read -r _ crossed _ changed _ long_way < lft-unlinked.verdict

# The SL2VL tables: changed only on the rows out of the two dead ports.
read_sl2vl unlinked.sl2vl
sl2vl_for_check before/fabric.sl2vl sl2vl-before.txt
sl2vl_for_check unlinked.sl2vl sl2vl-unlinked.txt
sort sl2vl-before.txt > a.tmp; sort sl2vl-unlinked.txt > b.tmp
(( $(wc -l < a.tmp) == $(wc -l < b.tmp) && $(wc -l < a.tmp) > 0 )) || fail "SL2VL rows read back: $(wc -l < a.tmp) before, $(wc -l < b.tmp) after"
sl2vl_changed=$(comm -13 a.tmp b.tmp | awk -v a=$cut_a -v pa=$cut_a_port -v b=$cut_b -v pb=$cut_b_port \
  '!(($1 == a && $3 == pa) || ($1 == b && $3 == pb))' | wc -l)
(( sl2vl_changed == 0 )) || fail "SL2VL rows out of live ports changed: $(comm -13 a.tmp b.tmp | head -3)"

# The judge and ibsm check on what the switches hold now: every pair
# delivered, acyclic, on the VLs of before.
python3 "$here/vl_cdg_judge.py" fabric.ibnetdiscover fabric.lfts sa-unlinked.sls unlinked.sl2vl > judge-unlinked.out ||
  fail "the judge after the unlink: $(cat judge-unlinked.out)"
grep -qE "^judge: pairs 20 delivered 20; ${judge_vls}" judge-unlinked.out ||
  fail "the judge after the unlink: $(cat judge-unlinked.out) (before: $judge_vls)"
"$IBSM" check --topology fabric.ibnetdiscover --lfts fabric.lfts --engine torus-2QoS --sl sa-unlinked.sls \
  --sl2vl sl2vl-unlinked.txt > check-unlinked.out 2>&1 || fail "ibsm check --sl --sl2vl after the unlink: $(tail -3 check-unlinked.out)"
tail -1 check-unlinked.out | grep -qE "20/20 pairs delivered.*${check_vls}$" ||
  fail "ibsm check after the unlink: $(tail -1 check-unlinked.out) (before: $check_vls)"

# --- The cable back: the same SLs, the pristine tables ----------------------
ups0=$(ups) line0=$(wc -l < daemon.log)
ibsim_cmd 'ReLink "sw-4"[2]'
resweep_after "the relink" "$ups0" "$line0"
read_back_fabric
(( $(ring_ends fabric.ibnetdiscover) == 10 )) || fail "ibnetdiscover shows $(ring_ends fabric.ibnetdiscover) switch cable ends after the relink"
sa_path_sls sa-relinked.sls
sort sa-relinked.sls > sa-relinked-sorted.sls
diff before/sa-sorted.sls sa-relinked-sorted.sls > sls-relinked.diff ||
  fail "the relink changed path SLs (< before, > after): $(head -8 sls-relinked.diff)"
lft_entries fabric.lfts > lft-relinked.txt
diff lft-before.txt lft-relinked.txt > lft-relinked.diff || fail "the LFTs after the relink are not the pristine ones: $(head -6 lft-relinked.diff)"
read_sl2vl relinked.sl2vl
sl2vl_for_check relinked.sl2vl sl2vl-relinked.txt
diff <(sort sl2vl-before.txt) <(sort sl2vl-relinked.txt) > sl2vl-relinked.diff ||
  fail "the SL2VL tables after the relink are not the pristine ones: $(head -6 sl2vl-relinked.diff)"
kill -0 "$DAEMON_PID" 2>/dev/null || fail "the daemon died: $(tail -5 daemon.log)"

echo "sw-4 to sw-0 (the dateline) unlinked: torus-2QoS routed the 5 torus it knew;" \
  "the SA's $(wc -l < sa-unlinked.sls) SLs off 0 = before's $(wc -l < sa.sls);" \
  "$changed LFT entries changed, the $crossed whose route crossed the cable, now the long way;" \
  "$(comm -13 a.tmp b.tmp | wc -l) SL2VL rows changed, all out of the dead ports;" \
  "$(cat judge-unlinked.out); ibsm check: $(tail -1 check-unlinked.out | grep -oE 'cdg .*$')." \
  "Relinked: the same SLs, the pristine LFTs and SL2VL tables"
