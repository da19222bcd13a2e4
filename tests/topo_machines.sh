#!/bin/sh
# The captured machines (tests/fixtures/machines) through the shim's
# test root: for sets of several shapes on each, hwloc (lstopo --of xml,
# hwloc-calc), lscpu -p and -e and numactl --hardware run under the shim
# report exactly what the tool's own restriction of the captured machine
# to those CPUs reports, but for the CPUs renumbered 0..n-1
# (tests/topo/compare.py says how each is compared).
. "$(dirname "$0")/common.sh"
PY=/usr/bin/python3
CMP="$PY $CPS_SRCDIR/tests/topo/compare.py"
for tool in lstopo-no-graphics hwloc-calc lscpu numactl $PY; do
	command -v $tool >/dev/null || { echo "SKIP: $tool not installed"; exit 77; }
done
[ -d "$CPS_FIXTURES" ] || { echo "SKIP: no unpacked fixtures (CPS_FIXTURES)"; exit 77; }
"$CPUSET" init >/dev/null || exit 1
# the captured machine's CPU model, not this one's from CPUID
export HWLOC_COMPONENTS=-x86
# A program under the shim that reads machine $1 in the set $2.
in_set() {
	_root=$1 _cpus=$2
	shift 2
	env $(san_env) LD_PRELOAD="${SAN_PRELOAD:+$SAN_PRELOAD:}$SHIM" \
		CPUSETSHIM_TEST_ROOT="$_root" CPUSETSHIM_TEST_CPUS="$_cpus" "$@"
}

for F in "$CPS_FIXTURES"/*/; do
	F=${F%/}
	m=$(basename "$F")
	all=$($CMP shapes "$F" | awk '$1 == "all" { print $2 }')
	$CMP shapes "$F" > "$TMP/shapes"
	lscpu --sysroot "$F" -p > "$TMP/lscpu-p" 2>/dev/null && lscpu --sysroot "$F" -e > "$TMP/lscpu-e" 2>/dev/null
	has_lscpu=$?
	in_set "$F" "$all" numactl --hardware > "$TMP/numactl" 2>&1
	while read -r shape S; do
		[ "$shape" = all ] && continue
		what="$m $shape {$S}"
		in_set "$F" "$S" env HWLOC_FSROOT="$F" lstopo-no-graphics --of xml - > "$TMP/got.xml" 2>"$TMP/err"
		if $CMP hwloc "$F" "$S" "$TMP/got.xml" > "$TMP/diff"; then ok; else bad "$what: lstopo"; head -40 "$TMP/diff"; fi
		# hwloc-calc counts every kind of object as the restriction does
		bm=$($PY -c "import sys; sys.path.insert(0, '$CPS_SRCDIR/tests/topo'); import compare; print(compare.hwloc_bitmap(compare.cpulist('$S')))")
		for t in pu core l2cache l3cache package; do
			want=$(env HWLOC_FSROOT="$F" hwloc-calc --restrict "$bm" -N $t all 2>&1)
			got=$(in_set "$F" "$S" env HWLOC_FSROOT="$F" hwloc-calc -N $t all 2>&1)
			expect "$what: hwloc-calc -N $t" "$got" "$want"
		done
		if [ $has_lscpu = 0 ]; then
			for o in p e; do
				in_set "$F" "$S" lscpu --sysroot "$F" -$o > "$TMP/got" 2>&1
				if $CMP lscpu "$TMP/lscpu-$o" "$S" "$TMP/got" > "$TMP/diff"; then ok; else bad "$what: lscpu -$o"; head -30 "$TMP/diff"; fi
			done
		fi
		in_set "$F" "$S" numactl --hardware > "$TMP/got" 2>&1
		if $CMP numactl "$TMP/numactl" "$S" "$TMP/got" "$all" > "$TMP/diff"; then ok; else bad "$what: numactl --hardware"; head -30 "$TMP/diff"; fi
		# libnuma's node of every virtual CPU is its physical CPU's
		in_set "$F" "$S" $PY "$CPS_SRCDIR/tests/topo/compare.py" node-of-cpu "$F" "$S" > "$TMP/diff" 2>&1
		expect "$what: numa_node_of_cpu" "$?" 0
	done < "$TMP/shapes"
	# lscpu cannot read machines captured without a cpu/possible file
	[ $has_lscpu = 0 ] || echo "# $m: lscpu cannot read this capture itself (no cpu/possible); lscpu not compared"
done
finish
