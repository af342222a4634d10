#!/usr/bin/env bash
# ibsm run's configuration from the command line's point of view: the config
# it writes with -c reads back, and of the defaults is exactly the shipped
# conf/ibsm.conf (/etc/ibsm/ibsm.conf in the package); a bad key or value
# names the file, the line and the key and exits 2 before touching any
# fabric; bad flags are refused too, as are an unknown routing engine and a
# directory for -F, and a long value is quoted cut short.
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

# An unknown routing engine is an error when the config is read: -c writes
# nothing, and run stops before it opens a port (no ibsim here: a sweep
# would fail differently).
expect_error "unknown routing engine 'updnx'" -R minhop,updnx -c engine.conf
[[ ! -e engine.conf ]] || fail "-c wrote a config with an unknown routing engine"
printf 'routing_engine ftree,bogus\n' > engine-file.conf
expect_error "engine-file.conf:1: .*unknown routing engine 'bogus'" -F engine-file.conf -o
# -F naming a directory reads nothing, rather than all defaults.
mkdir -p conf.d
expect_error "conf.d: it is a directory" -F conf.d -c dir.conf
[[ ! -e dir.conf ]] || fail "-F DIR -c wrote a config"
# A long value is quoted cut short, with its length: not 20 MB of it.
python3 -c 'print("sm_priority " + "9" * 20 * 1024 * 1024)' > long.conf
expect_error "long.conf:1: sm_priority: '9{60}\.\.\.' \(20971520 bytes\)" -F long.conf
[[ $(wc -c < err) -lt 4096 ]] || fail "the error about a 20 MB value is $(wc -c < err) bytes long"
echo "config errors name file, line and key"
