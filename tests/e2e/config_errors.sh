#!/usr/bin/env bash
# ibsm run's configuration from the command line's point of view: the config
# it writes with -c reads back, and of the defaults is exactly the shipped
# conf/ibsm.conf (/etc/ibsm/ibsm.conf in the package); a bad key or value
# names the file, the line and the key and exits 2 before touching any
# fabric; bad flags are refused too.
source "$(dirname "$0")/lib.sh"
e2e_setup "$1"

"$IBSM" run -c written.conf -p 9 -l 1 || fail "ibsm run -c failed"
grep -qE '^sm_priority 9$' written.conf || fail "-p 9 is not in the written config"
grep -qE '^lmc 1$' written.conf || fail "-l 1 is not in the written config"
"$IBSM" run -F written.conf -c again.conf || fail "the written config does not read back"
diff -u written.conf again.conf || fail "the config changed on a round trip"

"$IBSM" run -c defaults.conf || fail "ibsm run -c of the defaults failed"
diff -u "$(dirname "$0")/../../conf/ibsm.conf" defaults.conf ||
  fail "conf/ibsm.conf is not \`ibsm run -c\` of the defaults: regenerate it with build/bin/ibsm run -c conf/ibsm.conf"

expect_error() {  # expect_error PATTERN ARGS...: exit 2 and PATTERN on stderr
  local pattern=$1; shift
  local rc=0
  "$IBSM" run "$@" > out 2> err || rc=$?
  [[ $rc -eq 2 ]] || fail "ibsm run $* exited $rc, expected 2: $(cat err)"
  grep -qE "$pattern" err || fail "ibsm run $*: expected '$pattern' in: $(cat err)"
}
printf 'sm_priority 3\n# a comment\nno_such_key 1\n' > unknown.conf
expect_error 'unknown.conf:3: .*no_such_key' -F unknown.conf
printf '\nlmc 9\n' > range.conf
expect_error 'range.conf:2: .*lmc' -F range.conf
printf 'sweep_interval ten\n' > value.conf
expect_error 'value.conf:1: .*sweep_interval' -F value.conf
expect_error 'missing.conf' -F missing.conf
expect_error 'priority|sm_priority' -p 16
expect_error "unexpected argument 'extra'" extra
echo "config errors name file, line and key"
