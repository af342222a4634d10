#!/usr/bin/env bash
# Prometheus metrics of the daemon on ibsim (metrics_listen): GET /metrics
# parses with prometheus_client's text parser, and its figures agree with
# the log (the SUBNET UP line's nodes and MADs, heavy sweeps counted, the
# routing engine and its check line); SA counts move after a saquery run;
# bad requests (an unknown method, POST, an unknown path, a 20 kB path, a
# client that connects and sends nothing) get an error or are dropped, and
# the daemon still answers /metrics and saquery afterwards; a second SM
# whose metrics port is taken says so and runs on.
source "$(dirname "$0")/lib.sh"
e2e_setup "$1"

"$IBSM" topo leaf-spine --leaves 2 --spines 2 --hosts 2 -o fabric.net
ibsim_start "$PWD/fabric.net"
# Port 0: the kernel picks a free one; the log says which.
# Debian's python3-prometheus-client lives with the system python3 (another
# python3 may come first in PATH).
PY=/usr/bin/python3
[[ -x $PY ]] || PY=python3

conf=$(sm_conf metrics metrics_listen 127.0.0.1:0)
sm_daemon_start host-0 -s 1 -p 5 -F "$conf"
port=$(grep -oE 'serving metrics on http://127\.0\.0\.1:[0-9]+/metrics' daemon.log | grep -oE '[0-9]+/metrics' | cut -d/ -f1)
[[ -n $port ]] || fail "no 'serving metrics' line in the log: $(tail -5 daemon.log)"
url=http://127.0.0.1:$port

scrape() { curl -sS --max-time 10 -D headers.out -o metrics.out "$url/metrics"; }
# value SERIES: the sample's value in metrics.out, parsed by prometheus_client.
value() {
  "$PY" - "$1" <<'PY'
import sys
from prometheus_client.parser import text_string_to_metric_families
want = sys.argv[1]
for family in text_string_to_metric_families(open("metrics.out").read()):
    for s in family.samples:
        labels = ",".join(f'{k}="{v}"' for k, v in sorted(s.labels.items()))
        if (f"{s.name}{{{labels}}}" if labels else s.name) == want:
            print(int(s.value) if s.value == int(s.value) else s.value)
            sys.exit(0)
print("absent")
PY
}
# wait_value SERIES PREDICATE: scrapes until `PREDICATE VALUE` holds (the
# main loop publishes at least every second).
wait_value() {
  local i v
  for i in $(seq 1 50); do
    scrape
    v=$(value "$1")
    "$2" "$v" && return 0
    sleep 0.2
  done
  fail "$1 is $v"
}

scrape || fail "GET /metrics failed"
grep -qi '^Content-Type: text/plain; version=0.0.4' headers.out || fail "content type: $(cat headers.out)"
# The whole page parses, and every family is ibsm_'s.
"$PY" - <<'PY' || fail "prometheus_client cannot parse /metrics"
from prometheus_client.parser import text_string_to_metric_families
families = list(text_string_to_metric_families(open("metrics.out").read()))
assert len(families) > 30, len(families)
assert all(f.name.startswith("ibsm_") for f in families), [f.name for f in families]
print(len(families), "families,", sum(len(f.samples) for f in families), "samples")
PY

# Against the log: "SUBNET UP: N nodes, M mads in S s" and the routing check.
# (the sweep's line, not systemd's "ready: MASTER: SUBNET UP, ...")
up_re='SUBNET UP: [0-9]+ nodes, [0-9]+ mads'
up_line=$(grep -E "$up_re" daemon.log | tail -1)
nodes=$(sed -E 's/.*SUBNET UP: ([0-9]+) nodes, ([0-9]+) mads.*/\1/' <<<"$up_line")
mads=$(sed -E 's/.*SUBNET UP: ([0-9]+) nodes, ([0-9]+) mads.*/\2/' <<<"$up_line")
ups=$(grep -cE "$up_re" daemon.log)
check=$(grep -oE 'routing check \([a-z]+\): [0-9]+/[0-9]+ pairs delivered.*' daemon.log | tail -1)
engine=$(sed -E 's/routing check \(([a-z]+)\).*/\1/' <<<"$check")
pairs=$(sed -E 's/routing check \([a-z]+\): [0-9]+\/([0-9]+) pairs.*/\1/' <<<"$check")
delivered=$(sed -E 's/routing check \([a-z]+\): ([0-9]+)\/.*/\1/' <<<"$check")
echo "log: $nodes nodes, $mads mads, $ups heavy sweeps, engine $engine, $delivered/$pairs pairs"
[[ $(value 'ibsm_sm_state{state="master"}') == 1 ]] || fail "not master in the metrics"
[[ $(value 'ibsm_sm_state_number') == 3 ]] || fail "SM state number is not 3"
switches=$(value 'ibsm_nodes{type="switch"}')
others=$(value 'ibsm_nodes{type="other"}')
[[ $((switches + others)) == "$nodes" ]] || fail "nodes: $switches + $others in the metrics, $nodes in the log"
[[ $(value 'ibsm_sweep_last_mads{kind="heavy"}') == "$mads" ]] || fail "last heavy sweep's mads: $(value 'ibsm_sweep_last_mads{kind="heavy"}'), $mads in the log"
[[ $(value 'ibsm_sweeps_total{kind="heavy"}') == "$ups" ]] || fail "heavy sweeps: $(value 'ibsm_sweeps_total{kind="heavy"}'), $ups SUBNET UP lines"
[[ $(value 'ibsm_sweep_duration_seconds_count{kind="heavy"}') == "$ups" ]] || fail "heavy sweep durations counted"
[[ $(value "ibsm_routing_engine_info{engine=\"$engine\"}") == 1 ]] || fail "engine $engine not in the metrics"
[[ $(value 'ibsm_routing_check_pairs') == "$pairs" ]] || fail "pairs: $(value ibsm_routing_check_pairs), $pairs in the log"
[[ $(value 'ibsm_routing_check_delivered_pairs') == "$delivered" ]] || fail "delivered pairs"
if grep -q "cdg acyclic" <<<"$check"; then verdict=acyclic; else verdict=cycle; fi
[[ $(value "ibsm_routing_deadlock_verdict{verdict=\"$verdict\"}") == 1 ]] || fail "deadlock verdict is not $verdict"
active=$(value 'ibsm_ports{state="active"}')
# 4 host cables and 4 leaf-spine cables, both ends of each Active.
[[ $active == 16 ]] || fail "$active active ports in the metrics, 16 cabled"
# Light sweeps run every second: counted, with their MADs.
positive() { [[ $1 != absent ]] && (( $(printf '%.0f' "$1") > 0 )); }
wait_value 'ibsm_sweeps_total{kind="light"}' positive
positive "$(value 'ibsm_sweep_mads_total{kind="light"}')" || fail "light sweeps sent no mads"
positive "$(value 'ibsm_mad_requests_sent_total{attribute="NodeInfo",method="Get",mgmt_class="smp_directed_route"}')" ||
  fail "no NodeInfo Gets counted"

