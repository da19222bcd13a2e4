#!/bin/sh
# Counting CPUs under the shim, in a one-CPU set {1} and a two-CPU set
# {0,1}: coreutils nproc, getconf, python3's os.cpu_count and
# os.sched_getaffinity, each the set's count, nothing said on stderr.
. "$(dirname "$0")/../common.sh"
need timeout coreutils
need nproc coreutils
need getconf libc-bin
need "$PYTHON3" python3
two_sets

counts() {
	expect_eq "$t: nproc" "$(in_set "$s" nproc 2>"$T/err")" "$n"
	expect_eq "$t: nproc, nothing on stderr (the shim never prints uninvited)" \
		"$(cat "$T/err")" ""
	expect_eq "$t: nproc --all" "$(in_set "$s" nproc --all)" "$n"
	expect_eq "$t: getconf _NPROCESSORS_ONLN" "$(in_set "$s" getconf _NPROCESSORS_ONLN)" "$n"
	expect_eq "$t: getconf _NPROCESSORS_CONF" "$(in_set "$s" getconf _NPROCESSORS_CONF)" "$n"
	expect_eq "$t: python3 os.cpu_count()" \
		"$(in_set "$s" "$PYTHON3" -c 'import os; print(os.cpu_count())')" "$n"
	expect_eq "$t: python3 os.sched_getaffinity(0)" \
		"$(in_set "$s" "$PYTHON3" -c 'import os; print(sorted(os.sched_getaffinity(0)))')" \
		"[$(seq_join 0 $((n - 1)) ', ')]"
}
each_set counts
finish
