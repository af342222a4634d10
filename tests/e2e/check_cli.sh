#!/usr/bin/env bash
# `ibsm check` from the command line's point of view, on a small torus routed
# offline by `ibsm route` (no fabric, no ibsim): min-hop's tables deliver
# every pair but have a channel dependency cycle, which fails the check only
# when the tables are said to come from an engine that promises none; updn's
# are acyclic; a hole in a table fails it; torus-2QoS's SL2VL tables
# (--sl --sl2vl) put its paths on VLs 0 and 1 only, acyclic, and the same
# tables with every entry on VL 0 have a cycle; bad usage exits 2.
source "$(dirname "$0")/lib.sh"
e2e_setup "$1"

"$IBSM" topo torus --dims 4,4 --hosts 1 -o fabric.net || fail "ibsm topo failed"
for engine in minhop updn; do
  "$IBSM" route -t fabric.net -R "$engine,no_fallback" --lfts "$engine.lfts" --guid2lid "$engine.guid2lid" \
    2> route.err || fail "ibsm route -R $engine failed: $(cat route.err)"
done

check() {  # check EXPECTED_RC ENGINE_TABLES ARGS...: runs ibsm check into check.out
  local want=$1 tables=$2; shift 2
  local rc=0
  "$IBSM" check --topology fabric.net --guid2lid "$tables.guid2lid" --lfts "$tables.lfts" "$@" > check.out 2> check.err ||
    rc=$?
  [[ $rc -eq $want ]] || fail "ibsm check ($tables tables) $* exited $rc, expected $want: $(cat check.out check.err)"
}

# min-hop: every pair delivered, a cycle reported; fatal only for a deadlock-free engine.
check 0 minhop --engine minhop
grep -q "pairs 240: delivered 240, unreachable 0, looping 0" check.out || fail "min-hop: not every pair: $(cat check.out)"
grep -q "^cdg: .*: cycle on vl 0: " check.out || fail "min-hop on a torus: no cycle reported: $(cat check.out)"
grep -q "^routing check (minhop): 240/240 pairs delivered, .*, cdg cycle on vl 0: " check.out ||
  fail "min-hop: the summary line is not the daemon's: $(tail -1 check.out)"
check 0 minhop
check 1 minhop --engine updn
grep -q "updn promises no cycle" check.out || fail "the cycle against updn's promise is not named: $(cat check.out)"

# updn: acyclic, and the summary says so.
check 0 updn --engine updn
tail -1 check.out | grep -q "^routing check (updn): 240/240 pairs delivered, hops max [0-9]* mean [0-9.]*, stretch max [0-9.]*, link routes max [0-9]* mean [0-9.]* stddev [0-9.]*, cdg acyclic$" ||
  fail "updn: unexpected summary: $(tail -1 check.out)"

# A hole: the first switch sends its own host's LID to its port 0 (dump_fts
# lists one "LID port" line per entry), so the 15 other hosts cannot reach it.
lid=$(awk '$1 ~ /^0x/ && $3 == ":" && /Channel Adapter|host/ {print $1; exit}' updn.lfts)
[[ -n $lid ]] || fail "no host LID in the first switch's table: $(head -8 updn.lfts)"
awk -v lid="$lid" '!done && $1 == lid {$2 = "000"; done = 1} {print}' updn.lfts > holed.lfts
cp updn.guid2lid holed.guid2lid
check 1 holed --engine updn
grep -q "pairs 240: delivered 225, unreachable 15, looping 0" check.out || fail "the hole went unnoticed: $(cat check.out)"
grep -q "sends lid $((lid)) to port 0" check.out || fail "the failed pairs are not described: $(cat check.out)"

# torus-2QoS's SLs and SL2VL tables: a path keeps its SL, each hop's table
# picks its VL, so the check sees VLs 0,1 (with VL = SL it would see 0-3).
"$IBSM" route -t fabric.net -R torus-2QoS,no_fallback --lfts torus.lfts --guid2lid torus.guid2lid --sl torus.sls \
  --sl2vl torus.sl2vl 2> route.err || fail "ibsm route -R torus-2QoS --sl2vl failed: $(cat route.err)"
grep -qE '^0x[0-9a-f]{16} [0-9]+ [0-9]+( [0-9]+){16}$' torus.sl2vl || fail "no table in torus.sl2vl: $(head -3 torus.sl2vl)"
check 0 torus --engine torus-2QoS --sl torus.sls --sl2vl torus.sl2vl
grep -qE "^sl2vl: [0-9]+ tables in torus.sl2vl$" check.out || fail "the tables read are not counted: $(cat check.out)"
grep -qE "cdg acyclic on vls 0,1$" check.out || fail "torus-2QoS with its sl2vl tables: $(tail -1 check.out)"
check 0 torus --engine torus-2QoS --sl torus.sls
grep -qE "cdg acyclic on vls 0,1,2,3$" check.out || fail "torus-2QoS with vl = sl: $(tail -1 check.out)"
awk '/^#/ {print; next} {printf "%s %s %s", $1, $2, $3; for (i = 0; i < 16; i++) printf " 0"; print ""}' \
  torus.sl2vl > zero.sl2vl
check 1 torus --engine torus-2QoS --sl torus.sls --sl2vl zero.sl2vl
grep -q "cdg cycle on vl 0: " check.out || fail "every table on vl 0: no cycle: $(tail -1 check.out)"
{ head -2 torus.sl2vl; echo "0x0002c90300000001 1 2 0 1"; } > bad.sl2vl
check 1 torus --sl torus.sls --sl2vl bad.sl2vl
grep -q "bad.sl2vl:3: expected NODEGUID INPORT OUTPORT and 16 VLs" check.err || fail "a bad sl2vl line: $(cat check.err)"
echo "0x00000000000000ff 1 2 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0" > stranger.sl2vl
check 1 torus --sl torus.sls --sl2vl stranger.sl2vl
grep -q "stranger.sl2vl:1: .* is not in fabric.net" check.err || fail "a table of no node: $(cat check.err)"

# Usage errors: exit 2.
check 2 updn --sl2vl torus.sl2vl
grep -q -- "--sl2vl needs --sl" check.err || fail "--sl2vl without --sl: $(cat check.err)"
check 2 updn --engine no-such-engine
grep -q "no such engine" check.err || fail "an unknown engine is not named: $(cat check.err)"
check 2 updn --stride 0
echo "ibsm check: cycle judged by the engine's promise, hole found, torus-2QoS's sl2vl tables followed," \
  "usage errors refused"