# SA requests: a saquery NodeRecord table moves its count and the latency histogram.
nr='ibsm_sa_requests_total{attribute="NodeRecord",method="GetTable",status="ok"}'
before=$(value "$nr"); [[ $before == absent ]] && before=0
latency_before=$(value 'ibsm_sa_request_latency_seconds_count')
SIM_HOST=host-1 sim_client saquery NR > saquery.out || fail "saquery NR failed"
more_nr() { [[ $1 != absent && $1 -gt $before ]]; }
wait_value "$nr" more_nr
(( $(value 'ibsm_sa_request_latency_seconds_count') > latency_before )) || fail "SA latency not observed"

# Bad requests: each gets its error, and nothing else changes.
status_of() { curl -s --max-time 10 -o /dev/null -w '%{http_code}' "$@"; }
[[ $(status_of -X FOO "$url/metrics") == 400 ]] || fail "an unknown method is not 400"
[[ $(status_of -X POST -d x=1 "$url/metrics") == 405 ]] || fail "POST /metrics is not 405"
[[ $(status_of "$url/nothing-here") == 404 ]] || fail "an unknown path is not 404"
long=$(head -c 20000 /dev/zero | tr '\0' a)
code=$(status_of "$url/$long")
[[ $code == 414 || $code == 400 ]] || fail "a 20 kB path got $code"
# A client that connects and sends nothing is dropped after the timeout,
# and /metrics is served meanwhile.
"$PY" - "$port" "$url" <<'PY' || fail "the idle client test failed"
import socket, subprocess, sys
idle = socket.create_connection(("127.0.0.1", int(sys.argv[1])))
code = subprocess.run(["curl", "-s", "--max-time", "10", "-o", "/dev/null", "-w", "%{http_code}",
                       sys.argv[2] + "/metrics"], capture_output=True, text=True).stdout
assert code == "200", f"/metrics with an idle client connected: {code}"
idle.settimeout(30)
assert idle.recv(100) == b"", "the idle client got bytes"
print("idle client dropped; /metrics answered meanwhile")
PY

kill -0 "$DAEMON_PID" || fail "the daemon died"
scrape || fail "GET /metrics after the bad requests failed"
value ibsm_sm_priority > /dev/null
SIM_HOST=host-1 sim_client saquery NR > saquery2.out || fail "saquery after the bad requests failed"

# A second SM whose metrics port is taken: a clear error, and it runs on.
taken=$(sm_conf taken metrics_listen "127.0.0.1:$port")
SIM_HOST=host-2 LD_PRELOAD="$UMAD2SIM" "$IBSM" run -f second.log -v --cache-dir cache2 -p 0 -F "$taken" > second.out 2>&1 &
second=$!
trap 'rc=$?; kill $second 2>/dev/null || true; wait $second 2>/dev/null || true; sm_daemon_stop; set +e; (exit $rc); e2e_cleanup' EXIT
for i in $(seq 1 50); do grep -q "cannot listen there" second.log 2>/dev/null && break; sleep 0.1; done
grep "cannot listen there" second.log || fail "no bind error for a taken port: $(tail -5 second.log)"
grep -q "metrics_listen 127.0.0.1:$port: cannot listen there (Address already in use); no metrics served" second.log ||
  fail "the bind error does not say why: $(grep 'cannot listen' second.log)"
sleep 1
kill -0 "$second" || fail "the second SM exited: $(tail -5 second.out)"
kill "$second"; wait "$second" 2>/dev/null || true
scrape || fail "the first SM stopped serving /metrics"
echo "metrics end to end: ok"
