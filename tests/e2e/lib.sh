# Shared helpers for end-to-end tests on ibsim. Source it, then:
#   e2e_setup NAME          scratch folder, unique socket name, cleanup trap
#   ibsim_start NETFILE     start ibsim (console on a FIFO for fault injection)
#   fabric_start NETFILE | --topo KIND ARGS...   a netfile or generated fabric on ibsim
#   ibsim_cmd 'Unlink "sw"[3]'   send a console command
#   client CMD ARGS...      run a umad client (diag tool, opensm, ibsm) on the simulator
#   fail MESSAGE            print and exit 1
#   mft_entries             the switches' MFT entries (dump_mfts), one per line
# Environment: IBSM (path of the ibsm binary), IBSM_TOOLS_DIR (test helper binaries),
# UMAD_COUNT (umad_count.so, the MAD counter), E2E_KEEP (set: keep the scratch
# folder also when the test passes).
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
  if [[ $rc -ne 0 || -n ${E2E_KEEP:-} ]]; then
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
  # Its own control socket, in the scratch folder (not /run/ibsm): tests run side by side.
  # E2E_PRELOAD: more to preload (umad_count.so, to see what it sends).
  SIM_HOST=$host LD_PRELOAD="${E2E_PRELOAD:+$E2E_PRELOAD }$UMAD2SIM" "$IBSM" run -f daemon.log -v --cache-dir cache \
    --control-socket "$E2E_DIR/ctl.sock" \
    "$@" > daemon.out 2>&1 &
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

# wait_for SECONDS DESCRIPTION COMMAND...: polls COMMAND every 0.1 s until it
# succeeds; fails when SECONDS pass, or at once when the daemon (DAEMON_PID,
# if set) has exited, with the tail of DAEMON_LOG (default daemon.log).
wait_for() {
  local seconds=$1 what=$2; shift 2
  local i
  for i in $(seq 1 $((seconds * 10))); do
    "$@" && return 0
    if [[ -n ${DAEMON_PID:-} ]] && ! kill -0 "$DAEMON_PID" 2>/dev/null; then
      fail "the daemon exited while waiting for $what: $(tail -5 "${DAEMON_LOG:-daemon.log}" 2>/dev/null)"
    fi
    sleep 0.1
  done
  fail "timed out waiting for $what: $(tail -5 "${DAEMON_LOG:-daemon.log}" 2>/dev/null)"
}

# mft_entries: what the switches' MFTs hold, as dump_mfts reads them (at
# SIM_HOST, if set): "SWITCH_GUID MLID PORT" lines (0x%016x 0x%04x decimal),
# sorted.
mft_entries() {
  sim_client dump_mfts 2> /dev/null | python3 -c '
import re, sys
guid = start = None
for line in sys.stdin:
    m = re.search(r"guid (0x[0-9a-f]+)", line)
    if line.startswith("Multicast mlids") and m: guid = int(m.group(1), 16); continue
    if "Ports:" in line: start = line.index("Ports:") + len("Ports: "); continue
    m = re.match(r"(0x[0-9a-f]+)\s", line)
    if m and guid is not None and start is not None:
        for i, c in enumerate(line.rstrip("\n")):
            if c == "x" and i >= start: print(f"{guid:#018x} {int(m.group(1), 16):#06x} {(i - start) // 2}")
' | sort
}

# ibsim_reap: frees the ibsim slots of clients that died attached (killed by
# a signal, `timeout` among them, or crashed in umad2sim): ibsim keeps them,
# and once its 10 are taken every new client fails or hangs. Asks the console
# which clients are attached and disconnects those whose process is gone.
ibsim_reap() {
  [[ -n ${E2E_DIR:-} && -p $E2E_DIR/console ]] || return 0
  local mark n pid
  mark=$(wc -c < "$E2E_DIR/sim.out")
  echo Attached > "$E2E_DIR/console"
  sleep 0.2
  tail -c +$((mark + 1)) "$E2E_DIR/sim.out" | grep -oE 'Client [0-9]+: pid [0-9]+' |
    while read -r _ n _ pid; do
      # Gone, or a zombie (`timeout -s KILL` leaves its child to a PID 1
      # that may not reap it).
      [[ $(ps -o stat= -p "$pid" 2>/dev/null) == [^Z]* ]] || echo "X ${n%:}" > "$E2E_DIR/console"
    done
  sleep 0.1
}

# umad2sim_died RC: RC (and sim_client.err) say the client crashed inside
# umad2sim (ibsim 0.10): its receiver thread dereferences a released queue
# when the socket closes at exit or a MAD comes for a class with no agent.
umad2sim_died() { [[ $1 -eq 139 ]] || { [[ $1 -ne 0 ]] && grep -q "libumad2sim.so" sim_client.err; }; }

