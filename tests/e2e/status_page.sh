#!/usr/bin/env bash
# status_page.sh NAME OUTDIR: the status page in a real browser (headless
# Chromium), for a small fat tree that `ibsm run -o` brought up on ibsim
# (topology from ibnetdiscover, tables read back with dump_lfts) and for a
# torus routed offline by `ibsm route`; both pages by `ibsm check
# --status-page`, the renderer the daemon serves. The screenshots are kept
# in OUTDIR and judged:
#  - a PNG of the window's size;
#  - the switch boxes' fill, the CA marks and at least two load colours of
#    the legend (the most loaded step among them) are in the pixels, beyond
#    the legend's own swatches;
#  - the page's text, as Chromium's DOM holds it, names every switch and
#    says every pair is delivered; no error colour (no error counts given).
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

browse() {  # browse PAGE PNG: a screenshot and the DOM (PNG.dom) of the page
  local page=$1 png=$2
  timeout 120 chromium --headless --no-sandbox --disable-gpu --hide-scrollbars --force-color-profile=srgb \
    --user-data-dir="$E2E_DIR/chromium" --window-size="$width,$height" --screenshot="$png" \
    "file://$PWD/$page" > "$page.log" 2>&1 || fail "chromium failed on $page: $(tail -5 "$page.log")"
  timeout 120 chromium --headless --no-sandbox --disable-gpu --user-data-dir="$E2E_DIR/chromium" \
    --dump-dom "file://$PWD/$page" > "$png.dom" 2> "$page.dom.log" || fail "chromium --dump-dom failed on $page"
}

judge() {  # judge NAME NETFILE SWITCHES: the screenshot NAME.png and its DOM
  local name=$1 netfile=$2 switches=$3 png="$out/$1.png"
  browse "$name.html" "$png"
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
  [[ $(count "$error_colour") -le $legend ]] || fail "$name: error colour without errors"

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
client dump_lfts > fat-tree.lfts 2> dump_lfts.err || fail "dump_lfts: $(cat dump_lfts.err)"
"$IBSM" check --topology fat-tree.topo --lfts fat-tree.lfts --status-page fat-tree.html > check.out 2>&1 ||
  fail "ibsm check on the fat tree: $(cat check.out)"
judge fat-tree fabric.net "$(grep -c '^Switch' fabric.net)"

# A torus, routed offline: every switch in one row.
"$IBSM" topo torus --dims 3,3 --hosts 1 -o torus.net
"$IBSM" route -t torus.net -R updn,no_fallback --lfts torus.lfts --guid2lid torus.guid2lid 2> route.err ||
  fail "ibsm route: $(cat route.err)"
"$IBSM" check --topology torus.net --guid2lid torus.guid2lid --lfts torus.lfts --engine updn \
  --status-page torus.html > check.out 2>&1 || fail "ibsm check on the torus: $(cat check.out)"
judge torus torus.net 9
echo "screenshots in $out"
