#!/usr/bin/env bash
# The part of package.sh that runs in a private mount namespace (unshare
# --mount), in package.sh's scratch folder: the overlay root, dpkg -i, the
# unit's ExecStart. Mounts end with the namespace when this script exits.
source "$(dirname "$0")/lib.sh"
root=$PWD/root
mount -t overlay overlay -o "lowerdir=/,upperdir=$PWD/upper,workdir=$PWD/work" "$root"
mount -t proc proc "$root/proc"
mount --rbind /dev "$root/dev"
in_root() { chroot "$root" "$@"; }

# A host package that shares a file with ours would make this test lie.
in_root dpkg-query -W ibsm > /dev/null 2>&1 && fail "ibsm is already installed on the host"
cp "$DEB" unmet.deb "$root/tmp/"
rc=0; in_root dpkg -i /tmp/unmet.deb > unmet.out 2>&1 || rc=$?
[[ $rc -ne 0 ]] && grep -q "ibsm-no-such-package" unmet.out || fail "dpkg accepted unmet Depends: $(cat unmet.out)"
in_root dpkg --purge ibsm > /dev/null 2>&1 || true
in_root dpkg -i "/tmp/$(basename "$DEB")" > dpkg.out 2>&1 || fail "dpkg -i failed: $(cat dpkg.out)"
in_root dpkg-query -W -f '${Status}\n' ibsm | grep -q "install ok installed" || fail "dpkg does not list ibsm installed"
[[ -e /usr/sbin/ibsm || -e /etc/ibsm/ibsm.conf ]] && fail "the install reached the host"
in_root man -w ibsm > /dev/null || fail "man does not find ibsm(8) in the root"

unit=$root/lib/systemd/system/ibsm.service
if command -v systemd-analyze > /dev/null; then
  in_root systemd-analyze verify /lib/systemd/system/ibsm.service > verify.out 2>&1 ||
    fail "systemd-analyze verify ibsm.service: $(cat verify.out)"
  in_root systemd-analyze verify ibsm@0x0002c90300000001.service > verify@.out 2>&1 ||
    fail "systemd-analyze verify ibsm@.service: $(cat verify@.out)"
  [[ -s verify.out || -s verify@.out ]] && fail "systemd-analyze verify warns: $(cat verify.out verify@.out)"
fi

# The unit's command line as systemd would run it, with the cache folder
# systemd's CacheDirectory= makes.
exec_start=$(sed -n 's/^ExecStart=//p' "$unit")
[[ $exec_start == /usr/sbin/ibsm\ run\ * ]] || fail "unexpected ExecStart: $exec_start"
# The root is an overlay of this machine's /: a cache an earlier ibsm left in
# /var/cache/ibsm is not the fresh install's (removed in the overlay only).
rm -rf "$root/var/cache/ibsm"
mkdir -p "$root/var/cache/ibsm" "$root/tmp/run"
# shellcheck disable=SC2086 # the unit's words, split as systemd splits them
chroot "$root" env -C /tmp/run LD_PRELOAD="$UMAD2SIM" $exec_start > daemon.out 2>&1 &
daemon=$!
trap 'kill $daemon 2>/dev/null; wait $daemon 2>/dev/null' EXIT
for _ in $(seq 1 200); do
  grep -q "ready: MASTER after the first sweep" daemon.out && break
  kill -0 $daemon 2>/dev/null || fail "the installed ibsm exited: $(tail -5 daemon.out)"
  sleep 0.1
done
grep -q "ready: MASTER after the first sweep" daemon.out && grep -q "SUBNET UP" daemon.out ||
  fail "the subnet did not come up: $(tail -5 daemon.out)"

client sminfo > sminfo.out 2>&1 || fail "sminfo failed: $(cat sminfo.out)"
grep -q SMINFO_MASTER sminfo.out || fail "sminfo does not show a master: $(cat sminfo.out)"
client iblinkinfo -l > links.out 2>/dev/null || fail "iblinkinfo failed"
# 4 host cables and 2 leaf-spine cables, each seen from both ends.
[[ $(grep '==(' links.out | grep -c 'Active/  LinkUp') -eq 12 ]] || fail "not every port Active: $(cat links.out)"
kill -TERM $daemon
rc=0; wait $daemon || rc=$?
trap - EXIT
[[ $rc -eq 0 ]] || fail "the installed ibsm exited $rc on SIGTERM: $(tail -5 daemon.out)"
