#!/usr/bin/env bash
# bring_up.sh NAME [options] NETFILE | NAME [options] --topo KIND [topo args...]
# `ibsm run -o` brings a fabric nobody configured up on ibsim, and the real
# tools judge it:
#  - iblinkinfo: every cabled port Active/LinkUp, at the width and speed
#    ibnetdiscover reports for the cable;
#  - ibnetdiscover: every port has a LID of its own;
#  - dump_fts: the tables the switches hold deliver every CA-to-CA pair,
#    traced hop by hop (`ibsm check`; a fixed sample of sources on big
#    fabrics), and ibtracert takes the same switches on a sample of pairs;
#  - ibdmchk on the OpenSM-format dumps ibsm writes: every CA-to-CA path
#    found, no error, no credit loop;
#  - a second `ibsm run -o` gives every port the same LID and sends no LFT
#    block (counted by umad_count around umad_send, not by ibsm);
#  - `ibsm run -o --sim` (SimFabric, no ibsim) gives the same LIDs and LFTs;
#  - `ibsm route` (offline, on the netfile) gives the same LIDs and LFTs, in
#    OpenSM's dump format and in dump_fts's, compared with what dump_fts
#    read back from the switches.
# Options (before the fabric):
#   --ibsm ARGS     extra arguments for both ibsm runs (e.g. "-l 1 -R updn");
#                   only -R, -l, -a and -U when `ibsm route` is to compare
#   --engine NAME   the routing engine the runs must report using; `ibsm
#                   check --engine NAME` then fails on a channel dependency
#                   cycle if NAME is deadlock-free
#   --roots NAMES   write the node GUIDs of these switches (by description,
#                   comma separated) to a root GUID file and pass -a FILE
#   --lfts-from E   route the netfile offline with engine E (`ibsm route`)
#                   and run with -R file,no_fallback -U on its tables
#   --credit-loops-allowed  ibdmchk may find credit loops (an engine that is
#                   not deadlock-free on a fabric with rings)
#   --before CMD    an ibsim console command to run before ibsm (a fault);
#                   the SimFabric and `ibsm route` comparisons are then skipped
#   --stride N      trace from every N-th source only
# SIM_HOST names the node ibsm and the tools attach at.
source "$(dirname "$0")/lib.sh"
name=$1; shift
e2e_setup "$name"

ibsm_args=() before=() stride=1 engine="" roots="" lfts_from="" loops_allowed=0
while [[ $# -gt 0 ]]; do
  case $1 in
    --ibsm) read -ra ibsm_args <<< "$2"; shift 2 ;;
    --engine) engine=$2; shift 2 ;;
    --roots) roots=$2; shift 2 ;;
    --lfts-from) lfts_from=$2; shift 2 ;;
    --credit-loops-allowed) loops_allowed=1; shift ;;
    --before) before+=("$2"); shift 2 ;;
    --stride) stride=$2; shift 2 ;;
    *) break ;;
  esac
done
fabric_start "$@"
netfile=$NETFILE
sm_node=()
[[ -n "${SIM_HOST:-}" ]] && sm_node=(--sm-node "$SIM_HOST")

