#!/usr/bin/env bash
# The daemon's signals and its systemd side, on ibsim:
# - Type=notify: READY=1 once the first sweep settled, a STATUS= line with
#   the state, STOPPING=1 on SIGTERM (a stand-in NOTIFY_SOCKET listener);
# - the journal: with JOURNAL_STREAM naming its stderr, log lines also go
#   there with sd-daemon's <N> priority prefixes;
# - SIGHUP applies a reloadable key (log_level: info lines stop), refuses
#   a restart-only one (sm_key: logged, kept, the SA still trusts the old
#   key), and a bad file changes nothing (logged with file:line);
# - SIGUSR1 after the log file was moved: a new file at the path.
source "$(dirname "$0")/lib.sh"
e2e_setup "$1"

"$IBSM" topo leaf-spine --leaves 2 --spines 1 --hosts 2 -o fabric.net
export SIM_HOST=host-0
ibsim_start "$PWD/fabric.net"

# The notify socket systemd would listen on: every datagram, one per line.
notify_name="ibsm-notify-$$-$RANDOM"
python3 -c '
import socket, sys
s = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
s.bind("\0" + sys.argv[1])
open("notify.bound", "w").close()
with open("notify.out", "a") as out:
    while True:
        out.write(s.recv(4096).decode().replace("\n", " ") + "\n"); out.flush()
' "$notify_name" &
notify_pid=$!
for _ in $(seq 1 50); do [[ -f notify.bound ]] && break; sleep 0.1; done
[[ -f notify.bound ]] || fail "the notify listener did not start"

printf 'log_level 2\nsm_key 0x1\nsweep_interval 10\n' > site.conf
: > daemon.err
# JOURNAL_STREAM names the stream as "device:inode" (systemd.exec(5)).
journal_stream=$(stat -c '%d:%i' daemon.err)
NOTIFY_SOCKET="@$notify_name" JOURNAL_STREAM=$journal_stream LD_PRELOAD="$UMAD2SIM" \
  "$IBSM" run -F site.conf -f daemon.log --cache-dir cache > daemon.out 2>> daemon.err &
daemon=$!
stop_all() {
  kill "$daemon" 2>/dev/null || true; wait "$daemon" 2>/dev/null || true
  kill "$notify_pid" 2>/dev/null || true; wait "$notify_pid" 2>/dev/null || true
}
trap 'rc=$?; stop_all; (exit $rc); e2e_cleanup' EXIT

DAEMON_PID=$daemon
DAEMON_LOG=daemon.err
in_file() { grep -qE -- "$2" "$1" 2>/dev/null; }

wait_for 20 "READY=1" in_file notify.out '^READY=1 STATUS=MASTER: SUBNET UP, 7 nodes'
in_file daemon.log 'SUBNET UP' || fail "READY=1 came before the subnet was up"
in_file daemon.err '^<6>tools: ready: MASTER after the first sweep' || fail "no <6> info line on the journal stream: $(head -3 daemon.err)"

# SIGUSR1: the log moved away (logrotate), a new file at the path.
mv daemon.log daemon.log.1
kill -USR1 "$daemon"
wait_for 10 "a new log file" in_file daemon.log 'SIGUSR1: log file reopened'
in_file daemon.log.1 'SIGUSR1' && fail "the moved file got the lines after SIGUSR1"

# SIGHUP: log_level applies (1: warnings and errors only), sm_key is refused
# and kept.
printf 'log_level 1\nsm_key 0x22\nsweep_interval 10\n' > site.conf
kill -HUP "$daemon"
wait_for 10 "the reload" in_file daemon.log 'SIGHUP: sm_key: needs a restart; kept 0x0000000000000001'
in_file daemon.log 'SIGHUP: log_level 2 -> 1' || fail "the log_level change is not logged"
in_file daemon.err '^<4>tools: SIGHUP: sm_key: needs a restart' || fail "the refusal is no <4> warning on the journal"

# A bad file: nothing changes, file:line logged.
printf 'log_level 2\nsweep_interval ten\n' > site.conf
kill -HUP "$daemon"
wait_for 10 "the bad file reported" in_file daemon.log 'SIGHUP: nothing changed, configuration kept: site.conf:2: sweep_interval'
in_file daemon.log 'SIGHUP: log_level 1 -> 2' && fail "a bad file changed log_level"
# Written before the error above, in the same thread: at log_level 1 the
# first reload's info lines and both heavy sweeps' SUBNET UP are left out.
in_file daemon.log 'configuration reloaded|SUBNET UP' && fail "info lines at log_level 1: $(grep -E 'reloaded|SUBNET UP' daemon.log)"
# The SA still trusts SM_Key 1 (P_Key records are for trusted requesters).
sim_client saquery --smkey 1 PKTR > pktr.out 2>&1 || fail "saquery --smkey 1 PKTR failed: $(cat pktr.out)"
grep -q "PKeyTableRecord" pktr.out || fail "the SA no longer trusts SM_Key 1: $(head -5 pktr.out)"

in_file notify.out '^STOPPING=1' && fail "STOPPING=1 before SIGTERM"
kill -TERM "$daemon"
rc=0; wait "$daemon" || rc=$?
daemon=""
[[ $rc -eq 0 ]] || fail "the daemon exited $rc on SIGTERM"
for _ in $(seq 1 20); do in_file notify.out '^STOPPING=1' && break; sleep 0.1; done
in_file notify.out '^STOPPING=1' || fail "no STOPPING=1: $(cat notify.out)"
echo "notify, journal, SIGHUP, SIGUSR1: as expected"
