#!/usr/bin/env bash
# Installs what is missing, builds, and runs every test:
#  1. the main build: unit tests and end-to-end tests on ibsim with the real diag tools;
#  2. an ASan+UBSan build running the unit tests;
#  3. the embedded profile of the core (-fno-exceptions -fno-rtti, static, no
#     rdma-core) cross-compiled for aarch64, its unit tests run under qemu-user.
# Set IBSM_SKIP_SANITIZE=1 or IBSM_SKIP_CROSS=1 to leave a stage out locally.
set -euo pipefail
cd "$(dirname "$0")/.."
jobs=$(nproc)

step() { printf '\n=== %s\n' "$*"; }

step "dependencies"
IBSM_CROSS=$([[ "${IBSM_SKIP_CROSS:-0}" == 1 ]] && echo 0 || echo 1) bash scripts/install-deps.sh

status=0

if [[ "${IBSM_SKIP_CROSS:-0}" != 1 ]]; then
  step "embedded profile: aarch64 cross build, unit tests under qemu-user"
  cmake -S . -B build-aarch64 -G Ninja -DCMAKE_TOOLCHAIN_FILE=cmake/aarch64-linux-gnu.cmake >/dev/null
  cmake --build build-aarch64 -j"$jobs"
  (cd build-aarch64 && ctest -j"$jobs" --output-on-failure) || status=1
fi

if [[ "${IBSM_SKIP_SANITIZE:-0}" != 1 ]]; then
  step "ASan+UBSan build, unit tests"
  cmake -S . -B build-asan -G Ninja -DCMAKE_BUILD_TYPE=Debug \
    -DCMAKE_CXX_FLAGS="-fsanitize=address,undefined -fno-sanitize-recover=all -fno-omit-frame-pointer" >/dev/null
  cmake --build build-asan -j"$jobs"
  (cd build-asan && ctest -j"$jobs" -L unit --output-on-failure) || status=1
fi

step "main build: unit and end-to-end tests"
cmake -S . -B build -G Ninja >/dev/null
cmake --build build -j"$jobs"
(cd build && ctest -j"$jobs" --output-on-failure) || status=1

exit $status
