#!/usr/bin/env bash
# Installs what is missing, builds, and runs every test:
#  1. the house (doc/design.md): every include judged against the libraries'
#     links and the layer table, no function over 120 lines, every library
#     header compiled alone without precompiled headers, and one build of
#     everything, tests included, without unity batches, as a newcomer's
#     plain `cmake --build` makes it;
#  2. the embedded profile of the core (-fno-exceptions -fno-rtti, static, no
#     rdma-core) cross-compiled for aarch64, its unit tests run under qemu-user;
#  3. the main build, with ASan and UBSan (and asserts) on: every unit test and
#     every end-to-end test on ibsim with the real diag tools, so the daemon
#     itself runs sanitized against the simulator.
# Locally, IBSM_SKIP_HOUSE=1, IBSM_SKIP_CROSS=1 and IBSM_SKIP_MAIN=1 leave out
# stages 1, 2 and 3.
set -euo pipefail
cd "$(dirname "$0")/.."
jobs=$(nproc)

step() { printf '\n=== %s (%s)\n' "$*" "$(date -u +%T)"; }  # the clock says what each stage costs

step "dependencies"
IBSM_CROSS=$([[ "${IBSM_SKIP_CROSS:-0}" == 1 ]] && echo 0 || echo 1) bash scripts/install-deps.sh

status=0
# Unity builds: each library and suite compiles its files in batches of 8
# as one translation unit. Most files are small, and each paid the
# precompiled headers, the sanitizers' runtime declarations and the same
# template instances again: in batches the sanitized build takes a fraction
# of its time built file by file (the house stage's build is the one without
# batches; compare its log's times). (Names private to a file must differ
# across its library for this; the build says where they do not.)
unity=(-DCMAKE_UNITY_BUILD=ON -DCMAKE_UNITY_BUILD_BATCH_SIZE=8)

if [[ "${IBSM_SKIP_HOUSE:-0}" != 1 ]]; then
  # -O0 and no sanitizers: this build only has to compile; the tests run in
  # stage 3. Each check runs even when one before it failed, so one CI run
  # names every problem.
  step "house: layering, function length, headers alone, a build without unity batches"
  cmake -S . -B build-house -G Ninja -DCMAKE_BUILD_TYPE=Debug -DCMAKE_CXX_FLAGS_DEBUG="-O0" \
    -DIBSM_HEADER_CHECK=ON >/dev/null
  python3 scripts/check_layers.py build-house || status=1
  python3 scripts/check_function_length.py --max 120 mad sm routing sa tools || status=1
  cmake --build build-house -j"$jobs" --target header_check || status=1
  cmake --build build-house -j"$jobs" || status=1
fi

if [[ "${IBSM_SKIP_CROSS:-0}" != 1 ]]; then
  step "embedded profile: aarch64 cross build, unit tests under qemu-user"
  cmake -S . -B build-aarch64 -G Ninja -DCMAKE_TOOLCHAIN_FILE=cmake/aarch64-linux-gnu.cmake \
    -DCMAKE_BUILD_TYPE=Release -DCMAKE_CXX_FLAGS_RELEASE="-O1 -DNDEBUG" "${unity[@]}" >/dev/null
  cmake --build build-aarch64 -j"$jobs"
  (cd build-aarch64 && ctest -j"$jobs" --output-on-failure) || status=1
fi

if [[ "${IBSM_SKIP_MAIN:-0}" != 1 ]]; then
  step "main build (ASan+UBSan, asserts on): unit and end-to-end tests"
  # -Og: GCC 12 compiles UBSan-instrumented code at -O1 more than twice as
  # slowly; no -g: the sanitizers' reports name functions from the symbol table.
  cmake -S . -B build-check -G Ninja -DCMAKE_BUILD_TYPE=Debug -DCMAKE_CXX_FLAGS_DEBUG="-Og" "${unity[@]}" \
    -DCMAKE_CXX_FLAGS="-fsanitize=address,undefined -fno-sanitize-recover=all -fno-omit-frame-pointer" >/dev/null
  cmake --build build-check -j"$jobs"
  (cd build-check && ctest -j"$jobs" --output-on-failure) || status=1
fi

step "done"
exit $status
