#!/usr/bin/env bash
# A node that answers nothing (ibsim's Error "leaf-3" 100): `ibsm run -o`
# names it by DR path and GUID/port, brings the rest of the fabric up and
# exits 0; the judges then see every other host Active and every pair among
# them delivered; once the node answers again, a second run brings it up too.
source "$(dirname "$0")/lib.sh"
e2e_setup "$1"

"$IBSM" topo leaf-spine --leaves 4 --spines 2 --hosts 3 -o fabric.net
export SIM_HOST=host-0
ibsim_start "$PWD/fabric.net"

ibsim_cmd 'Error "leaf-3" 100'
client "$IBSM" run -o -t 50 --retries 1 --cache-dir cache -f first.log > first.out 2>&1 ||
  fail "ibsm run -o did not bring the rest up: $(cat first.out)"
cat first.out
grep -qE "problem: dr path 0(,[0-9]+)+: no answer" first.out || fail "the silent node is not reported by its DR path"
ibsim_cmd 'Error "leaf-3" 0'

# The other 9 hosts each have a LID and reach each other; leaf-3 and its hosts have none.
client ibnetdiscover > topo.out 2>/dev/null || fail "ibnetdiscover failed"
sim_client dump_fts > lfts.out 2>/dev/null || true
"$IBSM" check --topology topo.out --lfts lfts.out > check.out || true
cat check.out
grep -qE "pairs 72: delivered 72, unreachable 0, looping 0" check.out || fail "the 9 reachable hosts do not all reach each other"
[[ $(grep -c "has no lid" check.out) -eq 4 ]] || fail "expected exactly leaf-3 and its 3 hosts without a LID"

# The node answers again: the next run brings everything up.
client "$IBSM" run -o --cache-dir cache -f second.log > second.out 2>&1 || fail "second run failed: $(cat second.out)"
client ibnetdiscover > topo2.out 2>/dev/null
sim_client dump_fts > lfts2.out 2>/dev/null
"$IBSM" check --topology topo2.out --lfts lfts2.out > check2.out || fail "after recovery: $(cat check2.out)"
grep -q "pairs 132: delivered 132" check2.out || fail "not every pair delivered after recovery: $(cat check2.out)"
echo "silent leaf reported, the rest brought up; all up once it answered again"
