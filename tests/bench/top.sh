#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# The --top case of `make bench`: the cost of one refresh of
# cpuset-inspect --top (a copy of the table, one read of /proc/stat, the
# attribution to the sets) at 1,000 members, and with the member column
# (one /proc/PID/stat a member) for comparison. The members are real
# sleeping processes recorded in a private table (tests/bench/bench_top.c).
# BENCH_QUICK=1: 50 members, a few rounds.
set -u
B=${CPS_BUILDDIR:-$(cd "$(dirname "$0")/../.." && pwd)}
QUICK=0
case ${BENCH_QUICK:-} in 1 | yes | true) QUICK=1 ;; esac
MEMBERS=${BENCH_TOP_MEMBERS:-1000} SETS=${BENCH_TOP_SETS:-100} ROUNDS=${BENCH_TOP_ROUNDS:-21}
[ $QUICK = 1 ] && MEMBERS=50 SETS=10 ROUNDS=3
CPUSETSHIM_TABLE="cpusetshim-bench-top.$$"
export CPUSETSHIM_TABLE
trap 'rm -f "/dev/shm/$CPUSETSHIM_TABLE"' EXIT
"$B/cpuset" init --force --max-procs $((MEMBERS * 2 + 16)) >/dev/null ||
	{ echo "bench: FAIL: --top: cpuset init" >&2; exit 1; }
out=$("$B/tests/bench/bench_top" $MEMBERS $SETS $ROUNDS) ||
	{ echo "bench: FAIL: --top: bench_top $MEMBERS $SETS $ROUNDS" >&2; exit 1; }
set -- $(echo "$out" | sed -n 's/^plain //p')
plain="$1 ms ($2-$3)"
set -- $(echo "$out" | sed -n 's/^members //p')
with="$1 ms ($2-$3)"
echo "## cpuset-inspect --top: one refresh at $MEMBERS members in $SETS sets"
echo
echo "Command: \`make bench\` (section top): \`bench_top $MEMBERS $SETS $ROUNDS\`, $ROUNDS refreshes"
echo "each way, alternating; median (min-max)."
echo
echo "| refresh | cost |"
echo "|---|---|"
echo "| sets' figures (table copy, one /proc/stat read) | $plain |"
echo "| with --members (one /proc/PID/stat a member) | $with |"
echo
echo "$out" | sed -n 's/^members_counted \([0-9]*\) read \([0-9]*\)/# members counted \1, read \2/p'
