#!/usr/bin/env bash
# A daemon with sweeping off (-s 0) and nothing to do sleeps: it waits on the
# port for a MAD instead of spinning. (Its loop once waited zero time when no
# sweep was due, and took a whole core.) Judged by the process state the
# kernel reports, sampled: a spinning process is running in nearly every
# sample, a sleeping one in nearly none. Then it still answers: sminfo and
# an SA query; once it is stopped, a query says there is no SA.
source "$(dirname "$0")/lib.sh"
e2e_setup "$1"

fabric_start --topo leaf-spine --leaves 2 --spines 1 --hosts 2
sm_daemon_start host-0 -s 0
daemon=$DAEMON_PID
sleep 0.5
running=0
for i in $(seq 1 20); do
  # Field 3 of /proc/PID/stat is the state: R running, S sleeping.
  state=$(awk '{print $3}' "/proc/$daemon/stat")
  [[ $state == R ]] && running=$((running + 1))
  sleep 0.1
done
echo "daemon running in $running of 20 samples"
[[ $running -le 5 ]] || fail "the idle daemon is spinning (running in $running of 20 samples)"
SIM_HOST=host-1 client timeout 10 sminfo | grep -q SMINFO_MASTER || fail "sminfo does not see the master"
count=$(SIM_HOST=host-1 client timeout 10 "$IBSM" query NR --count) || fail "ibsm query failed"
[[ $count -eq 7 ]] || fail "expected 7 node records (3 switches, 4 hosts), got $count"

# Once the daemon is gone, the ports' SM LID names nobody: ibsim hands every
# SA request straight back, timed out. That is no answer (ibsm query once
# printed its own request back as a zeroed PathRecord and exited 0).
sm_daemon_stop
rc=0
SIM_HOST=host-1 client timeout 30 "$IBSM" query PR SLID=1 --json > gone.out 2> gone.err || rc=$?
[[ $rc -eq 1 ]] || fail "ibsm query with no SA exited $rc, expected 1: $(cat gone.out gone.err)"
grep -q "no answer from the SA at lid" gone.err || fail "ibsm query with no SA: $(cat gone.err)"
[[ ! -s gone.out ]] || fail "ibsm query with no SA printed records: $(cat gone.out)"
echo "with the SM gone, ibsm query says so"
