#!/usr/bin/env bash
# OpenSM's SA test suite, osmtest, against the ibsm daemon on ibsim. The flows
# that pass against OpenSM on this fabric must pass against ibsm:
#   -f c  inventory of nodes, ports, paths (writes osmtest.dat)
#   -f q  VLArbitration and SL2VL table records of every port, by Get
#   -f f  flood: 100k SA queries, single-MAD and RMPP answers
#   -f e  event forwarding (InformInfo)
# -f v and -f a pass every check until the PathRecord table is compared with
# the inventory, where a record umad2sim cut fails them (see below; OpenSM
# hangs before, on the SMInfoRecord Set it drops). -f s and -f m fail
# against OpenSM too and are not run here (multicast_sa.sh runs -f m).
# Under ibsim umad2sim carries no RMPP: osmtest takes the first segment of
# each GetTableResp for the whole answer and never ACKs, and each osmtest
# process starts its TIDs where the last one did; the SA must cope with both.
#
# With a netfile argument (osmtest.sh NAME NETFILE SM_NODE CLIENT_NODE), on
# that fabric instead: -f c and -f q must pass (on two-port HCAs -f q asks
# each CA port's VLArb and SL2VL tables with port number 0), and -f s must
# have every service it registers accepted. -f s cannot pass under ibsim with
# any SM: umad2sim carries only the first 224 bytes of a MAD, so ServiceData64
# (MAD bytes 216-231) arrives garbled both ways and osmtest's compare of the
# registered data fails; the flow must end there, and only there.
source "$(dirname "$0")/lib.sh"
e2e_setup "$1"

client_node=host-5
if [[ -n ${2:-} ]]; then
  fabric_start "$2"
  sm_daemon_start "$3" -s 10
  client_node=$4
else
  fabric_start --topo leaf-spine --leaves 3 --spines 2 --hosts 4
  sm_daemon_start host-0 -s 10
fi
daemon=$DAEMON_PID

