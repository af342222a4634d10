#!/usr/bin/env bash
# The performance manager on ibsim: `ibsm run` with perfmgr TRUE sweeps the
# PMA of every port every second. ibsim's console raises error counters
# (PerformanceSet); the daemon then logs each port whose errors climbed, once
# per climb, and what it logs agrees with perfquery on those ports and on a
# clean one, and with ibqueryerrors on which ports have errors. A counter
# raised near its maximum is cleared by the manager (perfquery reads 0
# afterwards) and its total keeps counting past the counter's width.
source "$(dirname "$0")/lib.sh"
e2e_setup "$1"

fabric_start /usr/share/doc/ibsim-utils/net-examples/net.2sw2path4hca
cat >perf.conf <<'EOF'
perfmgr TRUE
perfmgr_sweep_time_s 1
EOF
sm_daemon_start Hca1 -F perf.conf
export SIM_HOST=Hca3  # the judges

sweeps() { grep -c "pma sweep [0-9]*:" daemon.log || true; }
# wait_sweeps N: until the daemon has logged N completed PMA sweeps.
wait_sweeps() {
  local i
  for i in $(seq 1 200); do
    [[ $(sweeps) -ge $1 ]] && return 0
    sleep 0.1
  done
  fail "fewer than $1 pma sweeps after 20 s: $(grep perfmgr daemon.log | tail -3)"
}
# The error counters perfquery reads at LID $1 port $2, "Name value" lines, sorted.
perfquery_errors() {
  client timeout 10 perfquery "$1" "$2" | awk -F'[:.]+' '
    /^(SymbolErrorCounter|LinkErrorRecoveryCounter|LinkDownedCounter|PortRcvErrors|PortRcvRemotePhysicalErrors|PortRcvSwitchRelayErrors|PortXmitDiscards|PortXmitConstraintErrors|PortRcvConstraintErrors|LocalLinkIntegrityErrors|ExcessiveBufferOverrunErrors|VL15Dropped):/ {
      if ($2 != 0) print $1, $2 }' | sort
}
# The error counters of the daemon's last reading of node "$1" port $2, same format.
logged_errors() {
  grep "portcounters of node .* \"$1\" port $2 " daemon.log | tail -1 | sed 's/.*): //' | tr ',' '\n' |
    awk '$1 !~ /^Port(Xmit|Rcv)(Data|Pkts)$/ && NF == 2 {print $1, $2}' | sort
}
lid_of() { grep "portcounters of node .* \"$1\" port $2 " daemon.log | tail -1 | sed 's/.*(lid \([0-9]*\)).*/\1/'; }

wait_sweeps 2
line=$(grep "pma sweep 1:" daemon.log)
echo "$line"
[[ $line == *"of 6 nodes read, 0 unanswered, 0 with new errors"* ]] || fail "first pma sweep: $line"
ports=$(sed 's/.*pma sweep 1: \([0-9]*\) ports.*/\1/' <<<"$line")
# Both switches' 8 ports each, and the 4 cabled CA ports.
[[ $ports -eq 20 ]] || fail "the first pma sweep read $ports ports, expected 20"

# Errors where nobody made them: three ports, raised at once (one command
# file: ibsim runs it between two MADs), so no PMA sweep sees half of them.
cat >inject.cmd <<'EOF'
PerformanceSet "Switch1"[3] PortCounters.SymbolErrorCounter=7
PerformanceSet "Switch1"[3] PortCounters.LinkDownedCounter=2
PerformanceSet "Hca2"[1] PortCounters.PortRcvErrors=3
PerformanceSet "Switch2"[5] PortCounters.VL15Dropped=4
EOF
ibsim_cmd "!$PWD/inject.cmd"
grep -q "has been set to 4" sim.out || fail "ibsim did not take PerformanceSet: $(tail -3 sim.out)"
before=$(sweeps)
wait_sweeps $((before + 2))
grep "errors on node" daemon.log
[[ $(grep -c "errors on node" daemon.log) -eq 3 ]] || fail "expected 3 ports reported with errors"
grep -q 'errors on node .* "Switch1" port 3 (lid [0-9]*): SymbolErrorCounter +7 (total 7), LinkDownedCounter +2 (total 2)$' daemon.log ||
  fail "Switch1 port 3 not reported as expected"
