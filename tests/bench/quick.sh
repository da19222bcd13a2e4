#!/bin/sh
# The benchmark's short form as a test: every case runs (a few seconds),
# no time is judged; it fails only if a case cannot run.
. "$(dirname "$0")/../common.sh"
need taskset util-linux
BENCH_QUICK=1 sh "$(dirname "$0")/run.sh" >"$T/bench.out" 2>&1
rc=$?
show "$T/bench.out"
expect_eq "every benchmark case runs (make bench BENCH_QUICK=1)" "$rc" 0
finish
