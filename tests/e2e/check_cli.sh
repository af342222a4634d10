#!/usr/bin/env bash
# `ibsm check` from the command line's point of view, on a small torus routed
# offline by `ibsm route` (no fabric, no ibsim): min-hop's tables deliver
# every pair but have a channel dependency cycle, which fails the check only
# when the tables are said to come from an engine that promises none; updn's
# are acyclic; a hole in a table fails it; bad usage exits 2.
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

# A hole: the first switch sends its own host's LID to its port 0 (dump_lfts
# lists one "LID port" line per entry), so the 15 other hosts cannot reach it.
lid=$(awk '$1 ~ /^0x/ && $3 == ":" && /Channel Adapter|host/ {print $1; exit}' updn.lfts)
[[ -n $lid ]] || fail "no host LID in the first switch's table: $(head -8 updn.lfts)"
awk -v lid="$lid" '!done && $1 == lid {$2 = "000"; done = 1} {print}' updn.lfts > holed.lfts
cp updn.guid2lid holed.guid2lid
check 1 holed --engine updn
grep -q "pairs 240: delivered 225, unreachable 15, looping 0" check.out || fail "the hole went unnoticed: $(cat check.out)"
grep -q "sends lid $((lid)) to port 0" check.out || fail "the failed pairs are not described: $(cat check.out)"

# Usage errors: exit 2.
check 2 updn --engine no-such-engine
grep -q "no such engine" check.err || fail "an unknown engine is not named: $(cat check.err)"
check 2 updn --stride 0
echo "ibsm check: cycle judged by the engine's promise, hole found, usage errors refused"
