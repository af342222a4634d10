#!/usr/bin/env bash
# status_page.sh NAME OUTDIR: the status page in a real browser (headless
# Chromium), for a small fat tree that `ibsm run -o` brought up on ibsim
# (topology from ibnetdiscover, tables read back with dump_fts) and for a
# torus routed offline by `ibsm route`; both pages by `ibsm check
# --status-page`, the renderer the daemon serves; then the page the daemon
# itself serves at / on its metrics listener, with the performance manager
# on and errors raised on one switch port (ibsim's PerformanceSet), whose
# link must be drawn in the error colour. The screenshots are kept in OUTDIR
# and judged:
#  - a PNG of the window's size;
#  - the switch boxes' fill, the CA marks and at least two load colours of
#    the legend (the most loaded step among them) are in the pixels, beyond
#    the legend's own swatches;
#  - the page's text, as Chromium's DOM holds it, names every switch and
#    says every pair is delivered; no error colour where no errors are given,
#    the error colour on the live page.
source "$(dirname "$0")/lib.sh"
e2e_setup "$1"
out=${2:?the output directory for the screenshots}
mkdir -p "$out"
here=$(cd "$(dirname "$0")" && pwd)
command -v chromium > /dev/null || fail "chromium is not installed (scripts/install-deps.sh installs it)"

# The colours of sm/status_page/load_colour.h.
load_colours=('#9ecae1' '#4292c6' '#08519c' '#f16913' '#7f2704')
top_colour='#7f2704' switch_fill='#c7e9c0' endpoint_fill='#525252' error_colour='#e41a1c'
width=1200 height=1400
legend=$((28 * 10))  # pixels of each colour's swatch in the legend (the page's CSS: .legend i)

browse() {  # browse PAGE PNG: a screenshot and the DOM (PNG.dom) of the page (a file, or a URL)
  local page=$1 png=$2 url=$1
  [[ $page == http* ]] || url="file://$PWD/$page"
  page=$(basename "$png" .png)
  timeout 120 chromium --headless --no-sandbox --disable-gpu --hide-scrollbars --force-color-profile=srgb \
    --user-data-dir="$E2E_DIR/chromium" --window-size="$width,$height" --screenshot="$png" \
    "$url" > "$page.log" 2>&1 || fail "chromium failed on $page: $(tail -5 "$page.log")"
  timeout 120 chromium --headless --no-sandbox --disable-gpu --user-data-dir="$E2E_DIR/chromium" \
    --dump-dom "$url" > "$png.dom" 2> "$page.dom.log" || fail "chromium --dump-dom failed on $page"
}

judge() {  # judge NAME NETFILE SWITCHES [URL [ERRORS]]: the screenshot NAME.png and its DOM
  local name=$1 netfile=$2 switches=$3 png="$out/$1.png" url=${4:-$1.html} errors=${5:-no}
  browse "$url" "$png"
  python3 "$here/png_colours.py" "$png" "$switch_fill" "$endpoint_fill" "$error_colour" "${load_colours[@]}" \
    > "$name.colours" || fail "$png is no PNG Chromium could have written"
  echo "$name: $(tr '\n' ' ' < "$name.colours")"
  read -r _ w h < <(head -1 "$name.colours")
  [[ $w == "$width" && $h == "$height" ]] || fail "$png is ${w}x$h, not ${width}x$height"
  count() { awk -v c="$1" '$1 == c {print $2}' "$name.colours"; }
  # A labelled switch box is 96x24 pixels, less its border and label.
  [[ $(count "$switch_fill") -ge $((switches * 1200)) ]] ||
    fail "$name: $(count "$switch_fill") pixels of switch boxes for $switches switches"
  [[ $(count "$endpoint_fill") -gt 0 ]] || fail "$name: no CA mark in the picture"
  # The legend shows each colour once; the picture's links add to that.
  [[ $(count "$top_colour") -gt $((legend + 20)) ]] || fail "$name: no link in the most loaded colour"
  local shown=0 c
  for c in "${load_colours[@]}"; do [[ $(count "$c") -gt $((legend + 20)) ]] && shown=$((shown + 1)); done
  [[ $shown -ge 2 ]] || fail "$name: only $shown load colours in the picture"
  if [[ $errors == yes ]]; then
    [[ $(count "$error_colour") -gt $((legend + 20)) ]] || fail "$name: no link in the error colour"
  else
    [[ $(count "$error_colour") -le $legend ]] || fail "$name: error colour without errors"
  fi

  local missing=0 sw
  while read -r sw; do
    grep -qF ">$sw<" "$png.dom" || { echo "switch $sw is not named on the page" >&2; missing=$((missing + 1)); }
  done < <(sed -nE 's/^Switch[[:space:]]+[0-9]+[[:space:]]+"([^"]+)".*/\1/p' "$netfile")
  [[ $missing -eq 0 ]] || fail "$name: $missing switches not named"
  grep -q "pairs delivered" "$png.dom" || fail "$name: no routing check line on the page"
  grep -q "<svg" "$png.dom" || fail "$name: no picture in the DOM"
}

