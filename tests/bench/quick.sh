#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# The benchmark's short form as a test: every case the machine can run
# runs (a few seconds), no time is judged; it fails only if a case cannot
# run. A case that reads a file the machine lacks (a cache directory, a
# NUMA node, a topology file of an older kernel) is left out with the
# file named, and that file must indeed be missing.
. "$(dirname "$0")/../common.sh"
need taskset util-linux
BENCH_QUICK=1 sh "$(dirname "$0")/run.sh" >"$T/bench.out" 2>&1
rc=$?
BENCH_QUICK=1 sh "$(dirname "$0")/supervise.sh" >>"$T/bench.out" 2>&1 || rc=1
show "$T/bench.out"
expect_eq "every benchmark case the machine can run runs (make bench BENCH_QUICK=1)" "$rc" 0
sed -n 's/^bench: note: \([a-z_0-9]*\) left out: this machine has no \(.*\)$/\1 \2/p' \
	"$T/bench.out" >"$T/left"
while read -r c f; do
	expect_eq "$c left out: the machine has no $f" "$(test -e "$f" && echo yes || echo no)" no
done <"$T/left"
note "left out: $(awk '{ print $1 }' "$T/left" | tr '\n' ' ')"
finish
