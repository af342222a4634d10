#!/usr/bin/env bash
# SLs end to end: `ibsm run -R dfsssp` on a ring of five switches under ibsim
# (its shortest paths are unique, and those one way round close a cycle).
#  - the daemon routes with dfsssp, its tables checked acyclic on two VLs,
#    and programs its SL2VL tables (SL s on VL s % 2; smpquery sl2vl);
#  - `saquery -p` shows the path SLs: every CA pair's PathRecord SL equals
#    what `ibsm route --sl` computes offline for the same fabric and SM node;
#  - a per-VL deadlock check that shares no code with ibsm (vl_cdg_judge.py),
#    built from those SA SLs and the LFTs read back with dump_fts, finds
#    every VL acyclic, as `ibsm check --sl` does on the same tables; with
#    every path on SL 0 both find the credit loop;
#  - osmtest -f c and -f q pass.
source "$(dirname "$0")/lib.sh"
here=$(cd "$(dirname "$0")" && pwd)
e2e_setup "$1"

fabric_start --topo torus --dims 5 --hosts 1
sm_daemon_start host-0 -R dfsssp
grep -q "routing engine dfsssp computed the tables" daemon.log || fail "dfsssp did not route: $(grep -i routing daemon.log | tail -3)"
grep -qE "routing check \(dfsssp\): .*cdg acyclic on vls 0,1" daemon.log ||
  fail "the daemon's check is not acyclic on vls 0,1: $(grep 'routing check' daemon.log | tail -1)"
! grep -q "credit loop" daemon.log || fail "the daemon logged a credit loop: $(grep 'credit loop' daemon.log)"

# The fabric and the tables as the diag tools read them back.
read_back_fabric
(( ${#ca_lids[@]} == 5 )) || fail "expected 5 CA lids, found ${#ca_lids[@]}: ${ca_lids[*]}"

# dfsssp's SL2VL tables are programmed: SL s on VL s % 2 (two layers), read
# back with smpquery from a CA port (the first hop of every path).
sl2vl=$(sim_client timeout 10 smpquery sl2vl "${ca_lids[0]}" 2>&1) || fail "smpquery sl2vl ${ca_lids[0]}: $sl2vl"
row=$(grep -m1 '^ports:' <<<"$sl2vl" | cut -d'|' -f2- | tr -d ' ')
[[ $row == 0\|1\|0\|1\|* ]] || fail "the CA's SL2VL table is not SL s -> VL s % 2: $sl2vl"

# Every CA pair's PathRecord SL from the SA, as SLID DLID SL lines (only SLs off 0).
sa_path_sls sa.sls
[[ -s sa.sls ]] || fail "every path is on sl 0: dfsssp split no path off layer 0"
grep -qvE ' (0|1)$' sa.sls && fail "an sl beyond 1 on a ring: $(grep -vE ' (0|1)$' sa.sls | head -3)"

# The same fabric routed offline, the SM at host-0 as in the daemon: the same SLs.
"$IBSM" route --topology "$NETFILE" -R dfsssp --sm-node host-0 --lfts offline.lfts --sl offline.sls 2> route.err ||
  fail "ibsm route failed: $(cat route.err)"
ca_pattern="^($(IFS='|'; echo "${ca_lids[*]}")) ($(IFS='|'; echo "${ca_lids[*]}")) "
grep -E "$ca_pattern" offline.sls | sort > offline-ca.sls
sort sa.sls > sa-sorted.sls
diff sa-sorted.sls offline-ca.sls > sls.diff || fail "the SA's SLs differ from ibsm route's: $(head -5 sls.diff)"

# The independent judge and ibsm check agree: acyclic on vls 0 and 1.
python3 "$here/vl_cdg_judge.py" fabric.ibnetdiscover fabric.lfts sa.sls > judge.out || fail "the judge: $(cat judge.out)"
grep -q "vls 0,1; acyclic" judge.out || fail "the judge: $(cat judge.out)"
"$IBSM" check --topology fabric.ibnetdiscover --lfts fabric.lfts --engine dfsssp --sl offline.sls > check.out 2>&1 ||
  fail "ibsm check --sl: $(tail -3 check.out)"
grep -qE "cdg acyclic on vls 0,1$" check.out || fail "ibsm check --sl: $(tail -1 check.out)"

# Every path on sl 0: both find the credit loop sssp's tables have on one VL.
: > none.sls
! python3 "$here/vl_cdg_judge.py" fabric.ibnetdiscover fabric.lfts none.sls > judge-none.out ||
  fail "the judge finds no cycle with every path on sl 0: $(cat judge-none.out)"
grep -q "cycle on vl 0" judge-none.out || fail "the judge: $(cat judge-none.out)"
! "$IBSM" check --topology fabric.ibnetdiscover --lfts fabric.lfts --sl none.sls > check-none.out 2>&1 ||
  fail "ibsm check --sl (all sl 0) passed: $(tail -1 check-none.out)"
grep -q "cdg cycle on vl 0" check-none.out || fail "ibsm check (all sl 0): $(tail -1 check-none.out)"

# OpenSM's SA test suite: the inventory (-f c), then the VLArb and SL2VL
# records of every port (-f q), with the SA of a routing that assigns SLs.
for flow in c q; do
  set +e
  SIM_HOST=host-4 client timeout 30 osmtest -f "$flow" -l "$PWD/osmtest-$flow.log" > "osmtest-$flow.out" 2>&1
  rc=$?
  set -e
  [[ $rc -eq 0 ]] && grep -q PASS "osmtest-$flow.out" ||
    fail "osmtest -f $flow failed (exit $rc): $(grep -E 'ERR' "osmtest-$flow.log" | grep -v 'ERR 5413' | head -3)"
done
kill -0 "$DAEMON_PID" 2>/dev/null || fail "the daemon died: $(tail -5 daemon.log)"

echo "dfsssp on a ring of 5: $(wc -l < sa.sls) of 20 CA paths on sl 1; SA sls = ibsm route's;" \
  "judge and ibsm check: acyclic on vls 0,1 (vl 0 alone: a cycle); osmtest -f c, q pass"