# sim_client CMD ARGS...: client, for a command that may run twice (a query):
# run again (up to 3 times) if umad2sim crashed it, or if `timeout` had to
# stop it (a hung umad2sim client, 124), with the dead clients' ibsim slots
# freed first. The command's own failures are returned as they are. Only the
# last run's output is passed on.
sim_client() {
  local rc=0 attempt
  client "$@" > sim_client.out 2> sim_client.err || rc=$?
  for attempt in 1 2 3; do
    umad2sim_died "$rc" || [[ $rc -eq 124 ]] || break
    echo "umad2sim crashed or hung $* (rc $rc); again" >&2
    ibsim_reap
    # On a loaded machine the crashes come in runs (four in a row seen with a
    # build beside the tests): give the load a moment before the next try.
    sleep "$attempt"
    rc=0
    client "$@" > sim_client.out 2> sim_client.err || rc=$?
  done
  cat sim_client.out
  cat sim_client.err >&2
  return $rc
}

# sim_delete CMD...: sim_client for a command that deletes something (an SA
# record): run again after a crash it would find nothing to delete and fail,
# so a umad2sim crash is let pass once, and the caller judges the effect.
sim_delete() {
  local rc=0
  client "$@" > sim_client.out 2> sim_client.err || rc=$?
  if umad2sim_died "$rc"; then
    echo "umad2sim crashed $* (rc $rc); its effect is judged after" >&2
    ibsim_reap
    rc=0
  fi
  cat sim_client.out
  cat sim_client.err >&2
  return $rc
}

# --- Several SMs on one fabric (failover) -----------------------------------
#   sm_start NAME KIND HOST PRIORITY [ARGS...]  an SM (KIND ibsm: `ibsm run`, or
#                                  opensm) attached at HOST with PRIORITY, run in
#                                  folder NAME/ (log NAME/sm.log, ibsm's control
#                                  socket NAME/ctl.sock), stopped at exit
#   sm_conf NAME KEY VALUE ...     writes NAME.conf (`key value` lines) and prints
#                                  its path, for `-F "$(sm_conf ...)"`
#   sm_log NAME, sm_pid NAME, sm_alive NAME
#   wait_log NAME PATTERN SECONDS [COUNT]  until PATTERN (grep -E) is in NAME's
#                                  log COUNT times (default 1); 1 on timeout
#   sm_kill NAME [SIGNAL]          signals it (default KILL) and reaps it; a
#                                  client killed by a signal keeps its ibsim slot
#   port_guid HOST, port_lid HOST  the port GUID and LID of HOST, from its PortInfo
#   sminfo_of [LID]                "STATE GUID PRIORITY" as sminfo at JUDGE_HOST sees
#                                  the SM at LID (default: the SM its port knows)
#   wait_master GUID SECONDS [LID] until sminfo_of says GUID is MASTER; 1 on timeout
#   lid_map OUT                    every port of the fabric as ibnetdiscover at
#                                  JUDGE_HOST reads it: "ca|sw GUID LID PORT" lines
#   check_routed TAG               dump_fts at JUDGE_HOST: every CA pair delivered
#                                  (ibsm check on TAG.ibnetdiscover, TAG.lfts)
#   check_sm_lid LID [MAP]         every CA port (of lid map MAP, default lids.before)
#                                  is Active and has SMLid LID; 1 and the first
#                                  port that is not, otherwise
#   judge_master NEW_HOST OLD_HOST|-  the SM at NEW_HOST is the master all see:
#                                  sminfo (the judge's own SM and NEW_HOST's LID)
#                                  says MASTER, OLD_HOST's SM says STANDBY, every
#                                  CA port has its LID as SMLid (20 s to get
#                                  there), no LID differs from lids.before (take
#                                  it with lid_map first), every CA pair routed
# JUDGE_HOST (default host-2) is the host the judges run from: not an SM's.
JUDGE_HOST=${JUDGE_HOST:-host-2}
declare -A SM_PIDS=()

