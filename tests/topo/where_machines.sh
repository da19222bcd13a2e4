#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# Locations (cpuset cpus, as cpuset create and cpuset-run --cpus take
# them) on the captured machines against hwloc-calc's own answer in the
# same view: through the test root the tool reads the capture and takes
# CPUSETSHIM_TEST_CPUS as its set, and hwloc-calc runs under the shim in
# that set. Every kind of object hwloc has there, in range and one beyond
# (exit 5, naming those there are), chains and combinations.
. "$(dirname "$0")/../common.sh"
PY=$PYTHON3
CMP="$PY $SRC/tests/topo/compare.py"
need hwloc-calc hwloc
need lstopo-no-graphics hwloc
need "$PY" python3
[ -d "${CPS_FIXTURES:-}" ] || die "no unpacked fixtures in CPS_FIXTURES='${CPS_FIXTURES:-}'"
"$CPUSET" init >/dev/null || die "cpuset init"
# the captured machine's CPU model, not this one's from CPUID
export HWLOC_COMPONENTS=-x86
CPS_MAX_NODES=8192

# hwloc-calc's comma list of PUs as a range list ("0-3,8")
ranges() { $CMP ranges; }

# The tools in machine $F, set $S (the test root), and hwloc-calc there.
mine() {
	env CPUSETSHIM_TEST_ROOT="$F" CPUSETSHIM_TEST_CPUS="$S" "$CPUSET" cpus "$@"
}
theirs() {
	env $(san_env) LD_PRELOAD="$SHIM_PRELOAD" CPUSETSHIM_TEST_ROOT="$F" CPUSETSHIM_TEST_CPUS="$S" \
		HWLOC_FSROOT="$F" hwloc-calc "$@"
}

# same WHAT LOC: mine and hwloc-calc's PUs of LOC agree
same() {
	_got=$(mine "$2" 2>&1)
	# hwloc-calc takes each part of a combination as an argument
	_want=$(theirs --po -I pu $2 2>&1 | ranges)
	expect_eq "$1: $2" "$_got" "$_want"
}

# Locations of every kind hwloc has in the view, in range and one beyond.
try_machine() {
	for t in package core pu numanode l3cache l2cache die; do
		n=$(theirs -N $t all 2>/dev/null)
		case $n in '' | *[!0-9]*) n=0 ;; esac
		if [ $t = numanode ]; then
			# hwloc counts the nodes of the set without a CPU too,
			# ordered by where its tree holds them; the tool numbers
			# those with CPUs: compared where the two agree on that
			mine numanode:$CPS_MAX_NODES >/dev/null 2>"$T/err"
			mn=$(sed -n 's/.*has NUMA nodes 0-\([0-9]*\)$/\1/p; s/.*has NUMA nodes 0$/0/p' "$T/err")
			if [ "$((${mn:--2} + 1))" != "$n" ]; then
				note "$what: hwloc has $n NUMA nodes, $((${mn:--2} + 1)) with a CPU: not compared"
				continue
			fi
		fi
		if [ "$n" -eq 0 ]; then
			# hwloc has none: neither has the view
			expect_status "$what: $t:0 (no $t)" 5 mine $t:0
			continue
		fi
		last=$((n - 1))
		for loc in $t:0 $t:$last $t:$((n / 2)); do
			same "$what" $loc
		done
		mine $t:$n >/dev/null 2>"$T/err"
		expect_eq "$what: $t:$n is beyond the $n $t objects (exit 5)" "$?" 5
		range=0
		[ "$n" -gt 1 ] && range=0-$last
		expect_match "$what: $t:$n names those there are" "$(cat "$T/err")" \
			"$t:$n: this set has .* $range\$"
	done
	# chains, each within its parent, and combinations
	np=$(theirs -N package all 2>/dev/null)
	nc=$(theirs -N core all 2>/dev/null)
	case $np in '' | 0 | *[!0-9]*) ;; *)
		lp=$((np - 1))
		same "$what" package:$lp.core:0
		same "$what" "package:$lp.pu:all"
		same "$what" socket:$lp
		;;
	esac
	same "$what" core:0-$((nc - 1)).pu:0
	[ "$(theirs -N numanode all 2>/dev/null)" = 1 ] && same "$what" numanode:0.core:0
	same "$what" core:odd
	same "$what" core:$((nc - 1)):$nc
	[ "$nc" -gt 2 ] && same "$what" "core:0-2 ~core:1"
	[ "$nc" -gt 2 ] && same "$what" "core:1-$((nc - 1)) xcore:0-1"
	[ -n "$(theirs --po -I pu l1cache:0 2>/dev/null)" ] && same "$what" l1cache:0
}

for F in "$CPS_FIXTURES"/*/; do
	F=${F%/}
	m=$(basename "$F")
	# the whole machine and a scattered pick (compare.py's shapes)
	$CMP shapes "$F" | awk '$1 == "all" || $1 == "pick"' >"$T/shapes"
	while read -r shape S; do
		what="$m $shape {$S}"
		try_machine
	done <"$T/shapes"
done
finish
