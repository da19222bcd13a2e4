#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# Sets up and runs every test: dependencies, build, make check. make check
# shows each check (TAP); this ends with the line "N passed, M failed",
# counting checks (scripts/summary.sh).
set -e
cd "$(dirname "$0")/.."
# no standard input for the tests (see .ci/run: make's jobserver on fd 0)
exec </dev/null
sh scripts/deps.sh
sh scripts/build.sh "$@"
rc=0
make -j"$(nproc)" check || rc=$?
[ "$rc" -eq 0 ] || tail -n 200 test-suite.log 2>/dev/null
sh scripts/summary.sh || rc=1
exit "$rc"
