#!/usr/bin/env bash
# Hand-made SA MADs over ibsim (sa_send_raw through umad2sim) to the SA inside
# `ibsm run`: each gets the spec's status back (IBA 13.4.7 table 110, 15.2.1.1
# table 187; RMPP ABORT statuses IBA 13.6.2.1 table 176), or nothing where
# nothing can be answered; afterwards saquery and ibsm query still answer
# correctly and sminfo still sees ibsm as the master.
source "$(dirname "$0")/lib.sh"
e2e_setup "$1"

fabric_start --topo leaf-spine --leaves 2 --spines 1 --hosts 2
sm_daemon_start host-0 -s 1
export SIM_HOST=host-2
raw="$IBSM_TOOLS_DIR/sa_send_raw"

# expect DESCRIPTION "ANSWER-PATTERN"|none FIELD=VALUE...
expect() {
  local what=$1 want=$2; shift 2
  local rc=0
  sim_client timeout 10 "$raw" --wait 300 "$@" > raw.out || rc=$?
  if [[ $want == none ]]; then
    [[ $rc -eq 3 ]] || fail "$what: answered, expected nothing: $(cat raw.out)"
  else
    [[ $rc -eq 0 ]] || fail "$what: no answer (rc $rc)"
    grep -qE "^answer $want " raw.out || fail "$what: $(cat raw.out), expected '$want'"
  fi
  echo "$what: $(head -1 raw.out)"
}
NR=attr=0x11
expect "unknown attribute" "method 0x81 status 0x000c attr 0x0099" attr=0x99
expect "class version 1" "method 0x81 status 0x0004" $NR class_version=1
expect "method 0x10" "method 0x81 status 0x0008" $NR method=0x10
expect "ComponentMask bit 63 of NodeRecord" "method 0x92 status 0x0200" $NR method=0x12 mask=0x8000000000000000
expect "a response sent to the SA" none $NR method=0x81
# RMPP: a DATA segment 5 of no transfer is dropped; an unknown RMPP type and
# a First segment whose PayloadLength cannot be are aborted.
expect "RMPP DATA segment 5 of nothing" none $NR method=0x12 rmpp_version=1 rmpp_type=1 rmpp_flags=1 seg=5
expect "RMPP type 9" "method 0x92 status 0x0000 attr 0x0011 rmpp_type 4 rmpp_flags 1 rmpp_status 121" \
  $NR method=0x12 rmpp_version=1 rmpp_type=9 rmpp_flags=1 seg=1
expect "RMPP First segment of PayloadLength 5" "method 0x92 status 0x0000 attr 0x0011 rmpp_type 4 rmpp_flags 1 rmpp_status 119" \
  $NR method=0x12 rmpp_version=1 rmpp_type=1 rmpp_flags=3 seg=1 len=5
expect "RMPP version 7" "method 0x92 status 0x0000 attr 0x0011 rmpp_type 4 rmpp_flags 1 rmpp_status 125" \
  $NR method=0x12 rmpp_version=7 rmpp_type=1 rmpp_flags=3 seg=1 len=100

# Still serving: the whole NodeRecord table, saquery's answer, the master.
kill -0 "$DAEMON_PID" || fail "the daemon died"
n=$(sim_client timeout 10 "$IBSM" query NR --count) || fail "ibsm query NR failed after the bad MADs"
[[ $n -eq 7 ]] || fail "ibsm query NR: $n records, not 7"
SIM_HOST=host-3 sim_client timeout 10 saquery SMIR > smir.out || fail "saquery failed after the bad MADs"
grep -q "SMState...............3" smir.out || fail "saquery SMIR: $(cat smir.out)"
sim_client timeout 10 sminfo > sminfo.out || fail "sminfo failed"
grep -q SMINFO_MASTER sminfo.out || fail "sminfo: $(cat sminfo.out)"
echo "sa_bad_mads: every bad MAD answered as the spec says; SA and SM still serve"