# run_flow FLOW SECONDS: osmtest -f FLOW from the client node under `timeout`; sets rc.
run_flow() {
  local flow=$1 seconds=$2 start end
  start=$(date +%s.%N)
  set +e
  SIM_HOST=$client_node client timeout "$seconds" osmtest -f "$flow" -l "$PWD/osmtest-$flow.log" > "osmtest-$flow.out" 2>&1
  rc=$?
  set -e
  end=$(date +%s.%N)
  printf 'osmtest -f %s: exit %d in %.1f s: %s\n' "$flow" "$rc" "$(awk -v a="$start" -v b="$end" 'BEGIN {print b - a}')" \
    "$(grep -oE 'TEST "[^"]*" (PASS|FAIL)' "osmtest-$flow.out" | tail -1)"
}
# must_pass FLOW SECONDS
must_pass() {
  run_flow "$1" "$2"
  [[ $rc -eq 0 ]] && grep -q 'PASS' "osmtest-$1.out" && return 0
  grep -E 'ERR|Remote error' "osmtest-$1.log" | grep -v 'ERR 5413' | head -10 >&2 || true
  fail "osmtest -f $1 failed against ibsm (exit $rc)"
}

if [[ -n ${2:-} ]]; then
  must_pass c 30
  must_pass q 30
  run_flow s 60
  [[ $rc -ne 124 ]] || fail "osmtest -f s hung against ibsm"
  ! grep -E 'Remote error|ERR 4A0[0-9]' "osmtest-s.log" >&2 || fail "ibsm refused a service osmtest -f s registers"
  grep -q 'osmt_register_service_with_data' "osmtest-s.log" || fail "osmtest -f s ended before its data registration"
  [[ $rc -eq 0 ]] || grep -q 'Data mismatch in service_data8' "osmtest-s.log" ||
    fail "osmtest -f s failed other than on umad2sim's garbled ServiceData (exit $rc)"
  kill -0 "$daemon" 2>/dev/null || fail "the daemon died under osmtest: $(tail -5 daemon.log)"
  echo "osmtest against ibsm on $(basename "$2"): c q pass; s registers every service"
  exit 0
fi

must_pass c 30
[[ -s osmtest.dat ]] || fail "osmtest -f c wrote no inventory"
grep -q DEFINE_NODE osmtest.dat && grep -q DEFINE_PORT osmtest.dat && grep -q DEFINE_PATH osmtest.dat ||
  fail "the inventory lacks nodes, ports or paths"
must_pass q 30
must_pass f 120
grep -q 'Querying 100000 port_info queries' "osmtest-f.log" "osmtest-f.out" || fail "the flood did not run its 100000 queries"
must_pass e 30

# -f v and -f a: every check passes up to the comparison of the PathRecord
# table with the inventory, where they may fail only on a record umad2sim
# cut: it carries 224 of a MAD's 256 bytes, so the third PathRecord of a
# one-MAD answer ends in garbage (its SLID and DLID read 0), in -f c's
# inventory and again, different, here (any of its fields may then differ:
# under load a resend of an earlier answer that was never ACKed can also take
# its place). No SA passes that under ibsim.
for flow in v a; do
  # Each osmtest process starts its TIDs where the last one did, and the SA
  # resends an RMPP answer nobody ACKs (umad2sim clients never do) for up to
  # 3 x 2 s: let those run out first, so that no resend of an earlier
  # process's answer is taken for this one's (under ASan -f a once took a
  # stale PathRecord answer so).
  sleep 8.5
  run_flow "$flow" 60
  [[ $rc -ne 124 ]] || fail "osmtest -f $flow hung against ibsm (no answer to one of its requests)"
  [[ $rc -eq 0 ]] && continue
  # The errors osmtest did not expect: outside its EXPECTING ERRORS blocks
  # and its unchecked queries (multicast and foreign-prefix PathRecords),
  # resends of RMPP answers it never ACKs (ERR 5413) aside.
  awk '/Expecting Errors - START/ {skip=1} /Expecting Errors  -  END/ {skip=0; next}
       !skip && / 0x01 -> / && !/IS EXPECTED ERROR/ && !/osmtest_get_path_rec_by_gid_pair|__osmv_sa_mad_rcv_cb|osmtest_query_res_cb/ &&
       !/(osmtest_sminfo_record_request|osmtest_informinfo_request): (ERR 008[DF]: ib_query failed|Remote error)/ &&
       !/umad_receiver: ERR 5413/' \
    "osmtest-$flow.log" | sed 's/^.* 0x01 -> //' > "osmtest-$flow.unexpected"
  # The one failure allowed: the third record of the PathRecord table (its
  # garbled SLID and DLID are whatever umad2sim left there): either not in
  # the inventory at all (after two records checked) or differing from it
  # (as the third checked); then only the errors that report it.
  python3 - "osmtest-$flow.unexpected" > "osmtest-$flow.failures" <<'EOF'
import re, sys
lines = [l.rstrip("\n") for l in open(sys.argv[1]) if not l.startswith("osmtest_validate_node_data: Checking node")]
checked, out = 0, None
for i, l in enumerate(lines):
    if l.startswith("osmtest_validate_path_data: Checking path"):
        checked += 1
        continue
    if re.match(r"osmtest_validate_path_rec: ERR 0095: Unexpected path", l) and checked == 2 or \
       re.match(r"osmtest_validate_path_data: ERR [0-9A-F]+: [A-Za-z_ ]+ mismatch on path", l) and checked == 3:
        out = [r for r in lines[i + 1:] if not re.search(
            r"ERR 0100: osmtest_validate_path_rec failed|ERR 0146: SA validation database failure|ERR 0114: ", r)]
    else:
        out = [l, f"(after {checked} paths checked)"]
    break
if out is None: out = ["failed with no error in its log"]
if out: print("\n".join(out[:5]))
EOF
  [[ ! -s "osmtest-$flow.failures" ]] ||
    fail "osmtest -f $flow failed other than on the PathRecord umad2sim cut: $(head -5 "osmtest-$flow.failures")"
done

kill -0 "$daemon" 2>/dev/null || fail "the daemon died under osmtest: $(tail -5 daemon.log)"
echo "osmtest against ibsm: c q f e pass; v a pass up to the PathRecord umad2sim cuts"
