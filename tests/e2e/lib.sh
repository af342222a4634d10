# Shared helpers for end-to-end tests on ibsim. Source it, then:
#   e2e_setup NAME          scratch folder, unique socket name, cleanup trap
#   ibsim_start NETFILE     start ibsim (console on a FIFO for fault injection)
#   fabric_start NETFILE | --topo KIND ARGS...   a netfile or generated fabric on ibsim
#   ibsim_cmd 'Unlink "sw"[3]'   send a console command
#   client CMD ARGS...      run a umad client (diag tool, opensm, ibsm) on the simulator
#   fail MESSAGE            print and exit 1
# Environment: IBSM (path of the ibsm binary), IBSM_TOOLS_DIR (test helper binaries),
# UMAD_COUNT (umad_count.so, the MAD counter).
set -euo pipefail

UMAD2SIM=${UMAD2SIM:-/usr/lib/x86_64-linux-gnu/umad2sim/libumad2sim.so}

fail() { echo "FAIL: $*" >&2; exit 1; }

e2e_setup() {
  local name=$1
  E2E_DIR=$(mktemp -d "${TMPDIR:-/tmp}/ibsm-e2e-${name}.XXXXXX")
  export IBSIM_SOCKNAME="ibsm-${name}-$$-${RANDOM}"
  IBSIM_PID=""
  trap e2e_cleanup EXIT
  cd "$E2E_DIR"
}

e2e_cleanup() {
  local rc=$?
  if [[ -n "${IBSIM_PID}" ]]; then
    kill "$IBSIM_PID" 2>/dev/null || true
    wait "$IBSIM_PID" 2>/dev/null || true
  fi
  if [[ $rc -ne 0 ]]; then
    echo "--- e2e scratch folder kept: $E2E_DIR" >&2
    [[ -f sim.out ]] && { echo "--- ibsim output (tail):" >&2; tail -20 sim.out >&2; }
  else
    rm -rf "$E2E_DIR"
  fi
}

# ibsim_start NETFILE [extra ibsim args...]
ibsim_start() {
  local netfile=$1; shift
  mkfifo console
  # Opened read-write so ibsim never sees end of input on its console.
  ibsim "$@" -s "$netfile" <>console >sim.out 2>&1 &
  IBSIM_PID=$!
  local i
  for i in $(seq 1 200); do
    grep -q "Network simulator ready" sim.out 2>/dev/null && return 0
    kill -0 "$IBSIM_PID" 2>/dev/null || fail "ibsim exited while starting on $netfile"
    sleep 0.05
  done
  fail "ibsim did not become ready on $netfile"
}

ibsim_cmd() { echo "$*" >console; sleep 0.2; }

# fabric_start NETFILE | --topo KIND [topo args...]: the netfile (or a fabric
# `ibsm topo` generates into fabric.net) on a fresh ibsim sized beyond its
# defaults; sets NETFILE.
fabric_start() {
  if [[ $1 == --topo ]]; then
    shift
    "$IBSM" topo "$@" -o fabric.net
    NETFILE=$PWD/fabric.net
  else
    NETFILE=$1
  fi
  local nodes
  nodes=$(grep -cE '^(Switch|Hca|Ca|Rt)' "$NETFILE")
  ibsim_start "$NETFILE" -N $((nodes + 16)) -S $((nodes + 16)) -P $((nodes * 80 + 64))
}

# Runs a client attached to the simulator; SIM_HOST may be set by the caller.
client() { LD_PRELOAD="$UMAD2SIM" "$@"; }

# sm_daemon_start HOST [ibsm run args...]: `ibsm run` as a daemon attached at
# HOST (log daemon.log), stopped at exit; returns once the subnet is up (the
# SA serves from then on). Sets DAEMON_PID.
sm_daemon_start() {
  local host=$1; shift
  SIM_HOST=$host LD_PRELOAD="$UMAD2SIM" "$IBSM" run -f daemon.log -v --cache-dir cache "$@" > daemon.out 2>&1 &
  DAEMON_PID=$!
  trap 'rc=$?; sm_daemon_stop; set +e; (exit $rc); e2e_cleanup' EXIT
  local i
  for i in $(seq 1 200); do
    kill -0 "$DAEMON_PID" 2>/dev/null || fail "ibsm run exited: $(tail -5 daemon.out)"
    grep -q "SUBNET UP" daemon.log 2>/dev/null && return 0
    sleep 0.1
  done
  fail "the subnet did not come up: $(tail -5 daemon.log)"
}
sm_daemon_stop() {
  [[ -n ${DAEMON_PID:-} ]] || return 0
  kill "$DAEMON_PID" 2>/dev/null || true
  wait "$DAEMON_PID" 2>/dev/null || true
  DAEMON_PID=""
}

# sim_client CMD ARGS...: client, run again (up to 3 times) if umad2sim (ibsim 0.10)
# crashed it: its receiver thread dereferences a released queue when the
# socket closes at exit or a MAD comes for a class with no agent (SEGV in
# libumad2sim.so). The command's own failures are returned as they are.
# Only the last run's output is passed on.
sim_client() {
  local rc=0 attempt
  client "$@" > sim_client.out 2> sim_client.err || rc=$?
  for attempt in 1 2 3; do
    [[ $rc -ne 0 ]] && { [[ $rc -eq 139 ]] || grep -q "libumad2sim.so" sim_client.err; } || break
    echo "umad2sim crashed $* (rc $rc); again" >&2
    rc=0
    client "$@" > sim_client.out 2> sim_client.err || rc=$?
  done
  cat sim_client.out
  cat sim_client.err >&2
  return $rc
}