# A fat tree brought up on ibsim; the tables as the switches hold them.
fabric_start --topo fat-tree --k 4 --n 2
SIM_HOST=host-0 client "$IBSM" run -o --cache-dir cache -f run.log > run.out 2>&1 || fail "ibsm run -o: $(cat run.out)"
client ibnetdiscover > fat-tree.topo 2> ibnetdiscover.err || fail "ibnetdiscover: $(cat ibnetdiscover.err)"
sim_client dump_fts > fat-tree.lfts 2> dump_fts.err || fail "dump_fts: $(cat dump_fts.err)"
"$IBSM" check --topology fat-tree.topo --lfts fat-tree.lfts --status-page fat-tree.html > check.out 2>&1 ||
  fail "ibsm check on the fat tree: $(cat check.out)"
judge fat-tree fabric.net "$(grep -c '^Switch' fabric.net)"

# The daemon's own page, served at / beside /metrics, on the same fabric:
# with the performance manager sweeping every second and errors raised on
# leaf-0's uplink to spine-0, that link turns the error colour.
conf=$(sm_conf live metrics_listen 127.0.0.1:0 perfmgr TRUE perfmgr_sweep_time_s 1)
sm_daemon_start host-0 -F "$conf"
port=$(grep -oE 'serving metrics on http://127\.0\.0\.1:[0-9]+/metrics' daemon.log | grep -oE '[0-9]+/metrics' | cut -d/ -f1)
[[ -n $port ]] || fail "no 'serving metrics' line in the log: $(tail -5 daemon.log)"
pma_sweeps() { grep -c "pma sweep [0-9]*:" daemon.log || true; }
wait_for 20 "a first PMA sweep" eval '[[ $(pma_sweeps) -ge 1 ]]'
ibsim_cmd 'PerformanceSet "leaf-0"[5] PortCounters.SymbolErrorCounter=9'
wait_for 20 "the errors on leaf-0 port 5 reported" grep -q 'errors on node .* "leaf-0" port 5 ' daemon.log
# The page is published with the metrics, at most a second after the PMA
# sweep that read the errors: wait until /metrics has them.
leaf0_errors() {
  curl -sS --max-time 10 "http://127.0.0.1:$port/metrics" 2>/dev/null |
    grep -qE '^ibsm_port_errors_total\{node_guid="[^"]+",port="5",node_desc="leaf-0"\} [1-9]'
}
wait_for 10 "leaf-0 port 5's errors in the metrics" leaf0_errors
curl -sS --max-time 10 -o live.html -w '%{http_code} %{content_type}\n' "http://127.0.0.1:$port/" > live.http ||
  fail "GET / failed"
grep -q "^200 text/html" live.http || fail "GET / answered $(cat live.http)"
judge live fabric.net "$(grep -c '^Switch' fabric.net)" "http://127.0.0.1:$port/" yes
grep -q "MASTER" "$out/live.png.dom" || fail "the live page does not say MASTER"
sm_daemon_stop

# A torus, routed offline: every switch in one row.
"$IBSM" topo torus --dims 3,3 --hosts 1 -o torus.net
"$IBSM" route -t torus.net -R updn,no_fallback --lfts torus.lfts --guid2lid torus.guid2lid 2> route.err ||
  fail "ibsm route: $(cat route.err)"
"$IBSM" check --topology torus.net --guid2lid torus.guid2lid --lfts torus.lfts --engine updn \
  --status-page torus.html > check.out 2>&1 || fail "ibsm check on the torus: $(cat check.out)"
judge torus torus.net 9
echo "screenshots in $out"