sm_start() {
  local name=$1 kind=$2 host=$3 prio=$4; shift 4
  mkdir -p "$E2E_DIR/$name"
  local dir=$E2E_DIR/$name
  case $kind in
    ibsm)
      SIM_HOST=$host LD_PRELOAD="$UMAD2SIM" "$IBSM" run -p "$prio" -f "$dir/sm.log" -v --cache-dir "$dir/cache" \
        --control-socket "$dir/ctl.sock" "$@" > "$dir/out" 2>&1 &
      ;;
    opensm)
      # -d2: flush the log as it goes; cache and dumps in the SM's folder.
      (cd "$dir" && SIM_HOST=$host OSM_CACHE_DIR=$dir OSM_TMP_DIR=$dir LD_PRELOAD="$UMAD2SIM" \
        exec opensm -p "$prio" -d2 -f "$dir/sm.log" "$@" > "$dir/out" 2>&1) &
      ;;
    *) fail "sm_start: unknown SM kind $kind" ;;
  esac
  SM_PIDS[$name]=$!
  trap 'rc=$?; sm_stop_all; sm_daemon_stop; set +e; (exit $rc); e2e_cleanup' EXIT
}
sm_conf() {
  local name=$1; shift
  local file=$E2E_DIR/$name.conf
  : > "$file"
  while [[ $# -ge 2 ]]; do echo "$1 $2" >> "$file"; shift 2; done
  echo "$file"
}
sm_log() { echo "$E2E_DIR/$1/sm.log"; }
sm_pid() { echo "${SM_PIDS[$1]:-}"; }
sm_alive() { [[ -n ${SM_PIDS[$1]:-} ]] && kill -0 "${SM_PIDS[$1]}" 2>/dev/null; }
sm_kill() {
  local name=$1 sig=${2:-KILL} pid=${SM_PIDS[$1]:-}
  [[ -n $pid ]] || return 0
  kill "-$sig" "$pid" 2>/dev/null || true
  wait "$pid" 2>/dev/null || true
  unset "SM_PIDS[$name]"
}
sm_stop_all() {
  local name pid i
  for name in "${!SM_PIDS[@]}"; do kill -TERM "${SM_PIDS[$name]}" 2>/dev/null || true; done
  for name in "${!SM_PIDS[@]}"; do
    pid=${SM_PIDS[$name]}
    for i in $(seq 1 50); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
    kill -KILL "$pid" 2>/dev/null || true
    wait "$pid" 2>/dev/null || true
  done
  SM_PIDS=()
}
wait_log() {
  local name=$1 pattern=$2 seconds=$3 count=${4:-1} log n i
  log=$(sm_log "$name")
  for i in $(seq 1 $((seconds * 10))); do
    n=$(grep -cE "$pattern" "$log" 2>/dev/null || true)
    [[ ${n:-0} -ge $count ]] && return 0
    sleep 0.1
  done
  return 1
}
port_guid() { SIM_HOST=$1 sim_client timeout 10 smpquery -D nodeinfo 0 2>/dev/null | awk -F. '/^PortGuid/ {print $NF}'; }
port_lid() { SIM_HOST=$1 sim_client timeout 10 smpquery -D portinfo 0 2>/dev/null | awk -F. '/^Lid:/ {print $NF}'; }
sminfo_of() {
  local out
  out=$(SIM_HOST=$JUDGE_HOST sim_client timeout 10 sminfo -t 300 ${1:+"$1"} 2>/dev/null) || return 1
  # sminfo: sm lid 1 sm guid 0x2c90400000001, activity count 490 priority 15 state 3 SMINFO_MASTER
  awk '{for (i = 1; i <= NF; i++) {if ($i == "guid") g = $(i+1); if ($i == "priority") p = $(i+1); if ($i == "state") s = $(i+2)}}
       END {sub(",", "", g); sub("SMINFO_", "", s); if (s == "") exit 1; print s, g, p}' <<<"$out"
}
wait_master() {
  local guid=$1 seconds=$2 lid=${3:-} i seen
  for i in $(seq 1 $((seconds * 5))); do
    seen=$(sminfo_of $lid) || seen=""
    if [[ -n $seen ]]; then
      set -- $seen
      [[ $1 == MASTER && $(( $2 )) -eq $(( guid )) ]] && return 0
    fi
    sleep 0.2
  done
  return 1
}
lid_map() {
  SIM_HOST=$JUDGE_HOST sim_client timeout 20 ibnetdiscover > "$1.ibnetdiscover" 2>/dev/null || return 1
  # Switch: "switchguid=0x..." then "Switch N ... # "desc" base port 0 lid L lmc 0";
  # CA port: "[P](guid) ... # lid L lmc 0 ...".
  awk '/^switchguid=/ {split($1, a, /[=(]/); sw = a[2]}
       /^Switch/ {for (i = 1; i <= NF; i++) if ($i == "lid") {print "sw", sw, $(i+1), 0; break}}
       /^\[[0-9]+\]\([0-9a-f]+\)/ {split($1, b, /[][()]/); for (i = 1; i <= NF; i++) if ($i == "lid") {print "ca", "0x" b[4], $(i+1), b[2]; break}}' \
    "$1.ibnetdiscover" | sort > "$1"
  [[ -s $1 ]]
}
check_routed() {
  local tag=$1
  SIM_HOST=$JUDGE_HOST sim_client timeout 20 ibnetdiscover > "$tag.ibnetdiscover" 2>/dev/null || return 1
  SIM_HOST=$JUDGE_HOST sim_client timeout 20 dump_fts > "$tag.lfts" 2>/dev/null || return 1
  "$IBSM" check --topology "$tag.ibnetdiscover" --lfts "$tag.lfts" > "$tag.check" 2>&1
}
check_sm_lid() {
  local want=$1 map=${2:-lids.before} kind guid lid port info
  while read -r kind guid lid port; do
    [[ $kind == ca ]] || continue
    info=$(SIM_HOST=$JUDGE_HOST sim_client timeout 10 smpquery portinfo "$lid" "$port" 2>/dev/null) || { echo "lid $lid: no PortInfo"; return 1; }
    grep -qE "^SMLid:\.+$want\$" <<<"$info" && grep -qE "^LinkState:\.+Active" <<<"$info" ||
      { echo "lid $lid: $(grep -E '^(SMLid|LinkState)' <<<"$info" | tr -s '.' ' ' | tr '\n' ' ')"; return 1; }
  done < "$map"
}
state_of() { sminfo_of "$1" | awk '{print $1}'; }
judge_master() {
  local new=$1 old=$2 guid lid i why=""
  guid=$(port_guid "$new"); lid=$(port_lid "$new")
  wait_master "$guid" 30 || fail "sminfo at $JUDGE_HOST does not show $new ($guid) as MASTER: $(sminfo_of || true)"
  wait_master "$guid" 5 "$lid" || fail "sminfo of lid $lid: $(sminfo_of "$lid" || true)"
  if [[ $old != - ]]; then
    local old_lid
    old_lid=$(port_lid "$old")
    # A few tries: under load sminfo's Get can go unanswered within its
    # timeout, and that is silence, not a state.
    for i in $(seq 1 25); do [[ $(state_of "$old_lid") == STANDBY ]] && break; sleep 0.2; done
    [[ $(state_of "$old_lid") == STANDBY ]] || fail "the old master at $old (lid $old_lid) is $(sminfo_of "$old_lid" || echo silent), not STANDBY"
  fi
  for i in $(seq 1 100); do why=$(check_sm_lid "$lid") && break; sleep 0.2; done
  [[ -z $why ]] || fail "not every CA port knows SM LID $lid: $why"
  lid_map lids.after || fail "ibnetdiscover failed after the change"
  diff lids.before lids.after > lids.diff || fail "LIDs changed: $(head -6 lids.diff)"
  check_routed after || fail "the tables do not deliver every pair: $(tail -5 after.check)"
  echo "$new is MASTER (lid $lid), every CA port points at it, $(wc -l < lids.after) LIDs unchanged, every CA pair routed"
}

# The fabric and its forwarding tables as ibnetdiscover and dump_fts read
# them back (fabric.ibnetdiscover, fabric.lfts), and the CA ports' LIDs,
# ascending, in the array ca_lids.
read_back_fabric() {
  sim_client timeout 20 ibnetdiscover > fabric.ibnetdiscover 2>/dev/null || fail "ibnetdiscover failed"
  sim_client timeout 20 dump_fts > fabric.lfts 2>/dev/null || fail "dump_fts failed"
  mapfile -t ca_lids < <(grep -oE '^\[1\]\([0-9a-f]+\)[^#]*# lid [0-9]+' fabric.ibnetdiscover | grep -oE '[0-9]+$' | sort -n)
}

# The SA's PathRecord SL of every ordered pair of ca_lids, as "SLID DLID SL"
# lines in FILE, only the pairs off SL 0 (the layout of `ibsm route --sl`).
# The SL is taken from the record of that SLID and DLID: an RMPP resend of the
# SA to an earlier saquery that has exited can reach a later one with the
# same TID (IBSIM.md) and answer it with another pair's record; then it asks
# again.
sa_path_sls() {
  local file=$1 s d out sl try
  : > "$file"
  for s in "${ca_lids[@]}"; do
    for d in "${ca_lids[@]}"; do
      [[ $s == "$d" ]] && continue
      for try in 1 2 3; do
        out=$(sim_client timeout 10 saquery -p --slid "$s" --dlid "$d" 2>&1) || fail "saquery -p $s -> $d: $out"
        # "slid....7", "dlid....10", "sl......0x1": the sl of the record of s -> d.
        sl=$(awk -F. -v s="$s" -v d="$d" '/^[[:space:]]*dlid\./ {dl = $NF} /^[[:space:]]*slid\./ {sd = $NF}
          /^[[:space:]]*sl\./ && sd == s && dl == d {print $NF; exit}' <<<"$out")
        [[ -n $sl ]] && break
        echo "saquery -p $s -> $d: no record of that pair (another query's answer?); again" >&2
      done
      [[ $sl =~ ^0x[0-9a-fA-F]+$ ]] || fail "saquery -p $s -> $d shows no sl: $out"
      sl=$((sl))
      (( sl == 0 )) || echo "$s $d $sl" >> "$file"
    done
  done
}
