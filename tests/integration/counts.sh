#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# Counting CPUs under the shim, in a one-CPU set {1} and a two-CPU set
# {0,1}: coreutils nproc, getconf, python3's os.cpu_count and
# os.sched_getaffinity, each the set's count (the possible count, nproc
# --all and _NPROCESSORS_CONF, with CPUSETSHIM_WIDE_POSSIBLE=1 as wide as
# the set's highest CPU), nothing said on stderr.
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
	# the possible CPUs: n, or with CPUSETSHIM_WIDE_POSSIBLE=1 up to the
	# set's highest physical CPU (doc/topology-views.md)
	expect_eq "$t: nproc --all (possible CPUs)" "$(in_set "$s" nproc --all)" "$w"
	expect_eq "$t: getconf _NPROCESSORS_ONLN" "$(in_set "$s" getconf _NPROCESSORS_ONLN)" "$n"
	expect_eq "$t: getconf _NPROCESSORS_CONF (possible CPUs)" \
		"$(in_set "$s" getconf _NPROCESSORS_CONF)" "$w"
	expect_eq "$t: python3 os.cpu_count()" \
		"$(in_set "$s" "$PYTHON3" -c 'import os; print(os.cpu_count())')" "$n"
	expect_eq "$t: python3 os.sched_getaffinity(0)" \
		"$(in_set "$s" "$PYTHON3" -c 'import os; print(sorted(os.sched_getaffinity(0)))')" \
		"[$(seq_join 0 $((n - 1)) ', ')]"
}
each_set counts
finish
