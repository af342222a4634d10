#!/usr/bin/env bash
# Multicast forwarding on ibsim, judged by the diag tools: hosts of a
# leaf/spine fabric join groups through the SA (`ibsm query MCMR --set`), and
# the SM programs the switches' MFTs.
#  - dump_mfts (what the switches hold) equals what ibsm computed: the
#    opensm.mcfdbs it writes after every sweep and every join or leave it
#    programs;
#  - ibtracert -m MLID reaches every member from every member, send-only
#    members included; after a leave, not the member that left;
#  - ibdmchk on the dumps (opensm-subnet.lst, opensm.fdbs, opensm.mcfdbs)
#    scans every group, finds no loop and no error;
#  - a second SM run on the same fabric (after SIGHUP: a heavy sweep with
#    every tree rebuilt) sets no MFT block.
source "$(dirname "$0")/lib.sh"
e2e_setup "$1"

fabric_start --topo leaf-spine --leaves 3 --spines 2 --hosts 4
counter=${UMAD_COUNT:?the path of umad_count.so}
# The daemon with its MADs counted (umad_count; the window: the sweep after
# SIGHUP), dumps after each sweep.
SIM_HOST=host-0 UMAD_MARK_START=$PWD/mark.start UMAD_MARK_END=$PWD/mark.end UMAD_MARK_FILE=$PWD/window.count \
  LD_PRELOAD="$counter $UMAD2SIM" "$IBSM" run -f daemon.log -v \
  --cache-dir cache --dump-dir "$PWD/dump" -s 10 --control-socket "$PWD/ctl.sock" > daemon.out 2>&1 &
DAEMON_PID=$!
trap 'rc=$?; sm_daemon_stop; set +e; (exit $rc); e2e_cleanup' EXIT
up_count() {  # up_count N: wait (20 s at most) until the daemon has logged N subnets up
  local i
  for i in $(seq 1 200); do
    [[ $(grep -cE "SUBNET UP: [0-9]+ nodes" daemon.log 2> /dev/null || true) -ge $1 ]] && return 0
    kill -0 "$DAEMON_PID" 2> /dev/null || return 1
    sleep 0.1
  done
  return 1
}
up_count 1 || fail "the subnet did not come up: $(tail -5 daemon.log)"

bcast=ff12:401b:ffff::ffff:ffff
app=ff15:1234::42
# Every tool through sim_client: umad2sim sometimes crashes a client at exit.
q() { local host=$1; shift; SIM_HOST=$host sim_client "$IBSM" query "$@"; }
gid_of() { SIM_HOST=$1 sim_client ibaddr | awk '{print $2}'; }
lid_of() { SIM_HOST=$1 sim_client ibaddr -L | awk '{print $3}'; }
join() {  # join HOST MGID JOINSTATE [COMPONENTS...]
  local host=$1 mgid=$2 state=$3; shift 3
  q "$host" MCMR --set MGID="$mgid" PortGID="$(gid_of "$host")" JoinState="$state" "$@" --json > "join.$host.$mgid" ||
    fail "$host's join of $mgid failed: $(cat "join.$host.$mgid")"
}
leave() {  # leave HOST MGID JOINSTATE
  SIM_HOST=$1 sim_delete "$IBSM" query MCMR --delete MGID="$2" PortGID="$(gid_of "$1")" JoinState="$3" > "leave.$1" 2>&1 ||
    fail "$1's leave of $2 failed: $(cat "leave.$1")"
}

# dump_entries: the same (switch GUID, MLID, port) lines as mft_entries, from
# the opensm.mcfdbs ibsm wrote.
dump_entries() {
  python3 - dump/opensm.mcfdbs <<'EOF' | sort
import re, sys
guid = None
for line in open(sys.argv[1]):
    if line.startswith("Switch"): guid = int(line.split()[1], 16); continue
    m = re.match(r"(0x[0-9A-Fa-f]+) :(.*)", line)
    if m and guid is not None:
        for port in m.group(2).split(): print(f"{guid:#018x} {int(m.group(1), 16):#06x} {int(port, 16)}")
EOF
}
# agree TAG: the switches hold what ibsm computed, as its opensm.mcfdbs says
# (rewritten after each change it programs; waits for the SM to program one).
agree() {
  local i
  for i in $(seq 1 50); do
    mft_entries > "$1.switches"
    dump_entries > "$1.dump"
    [[ -s $1.switches ]] && diff -q "$1.switches" "$1.dump" > /dev/null && return 0
    sleep 0.2
  done
  fail "$1: the switches' MFTs differ from ibsm's: $(diff "$1.switches" "$1.dump" | head -10)"
}
# reaches MLID FROM TO: ibtracert -m MLID FROM TO succeeds and ends at TO.
reaches() {
  sim_client ibtracert -m "$1" "$2" "$3" > tracert.out 2>&1 && grep -q "^To .* lid $3-" tracert.out
}