grep -q 'errors on node .* "Hca2" port 1 (lid [0-9]*): PortRcvErrors +3 (total 3)$' daemon.log ||
  fail "Hca2 port 1 not reported as expected"
grep -q 'errors on node .* "Switch2" port 5 (lid [0-9]*): VL15Dropped +4 (total 4)$' daemon.log ||
  fail "Switch2 port 5 not reported as expected"

# The daemon's readings agree with perfquery's, on the error ports and on clean ones.
for p in "Switch1 3" "Hca2 1" "Switch2 5" "Switch1 1" "Hca4 1"; do
  set -- $p
  lid=$(lid_of "$1" "$2")
  [[ -n $lid ]] || fail "no reading of $1 port $2 in the log"
  ours=$(logged_errors "$1" "$2")
  theirs=$(perfquery_errors "$lid" "$2")
  echo "$1 port $2 (lid $lid): ibsm [${ours//$'\n'/, }] perfquery [${theirs//$'\n'/, }]"
  [[ $ours == "$theirs" ]] || fail "$1 port $2: ibsm read [$ours], perfquery [$theirs]"
done

# ibqueryerrors finds the same ports with errors ("port ALL" is its sum of a switch).
# (Its exit status is not 0 when it finds errors.)
client timeout 30 ibqueryerrors --skip-sl >ibqueryerrors.out 2>/dev/null || true
theirs=$(awk '
  /^Errors for/ {match($0, /"[^"]*"/); name = substr($0, RSTART + 1, RLENGTH - 2)}
  /^ +GUID .* port [0-9]+:/ {for (i = 1; i <= NF; i++) if ($i == "port") {p = $(i + 1); sub(":", "", p)}; print name, p}' ibqueryerrors.out | sort)
ours=$(grep "errors on node" daemon.log | sed 's/.*"\(.*\)" port \([0-9]*\) .*/\1 \2/' | sort -u)
echo "ibqueryerrors: [${theirs//$'\n'/, }] ibsm: [${ours//$'\n'/, }]"
[[ -n $theirs && $ours == "$theirs" ]] || fail "ibqueryerrors [$theirs] and ibsm [$ours] disagree on the ports with errors"

# Once per climb: more sweeps, no new report.
before=$(sweeps)
wait_sweeps $((before + 2))
[[ $(grep -c "errors on node" daemon.log) -eq 3 ]] || fail "a port was reported again without new errors"

# Near its maximum (65535) a counter is cleared, and the total counts on.
ibsim_cmd 'PerformanceSet "Switch2"[1] PortCounters.PortXmitDiscards=60000'
for i in $(seq 1 100); do
  grep -q 'errors on node .* "Switch2" port 1 .*PortXmitDiscards +60000 (total 60000)' daemon.log && break
  sleep 0.1
done
grep -q 'PortXmitDiscards +60000 (total 60000)' daemon.log || fail "PortXmitDiscards 60000 not reported"
before=$(sweeps)
wait_sweeps $((before + 1))
lid=$(lid_of Switch2 1)
now=$(client timeout 10 perfquery "$lid" 1 | awk -F'[:.]+' '/^PortXmitDiscards:/ {print $2}')
[[ $now -eq 0 ]] || fail "PortXmitDiscards of Switch2 port 1 not cleared: perfquery reads $now"
ibsim_cmd 'PerformanceSet "Switch2"[1] PortCounters.PortXmitDiscards=10000'
for i in $(seq 1 100); do
  grep -q 'PortXmitDiscards +10000 (total 70000)' daemon.log && break
  sleep 0.1
done
grep 'errors on node .* "Switch2" port 1 ' daemon.log
grep -q 'PortXmitDiscards +10000 (total 70000)' daemon.log || fail "the total did not count past the clear"
echo "perfmgr: $(sweeps) pma sweeps, reports agree with perfquery and ibqueryerrors"
