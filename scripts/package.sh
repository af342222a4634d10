#!/usr/bin/env bash
# Builds the Debian package from the tree: a release build of the ibsm
# binary and its man page in build-release/, then CPack's DEB generator
# (cmake/packaging.cmake). Prints the .deb's path. Needs what
# scripts/install-deps.sh installs (dpkg-shlibdeps comes with dpkg-dev).
#   bash scripts/package.sh && sudo dpkg -i build-release/ibsm_*.deb
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/install-deps.sh
build=${IBSM_PACKAGE_BUILD:-build-release}
generator=()
command -v ninja > /dev/null && generator=(-G Ninja)
cmake -S . -B "$build" "${generator[@]}" -DCMAKE_BUILD_TYPE=Release -DIBSM_TESTS=OFF > /dev/null
cmake --build "$build" --target ibsm ibsm_man
(cd "$build" && cpack > /dev/null)
ls "$PWD/$build"/ibsm_*.deb
