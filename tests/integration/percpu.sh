#!/bin/sh
# Per-CPU arrays under the shim (tests/integration/prog_percpu.c): arrays
# sized by each CPU count (sysconf ONLN and CONF, get_nprocs(_conf), the
# width of /sys/devices/system/cpu/possible), indexed by each CPU number a
# program may read: sched_getcpu (the shim's, virtual), and the numbers it
# cannot renumber (the rseq area's cpu_id, RDPID, RDTSCP, a getcpu system
# call made by the instruction), which are physical.
#
# In a set the counts are the set's (DESIGN.md, Topology views: possible
# and present are the set's n CPUs as online is), so a physical index can
# reach past an array sized by any count: in set {1} the CPU read is 1 and
# every count is 1. The test computes which (index, size) pairs are past
# from the sizes this contract gives and the physical CPU each raw source
# reads, and expects exactly those from the program; sched_getcpu is past
# none. DESIGN.md's honest limits say what a program must do about it.
. "$(dirname "$0")/../common.sh"
need timeout coreutils
PROG="$B/tests/integration/prog_percpu"
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
	in_set "$s" "$PROG" >"$T/out" 2>"$T/err"
	expect_eq "$t: prog_percpu exit status" "$?" 0 || show "$T/err"
	# the contract's sizes: every count is the set's
	for k in onln conf nprocs nprocs_conf possible; do
		expect_eq "$t: array sized by $k has the set's $n slots" "$(size_of $k "$T/out")" "$n"
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
	if [ "$list" = 1 ] && [ -n "$raw" ]; then
		expect_match "$t: a raw CPU number (1) reaches past an array of the set's count (1)" \
			"$got" '^past [a-z]+ onln 1 1$'
	fi
}
each_set percpu
finish
