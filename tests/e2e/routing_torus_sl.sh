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
# port (each prints the rows of every input port), read back from the switches.
: > fabric.sl2vl
while read -r lid ports; do
  for ((out = 1; out <= ports; out++)); do
    sim_client timeout 10 smpquery sl2vl "$lid" "$out" >> fabric.sl2vl 2>/dev/null || fail "smpquery sl2vl $lid $out failed"
  done
done < <(awk '/^Switch/ {ports = $2; if (match($0, /lid [0-9]+/)) print substr($0, RSTART + 4, RLENGTH - 4), ports}' fabric.ibnetdiscover)
grep -q '^ports: in' fabric.sl2vl || fail "smpquery sl2vl printed no rows: $(head -3 fabric.sl2vl)"

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