# --- Joins: four full members of the broadcast group on three leaves; a new
# group with a full member, a non-member and a send-only non-member.
members=(host-1 host-2 host-5 host-9)
for h in "${members[@]}"; do join "$h" "$bcast" 1; done
join host-3 "$app" 1 Q_Key=0x22 P_Key=0xffff SL=0 FlowLabel=0 TClass=0
join host-7 "$app" 2
join host-10 "$app" 4
agree joined
[[ $(wc -l < joined.switches) -gt 0 ]] || fail "no switch holds a multicast entry"
echo "switches hold what ibsm computed: $(wc -l < joined.switches) (switch, MLID, port) entries"

# The groups' MLIDs, as the joins answered them.
mlid_of() { python3 -c 'import json, sys; print(hex(json.load(open(sys.argv[1]))[0]["MLID"]))' "$1"; }
mlid_b=$(mlid_of "join.host-1.$bcast")
mlid_a=$(mlid_of "join.host-3.$app")
[[ $mlid_a != "$mlid_b" ]] || fail "two groups at one MLID $mlid_a"

# --- ibtracert -m: every member from every member.
declare -A lid
for h in "${members[@]}" host-3 host-7 host-10 host-11; do lid[$h]=$(lid_of "$h"); done
traces=0
for s in "${members[@]}"; do
  for d in "${members[@]}"; do
    [[ $s == "$d" ]] && continue
    reaches "$mlid_b" "${lid[$s]}" "${lid[$d]}" || fail "ibtracert -m $mlid_b $s -> $d failed: $(cat tracert.out)"
    traces=$((traces + 1))
  done
done
for s in host-3 host-7 host-10; do
  for d in host-3 host-7 host-10; do
    [[ $s == "$d" ]] && continue
    reaches "$mlid_a" "${lid[$s]}" "${lid[$d]}" || fail "ibtracert -m $mlid_a $s -> $d failed: $(cat tracert.out)"
    traces=$((traces + 1))
  done
done
! reaches "$mlid_b" "${lid[host-1]}" "${lid[host-11]}" || fail "ibtracert -m $mlid_b reaches host-11, no member"
echo "ibtracert -m reaches every member from every member ($traces traces), and no other host"

# --- A leave: host-9 was the only member on its leaf.
leave host-9 "$bcast" 1
agree left
! reaches "$mlid_b" "${lid[host-1]}" "${lid[host-9]}" || fail "ibtracert -m $mlid_b still reaches host-9 after its leave"
reaches "$mlid_b" "${lid[host-1]}" "${lid[host-5]}" || fail "ibtracert -m $mlid_b lost host-5 with host-9's leave"
echo "after a leave: the switches hold what ibsm computed, and the tree no longer reaches the member"

# --- SIGHUP: a heavy sweep rebuilds every tree, sets no MFT block, and dumps.
touch mark.start
kill -HUP "$DAEMON_PID"
up_count 2 || fail "no heavy sweep after SIGHUP: $(tail -5 daemon.log)"
agree swept
touch mark.end
echo "after a heavy sweep opensm.mcfdbs still equals dump_mfts"

# --- ibdmchk on the dumps: every group scanned, no loop, no error.
# ibdmchk (ibutils 1.5.7) crashes at exit, after its report: judged by the report.
(cd dump && ibdmchk -s opensm-subnet.lst -f opensm.fdbs -m opensm.mcfdbs > ../ibdmchk.out 2>&1) 2> /dev/null || true
groups=$(grep -c -- "-I- Multicast Group:" ibdmchk.out || true)
[[ $groups -eq 2 ]] || fail "ibdmchk scanned $groups multicast groups, expected 2: $(grep -- '-[EI]-' ibdmchk.out | tail -5)"
grep -q -- "-I- Multicast Group:${mlid_b^^}" ibdmchk.out 2>/dev/null ||
  grep -qi -- "-I- Multicast Group:$mlid_b" ibdmchk.out || fail "ibdmchk did not scan group $mlid_b"
if grep -q -- "^-E-" ibdmchk.out; then fail "ibdmchk errors: $(grep -- '^-E-' ibdmchk.out | head -5)"; fi
grep -q -- "-I- no credit loops found" ibdmchk.out || fail "ibdmchk did not finish: $(tail -5 ibdmchk.out)"
echo "ibdmchk: $groups multicast groups, no loop, no error"

# What the SM sent in the sweep after SIGHUP (the daemon writes it at exit).
sm_daemon_stop
[[ -s window.count ]] || fail "umad_count wrote no window"
sets_in_window() { tr ' ' '\n' < window.count | awk -F'[:=]' -v a="$1" '($1=="0x1"||$1=="0x81") && $2=="0x2" && $3==a {n+=$4} END {print n+0}'; }
[[ $(awk '{print $3}' window.count) -gt 0 ]] || fail "the sweep after SIGHUP sent nothing: $(cat window.count)"
mft_sets=$(sets_in_window 0x1b)
[[ $mft_sets -eq 0 ]] || fail "the sweep after SIGHUP set $mft_sets MFT blocks on unchanged groups"
echo "the sweep after SIGHUP sent $(awk '{print $3}' window.count) MADs and no MFT block"
