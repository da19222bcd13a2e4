#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# Per-CPU arrays under the shim (tests/integration/prog_percpu.c): arrays
# sized by each CPU count (sysconf ONLN and CONF, get_nprocs(_conf), the
# width of /sys/devices/system/cpu/possible), indexed by each CPU number a
# program may read: sched_getcpu (the shim's, virtual), and the numbers it
# cannot renumber (the rseq area's cpu_id, RDPID, RDTSCP, a getcpu system
# call made by the instruction), which are physical.
#
# In a set every count is the set's n (doc/topology-views.md), so in
# set {1} a raw index (1) reaches past an array sized by any count (1).
# With CPUSETSHIM_WIDE_POSSIBLE=1 the possible counts (CONF,
# get_nprocs_conf, possible) reach the set's highest physical CPU: in set
# {1}, 1 online CPU and 2 possible, so a raw index stays inside an array
# sized by the possible CPUs, as on a machine with offline CPUs, and may
# still reach past one sized by the online CPUs (wrong natively too on
# such a machine). The test runs both ways, computes which (index, size)
# pairs are past from the sizes the contract gives and the physical CPU
# each raw source reads, and expects exactly those from the program;
# sched_getcpu is past none.
. "$(dirname "$0")/../common.sh"
need timeout coreutils
PROG="$B/tests/integration/prog_percpu"
unset CPUSETSHIM_WIDE_POSSIBLE
[ -x "$PROG" ] || die "$PROG is not built (make check builds it)"
two_sets

# Natively: every raw index is below the counts that cover every CPU the
# kernel may report (CONF, get_nprocs_conf, possible). ONLN is not such a
# count on a machine with offline CPUs, so it is not asserted here.
outside "$PROG" >"$T/native" 2>"$T/native.err"
expect_eq "natively: prog_percpu exit status" "$?" 0 || show "$T/native.err"
raw_native=$(awk '$1 == "index" && $2 != "sched_getcpu" && $3 != "none" { print $2 }' "$T/native" |
	tr '\n' ' ')
note "raw CPU numbers this host gives: ${raw_native:-none}"
expect_eq "natively: no index reaches past an array sized by CONF, get_nprocs_conf or possible" \
	"$(awk '$1 == "past" && $3 != "onln" && $3 != "nprocs"' "$T/native")" ""
expect_match "natively: rseq is registered by glibc or said not to be" \
	"$(grep '^index rseq ' "$T/native")" '^index rseq ([0-9]+|none .*)$'

# size NAME of FILE
size_of() {
	awk -v k="$1" '$1 == "size" && $2 == k { print $3 }' "$2"
}

percpu() {
	[ -n "${CPUSETSHIM_WIDE_POSSIBLE-}" ] && t="$t, wide possible"
	in_set "$s" "$PROG" >"$T/out" 2>"$T/err"
	expect_eq "$t: prog_percpu exit status" "$?" 0 || show "$T/err"
	# the contract's sizes: online n, possible w
	for k in onln nprocs; do
		expect_eq "$t: array sized by $k has the set's $n slots" "$(size_of $k "$T/out")" "$n"
	done
	for k in conf nprocs_conf possible; do
		expect_eq "$t: array sized by $k has $w slots, up to the set's highest CPU" \
			"$(size_of $k "$T/out")" "$w"
	done
	v=$(awk '$1 == "index" && $2 == "sched_getcpu" { print $3 }' "$T/out")
	expect_match "$t: sched_getcpu (through the shim) is a virtual CPU below $n" \
		"$v" "^[0-$((n - 1))]\$"
	raw=$(awk '$1 == "index" && $2 != "sched_getcpu" && $3 != "none" { print $2 }' "$T/out" |
		tr '\n' ' ')
	expect_eq "$t: the same raw sources as natively" "$raw" "$raw_native"
	want=
	for r in $raw; do
		c=$(awk -v k="$r" '$1 == "index" && $2 == k { print $3 }' "$T/out")
		expect_match "$t: $r reads a physical CPU of the set (the kernel's number)" \
			",$list," ",$c,"
		for k in onln conf nprocs nprocs_conf possible; do
			sz=$(size_of $k "$T/out")
			[ -n "$c" ] && [ -n "$sz" ] && [ "$c" -ge "$sz" ] &&
				want="${want}past $r $k $c $sz
"
		done
	done
	got=$(grep '^past ' "$T/out" | sort)
	want=$(printf '%s' "$want" | sort)
	expect_eq "$t: exactly the indices at or past their arrays that the contract implies" \
		"$got" "$want"
	expect_eq "$t: sched_getcpu reaches past no array" \
		"$(grep -c '^past sched_getcpu ' "$T/out")" 0
	if [ -n "${CPUSETSHIM_WIDE_POSSIBLE-}" ]; then
		expect_nomatch "$t: no raw CPU number reaches past an array sized by the possible CPUs" \
			"$got" '^past [a-z]+ (conf|nprocs_conf|possible) '
	elif [ "$list" = 1 ] && [ -n "$raw" ]; then
		expect_match "$t: a raw CPU number (1) reaches past an array of the possible count (1)" \
			"$got" '^past [a-z]+ conf 1 1$'
	fi
	if [ "$list" = 1 ] && [ -n "$raw" ]; then
		expect_match "$t: a raw CPU number (1) reaches past an array of the online count (1)" \
			"$got" '^past [a-z]+ onln 1 1$'
	fi
}
each_set percpu
note "---- with CPUSETSHIM_WIDE_POSSIBLE=1 ----"
CPUSETSHIM_WIDE_POSSIBLE=1
export CPUSETSHIM_WIDE_POSSIBLE
each_set percpu
finish