# Root switches by description: their GUIDs as ibnetdiscover reads them
# from the unconfigured fabric.
if [[ -n $roots ]]; then
  client ibnetdiscover > before.ibnetdiscover 2>/dev/null || fail "ibnetdiscover before the run failed"
  : > roots.guids
  for r in ${roots//,/ }; do
    guid=$(awk -v d="\"$r\"" '/^switchguid=/ {split($1, a, /[=(]/); g=a[2]} /^Switch/ && index($0, "# " d) {print g; exit}' before.ibnetdiscover)
    [[ -n $guid ]] || fail "no switch described \"$r\" in ibnetdiscover's output"
    echo "$guid  # $r" >> roots.guids
  done
  ibsm_args+=(-a "$PWD/roots.guids")
fi
# The file engine on tables `ibsm route` computed offline.
if [[ -n $lfts_from ]]; then
  "$IBSM" route -t "$netfile" "${sm_node[@]}" -R "$lfts_from,no_fallback" "${ibsm_args[@]}" --lfts offline.lfts \
    2> offline.err || fail "ibsm route -R $lfts_from failed: $(cat offline.err)"
  ibsm_args+=(-R file,no_fallback -U "$PWD/offline.lfts")
fi
for cmd in "${before[@]}"; do ibsim_cmd "$cmd"; done

counter=${UMAD_COUNT:?the path of umad_count.so}
ibsm_run() {  # ibsm_run TAG: one `ibsm run -o` through libibumad, MADs counted into TAG.count
  local tag=$1
  UMAD_COUNT_FILE=$PWD/$tag.count LD_PRELOAD="$counter $UMAD2SIM" "$IBSM" run -o --cache-dir cache \
    --dump-dir "dump.$tag" -f "$tag.log" "${ibsm_args[@]}" > "$tag.out" 2>&1 ||
    fail "ibsm run -o ($tag) failed: $(cat "$tag.out")"
  head -2 "$tag.out"
}
# Sets of an attribute (hex id) in a count file, LID-routed and directed-route.
sets_of() { tr ' ' '\n' < "$1" | awk -F'[:=]' -v a="$2" '($1=="0x1"||$1=="0x81") && $2=="0x2" && $3==a {n+=$4} END {print n+0}'; }

ibsm_run first
if [[ -n $engine ]]; then
  grep -q "routing $engine\$" first.out || fail "the run did not route with $engine: $(head -1 first.out)"
fi
[[ $(sets_of first.count 0x15) -gt 0 ]] || fail "the first run set no PortInfo at all"

# --- iblinkinfo: every cabled port Active/LinkUp, width and speed as cabled.
client ibnetdiscover > ibnetdiscover.out 2> ibnetdiscover.err || fail "ibnetdiscover failed: $(cat ibnetdiscover.err)"
client iblinkinfo -l > iblinkinfo.out 2> iblinkinfo.err || fail "iblinkinfo failed: $(cat iblinkinfo.err)"
cabled=$(grep -c '==(' iblinkinfo.out || true)
active=$(grep '==(' iblinkinfo.out | grep -c 'Active/  LinkUp' || true)
unplugged=$(grep '==(' iblinkinfo.out | grep -cE '==\( +(Down|Disabled)/ *(Polling|Disabled|Sleep)\)==> +\[ *\] ""' || true)
[[ $active -gt 0 && $((active + unplugged)) -eq $cabled ]] ||
  fail "iblinkinfo: $active of $((cabled - unplugged)) cabled port lines Active/LinkUp: $(grep '==(' iblinkinfo.out | grep -v 'Active/  LinkUp' | head -5)"
# ibnetdiscover prints each cable's rate as "4xQDR"; iblinkinfo the width and lane speed.
while read -r width speed; do
  grep -q "==( *${width^^} *${speed} Gbps Active" iblinkinfo.out || fail "no Active link at ${width}x ${speed} Gbps as cabled"
done < <(grep -oE 'lid [0-9]+ [0-9]+x[A-Z]+' ibnetdiscover.out | awk '{print $3}' | sort -u |
         sed -E 's/^([0-9]+)x(SDR|DDR|QDR|FDR10|FDR|EDR|HDR|NDR)$/\1X \2/; s/ SDR$/ 2.5/; s/ DDR$/ 5.0/; s/ QDR$/ 10.0/; s/ FDR10$/ 10.0/; s/ FDR$/ 14.0/; s/ EDR$/ 25.0/; s/ HDR$/ 50.0/; s/ NDR$/ 100.0/')

# --- LIDs unique, every pair delivered by what the switches hold.
sim_client dump_fts > lfts.out 2> lfts.err || fail "dump_fts failed: $(cat lfts.err)"
check_engine=()
[[ -n $engine ]] && check_engine=(--engine "$engine")
"$IBSM" check --topology ibnetdiscover.out --lfts lfts.out --stride "$stride" "${check_engine[@]}" > check.out ||
  fail "ibsm check on the tables read back: $(cat check.out)"
cat check.out

# --- ibtracert takes the same switches as the tables do, on a sample of pairs.
mapfile -t ca_lids < <(awk '/^(Ca|Rt)/ {ca=1; next} /^$/ {ca=0} ca && /^\[/ {for (i=1;i<=NF;i++) if ($i=="lid") {print $(i+1); break}}' ibnetdiscover.out | sort -n)
n=${#ca_lids[@]}
[[ $n -ge 2 ]] || fail "fewer than two CA ports with a LID"
pairs=("${ca_lids[0]} ${ca_lids[n-1]}" "${ca_lids[n-1]} ${ca_lids[0]}" "${ca_lids[n/2]} ${ca_lids[1]}" "${ca_lids[1]} ${ca_lids[n/3]}")
for pair in "${pairs[@]}"; do
  read -r s d <<< "$pair"
  [[ $s == "$d" ]] && continue
  client ibtracert "$s" "$d" > tracert.out 2>&1 || fail "ibtracert $s $d failed: $(cat tracert.out)"
  awk '/^\[/ { out=substr($1,2,length($1)-2); if (g!="") print g, "in", in_, "out", out+0; g=""
               if (match($0, /switch port \{0x[0-9a-f]+\}\[[0-9]+\]/)) { t=substr($0,RSTART,RLENGTH); split(t, a, /[{}\[\]]/); g=a[2]; in_=a[4]+0 } }' \
    tracert.out > theirs.path
  "$IBSM" check --topology ibnetdiscover.out --lfts lfts.out --trace "$s:$d" --stride 1000000 |
    awk '/^trace/ {on=1; next} on && /^  0x/ {print $1, $2, $3, $4, $5; next} {on=0}' > ours.path
  diff -u theirs.path ours.path > /dev/null || fail "ibtracert $s -> $d differs from the tables' path: $(diff theirs.path ours.path)"
done
echo "ibtracert agrees on ${#pairs[@]} pairs"

# --- ibdmchk on the OpenSM-format dumps.
cas=$(grep -cE '^(Ca|Rt)' ibnetdiscover.out)
ca_ports=$n
if ! grep -q '^Switch' ibnetdiscover.out; then
  echo "ibdmchk skipped: it traces paths from switches only, and this fabric has none"
else
(cd dump.first && ibdmchk -s opensm-subnet.lst -f opensm.fdbs -m opensm.mcfdbs > ../ibdmchk.out 2>&1) || true
grep -q -- "-I- Scanned:$((ca_ports * (ca_ports - 1))) CA to CA paths" ibdmchk.out ||
  fail "ibdmchk did not scan all $((ca_ports * (ca_ports - 1))) CA to CA paths: $(grep -- '-[EI]-' ibdmchk.out | tail -5)"
if [[ $loops_allowed -eq 1 ]]; then
  # Credit loops may exist; ibdmchk and ibsm's own channel dependency check
  # must then agree on whether there is one.
  if grep -q -- "-E- credit loops in routing" ibdmchk.out; then theirs=cycle
  elif grep -q -- "-I- no credit loops found" ibdmchk.out; then theirs=acyclic
  else fail "ibdmchk did not finish its credit loop check"; fi
  if grep -q "cdg cycle" check.out; then ours=cycle; else ours=acyclic; fi
  [[ $theirs == "$ours" ]] || fail "ibdmchk says $theirs, ibsm check says $ours"
  echo "ibdmchk: $((ca_ports * (ca_ports - 1))) CA to CA paths; channel dependencies $theirs, as ibsm check says (allowed)"
else
grep -q -- "-I- no credit loops found" ibdmchk.out || fail "ibdmchk found credit loops or did not finish"
if grep -q -- "^-E-" ibdmchk.out; then fail "ibdmchk errors: $(grep -- '^-E-' ibdmchk.out | head -5)"; fi
echo "ibdmchk: $((ca_ports * (ca_ports - 1))) CA to CA paths, no error, no credit loop ($cas CAs)"
fi
fi

# --- a second run: same LIDs, no LFT block, nothing rewritten.
ibsm_run second
client ibnetdiscover > ibnetdiscover.second 2>/dev/null || fail "ibnetdiscover failed after the second run"
diff <(grep -oE 'lid [0-9]+' ibnetdiscover.out) <(grep -oE 'lid [0-9]+' ibnetdiscover.second) > /dev/null ||
  fail "the second run changed LIDs"
lft_sets=$(sets_of second.count 0x19)
[[ $lft_sets -eq 0 ]] || fail "the second run sent $lft_sets LFT blocks"
pi_sets=$(sets_of second.count 0x15)
echo "second run: $(awk '{print $3}' second.count) MADs, 0 LFT blocks, $pi_sets PortInfo sets, same LIDs"
[[ $pi_sets -eq 0 ]] || fail "the second run set PortInfo $pi_sets times on a configured fabric"

# --- SimFabric: the same LIDs and LFTs without ibsim.
if [[ ${#before[@]} -eq 0 ]]; then
  sim_node=()
  [[ -n "${SIM_HOST:-}" ]] && sim_node=(--sim-node "$SIM_HOST")
  "$IBSM" run -o --sim "$netfile" "${sim_node[@]}" --cache-dir simcache --dump-dir dump.sim -f sim.log \
    "${ibsm_args[@]}" > sim.out 2>&1 || fail "ibsm run -o --sim failed: $(cat sim.out)"
  diff -u dump.first/opensm-lfts.dump dump.sim/opensm-lfts.dump > lfts.diff || fail "SimFabric LFTs differ: $(head -20 lfts.diff)"
  diff -u <(sort cache/guid2lid) <(sort simcache/guid2lid) > lids.diff || fail "SimFabric LIDs differ: $(head lids.diff)"
  echo "SimFabric gives the same LIDs and LFTs"
fi

# --- ibsm route: the same LIDs and LFTs offline, from the netfile alone.
if [[ ${#before[@]} -eq 0 ]]; then
  "$IBSM" route -t "$netfile" "${sm_node[@]}" "${ibsm_args[@]}" --format opensm --lfts route.dump \
    --guid2lid route.guid2lid 2> route.err || fail "ibsm route failed: $(cat route.err)"
  diff -u dump.first/opensm-lfts.dump route.dump > route.diff || fail "ibsm route's LFTs differ: $(head -20 route.diff)"
  diff -u <(sort cache/guid2lid) <(sort route.guid2lid) > route-lids.diff || fail "ibsm route's LIDs differ: $(head route-lids.diff)"
  # Its dump_fts format against what dump_fts read from the switches:
  # (switch GUID, LID, port) triples. ibroute leaves out the top LID when it
  # is a multiple of 64, so LIDs beyond the highest it listed are left out.
  "$IBSM" route -t "$netfile" "${sm_node[@]}" "${ibsm_args[@]}" --lfts route.lfts 2> route.err ||
    fail "ibsm route failed: $(cat route.err)"
  triples() {
    awk 'function hex(s,  i, v) { v = 0; for (i = 3; i <= length(s); i++) v = v * 16 + index("0123456789abcdef", substr(s, i, 1)) - 1; return v }
         /^Unicast lids/ {for (i=1;i<=NF;i++) if ($i=="guid") g=$(i+1); next}
         /^0x[0-9a-f]+ [0-9]+ :/ {print g, hex($1), $2+0}' "$1"
  }
  top=$(triples lfts.out | awk '$2>m {m=$2} END {print m+0}')
  diff <(triples lfts.out | sort) <(triples route.lfts | awk -v t="$top" '$2<=t' | sort) > route-lfts.diff ||
    fail "ibsm route's dump_fts output differs from the switches' tables: $(head route-lfts.diff)"
  echo "ibsm route gives the same LIDs and LFTs ($(wc -l < route-lfts.diff) differences in $(triples lfts.out | wc -l) entries)"
fi
