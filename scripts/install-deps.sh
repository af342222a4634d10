#!/usr/bin/env bash
# Installs the Debian 12 packages ibsm builds and tests with. Idempotent: does
# nothing when everything is there already. Needs root (or sudo).
set -euo pipefail

packages=(
  build-essential cmake ninja-build pkg-config
  libibumad-dev libibmad-dev libboost-graph-dev libfmt-dev catch2
  libsystemd-dev  # sd_notify for the Type=notify unit (tools/os only)
  ibsim-utils infiniband-diags ibutils opensm
  python3  # the SA end-to-end tests compare JSON answers with python3
  chromium  # the status page's end-to-end test renders it headless
  libcpp-httplib-dev  # the daemon's HTTP listener (metrics_listen)
  python3-prometheus-client curl  # e2e.metrics scrapes /metrics and parses it
  dpkg-dev file  # the Debian package: CPack's DEB generator runs dpkg-shlibdeps on what `file` says is ELF
  groff-base  # e2e.man-page renders ibsm(8) with groff
)
if [[ "${IBSM_CROSS:-1}" == 1 ]]; then
  # The embedded-profile core, cross-compiled for aarch64 and tested under qemu.
  packages+=(g++-aarch64-linux-gnu qemu-user)
fi

missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
[[ ${#missing[@]} -eq 0 ]] && exit 0

echo "installing: ${missing[*]}"
sudo=""
[[ $(id -u) -ne 0 ]] && sudo=sudo
export DEBIAN_FRONTEND=noninteractive
$sudo apt-get update -qq
$sudo apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
