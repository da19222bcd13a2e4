#!/bin/sh
# Sets up and runs every test: dependencies, build, make check. Ends with
# the line "N passed, M failed" (test programs, from test-suite.log).
set -e
cd "$(dirname "$0")/.."
sh scripts/deps.sh
sh scripts/build.sh "$@"
rc=0
make -j"$(nproc)" check || rc=$?
[ "$rc" -eq 0 ] || tail -n 200 test-suite.log 2>/dev/null
awk '/^# PASS:/ { p = $3 } /^# FAIL:/ { f += $3 } /^# ERROR:/ { f += $3 }
     END { print p + 0 " passed, " f + 0 " failed" }' test-suite.log
exit "$rc"
