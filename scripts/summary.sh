#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# Prints the last make check's counts from test-suite.log: the tests that
# skipped (with their reasons), then the line "N passed, M failed". The
# counts are checks (TAP results: each ok/not ok line of a shell test or
# Check suite); an ERROR (a test program that crashed, exited non-zero or
# broke its TAP plan) counts as failed. PREFIX, if given, starts the line.
# With --no-skip, exits 1 when any check or test skipped (CI: everything
# is installed, so a skip is a fault).
no_skip=0
[ "${1:-}" = --no-skip ] && { no_skip=1; shift; }
prefix=${1:+$1: }
cd "$(dirname "$0")/.."
if [ ! -f test-suite.log ]; then
	echo "${prefix}no test-suite.log: make check did not get to run the tests"
	exit 1
fi
# the driver's SKIP lines of the tests that skipped (a whole test, or some
# of its checks): "SKIP: tests/x.sh 3 # SKIP needs taskset (...)"
skipped=$(grep -E '^SKIP: [^ ]+ ' test-suite.log | sed 's/# SKIP //')
[ -z "$skipped" ] || printf '%s\n' "$skipped" | sed "s/^/${prefix}/"
awk -v pfx="$prefix" '
	/^# PASS:/ { p = $3 }
	/^# SKIP:/ { s = $3 }
	/^# (FAIL|ERROR|XPASS):/ { f += $3 }
	END {
		if (s > 0) print pfx s " skipped"
		print pfx p + 0 " passed, " f + 0 " failed"
	}' test-suite.log
nskip=$(awk '/^# SKIP:/ { print $3 + 0 }' test-suite.log)
if [ "$no_skip" = 1 ] && { [ -n "$skipped" ] || [ "${nskip:-0}" != 0 ]; }; then
	echo "${prefix}FAIL: tests skipped; everything they need must be installed (scripts/deps.sh)"
	exit 1
fi
exit 0
