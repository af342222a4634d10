#!/usr/bin/env bash
# The Debian package: built with CPack from this build tree, it holds the
# binary, the man page, both units and /etc/ibsm/ibsm.conf as a conffile, with
# Depends from dpkg-shlibdeps. Installed with dpkg -i into a clean root (an
# overlay of / in a private mount namespace: the host stays untouched, and
# dpkg checks the Depends against what the root holds; a package whose
# Depends cannot be met is refused). The units pass systemd-analyze verify,
# and the installed unit's ExecStart, run in that root against ibsim, brings
# the subnet up (judged by sminfo and iblinkinfo). Needs root.
here=$(cd "$(dirname "$0")" && pwd)
source "$here/lib.sh"
e2e_setup "$1"
[[ $(id -u) -eq 0 ]] || fail "needs root (mount namespaces, dpkg -i)"

build=$(cd "$(dirname "$IBSM")/.." && pwd)
[[ -f $build/CPackConfig.cmake ]] || fail "no CPackConfig.cmake in $build"
cpack --config "$build/CPackConfig.cmake" -B "$PWD/pkg" > cpack.out 2>&1 || fail "cpack failed: $(tail -5 cpack.out)"
deb=$(echo "$PWD"/pkg/ibsm_*.deb)
[[ -f $deb ]] || fail "cpack wrote no .deb: $(ls pkg)"

dpkg-deb -c "$deb" | awk '{print $NF}' > contents
for f in ./usr/sbin/ibsm ./usr/share/man/man8/ibsm.8.gz ./lib/systemd/system/ibsm.service \
         ./lib/systemd/system/ibsm@.service ./etc/ibsm/ibsm.conf; do
  grep -qxF "$f" contents || fail "the package lacks $f: $(cat contents)"
done
dpkg-deb --ctrl-tarfile "$deb" | tar -xO ./conffiles > conffiles
grep -qx /etc/ibsm/ibsm.conf conffiles || fail "/etc/ibsm/ibsm.conf is no conffile"
depends=$(dpkg-deb -f "$deb" Depends)
for lib in libibumad3 libsystemd0 libc6; do
  [[ $depends == *"$lib"* ]] || fail "Depends lacks $lib: $depends"
done
echo "package: $(basename "$deb"), Depends: $depends"

# The same package with a Depends no root can meet: dpkg must refuse it.
dpkg-deb -R "$deb" unmet
sed -i 's/^Depends: /Depends: ibsm-no-such-package (>= 1), /' unmet/DEBIAN/control
dpkg-deb -b unmet unmet.deb > /dev/null

"$IBSM" topo leaf-spine --leaves 2 --spines 1 --hosts 2 -o fabric.net
export SIM_HOST=host-0
ibsim_start "$PWD/fabric.net"

mkdir root upper work
DEB=$deb unshare --mount --propagation private bash "$here/package_root.sh"
echo "installed with dpkg -i in a clean root; the unit's ExecStart brought the subnet up"
