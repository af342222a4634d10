#!/usr/bin/env bash
# ibsm(8): renders without a warning (groff -ww, and man -l when man-db is
# there), and documents every command `ibsm --help` lists and every flag
# `ibsm run --help` lists, so the page cannot fall behind the code.
here=$(cd "$(dirname "$0")" && pwd)
source "$here/lib.sh"
e2e_setup "$1"
page=$here/../../doc/ibsm.8

groff -man -Tutf8 -ww -z "$page" 2> groff.err || fail "groff failed: $(cat groff.err)"
[[ ! -s groff.err ]] || fail "groff warns: $(cat groff.err)"
if command -v man > /dev/null; then
  MANWIDTH=80 man --warnings -l "$page" > page.txt 2> man.err || fail "man -l failed: $(cat man.err)"
  [[ ! -s man.err ]] || fail "man -l warns: $(cat man.err)"
fi

# Commands: the first word of each line under "commands:".
"$IBSM" --help | sed -n '/^commands:/,$p' | awk 'NR > 1 {print $1}' > commands
[[ -s commands ]] || fail "ibsm --help lists no commands"
while read -r cmd; do
  grep -qx "\.B $cmd" "$page" || fail "ibsm(8) does not document the command '$cmd' (a '.B $cmd' entry)"
done < commands

# run's flags, long and short, as troff spells them (\- for each -).
# The option lines: "  -o, --once  ..." or "      --sim NETFILE  ...".
"$IBSM" run --help | sed -nE 's/^ +((-[a-zA-Z], )?--[a-zA-Z_-]+).*/\1/p' | tr ',' '\n' | tr -d ' ' | sort -u > flags
[[ $(wc -l < flags) -gt 20 ]] || fail "too few flags read from ibsm run --help: $(cat flags)"
while read -r flag; do
  troff=${flag//-/\\-}
  grep -qF -- "$troff" "$page" || fail "ibsm(8) does not document run's flag $flag"
done < flags
for word in SIGHUP SIGUSR1 SIGTERM "EXIT STATUS" FILES /etc/ibsm/ibsm.conf ibsm@.service; do
  grep -qF -- "$word" "$page" || fail "ibsm(8) lacks $word"
done
echo "ibsm(8) renders cleanly and documents $(wc -l < commands) commands and $(wc -l < flags) run flags"
