#!/bin/sh
# The captured machines (tests/fixtures/machines) through the shim's
# test root: for sets of several shapes on each, hwloc (lstopo --of xml,
# hwloc-calc), lscpu -p and -e and numactl --hardware run under the shim
# report exactly what the tool's own restriction of the captured machine
# to those CPUs reports, but for the CPUs renumbered 0..n-1
# (tests/topo/compare.py says how each is compared).
. "$(dirname "$0")/common.sh"
PY=$PYTHON3
CMP="$PY $SRC/tests/topo/compare.py"
need lstopo-no-graphics hwloc
need hwloc-calc hwloc
need lscpu util-linux
need numactl numactl
need "$PY" python3
# the fixtures are unpacked by make check (make tests/fixtures/unpacked.stamp)
[ -d "${CPS_FIXTURES:-}" ] || die "no unpacked fixtures in CPS_FIXTURES='${CPS_FIXTURES:-}'"
"$CPUSET" init >/dev/null || die "cpuset init"
# the captured machine's CPU model, not this one's from CPUID
export HWLOC_COMPONENTS=-x86
# A program under the shim that reads machine $1 in the set $2.
in_machine() {
	_root=$1 _cpus=$2
	shift 2
	env $(san_env) LD_PRELOAD="$SHIM_PRELOAD" \
		CPUSETSHIM_TEST_ROOT="$_root" CPUSETSHIM_TEST_CPUS="$_cpus" "$@"
}

for F in "$CPS_FIXTURES"/*/; do
	F=${F%/}
	m=$(basename "$F")
	all=$($CMP shapes "$F" | awk '$1 == "all" { print $2 }')
	$CMP shapes "$F" > "$T/shapes"
	lscpu --sysroot "$F" -p > "$T/lscpu-p" 2>/dev/null && lscpu --sysroot "$F" -e > "$T/lscpu-e" 2>/dev/null
	has_lscpu=$?
	in_machine "$F" "$all" numactl --hardware > "$T/numactl" 2>&1
	while read -r shape S; do
		what="$m $shape {$S}"
		in_machine "$F" "$S" env HWLOC_FSROOT="$F" lstopo-no-graphics --of xml - > "$T/got.xml" 2>"$T/err"
		check "$what: lstopo" $CMP hwloc "$F" "$S" "$T/got.xml"
		# hwloc-calc counts every kind of object as the restriction does
		bm=$($PY -c "import sys; sys.path.insert(0, '$SRC/tests/topo'); import compare; print(compare.hwloc_bitmap(compare.cpulist('$S')))")
		for t in pu core l2cache l3cache package; do
			want=$(env HWLOC_FSROOT="$F" hwloc-calc --restrict "$bm" -N $t all 2>&1)
			got=$(in_machine "$F" "$S" env HWLOC_FSROOT="$F" hwloc-calc -N $t all 2>&1)
			expect_eq "$what: hwloc-calc -N $t" "$got" "$want"
		done
		if [ $has_lscpu = 0 ]; then
			for o in p e; do
				in_machine "$F" "$S" lscpu --sysroot "$F" -$o > "$T/got" 2>&1
				check "$what: lscpu -$o" $CMP lscpu "$T/lscpu-$o" "$S" "$T/got" "$F"
			done
		else
			# lscpu cannot read this capture itself (no cpu/possible):
			# inside the set it can, and says each CPU's node
			expect_eq "$what: lscpu -p=cpu,node" \
				"$(in_machine "$F" "$S" lscpu --sysroot "$F" -p=cpu,node 2>&1 | grep -v '^#')" \
				"$($CMP cpu-node "$F" "$S")"
		fi
		# the CPU directory's own list files, in every spelling
		in_machine "$F" "$S" $PY "$SRC/tests/topo/compare.py" read-top "$F" > "$T/got" 2>&1
		expect_eq "$what: the CPU directory's lists in every spelling" "$(cat "$T/got")" \
			"$($CMP top-files "$F" "$S")"
		in_machine "$F" "$S" numactl --hardware > "$T/got" 2>&1
		check "$what: numactl --hardware" $CMP numactl "$T/numactl" "$S" "$T/got" "$all"
		# the set with the nodes of its CPUs as its memory nodes: k
		# nodes numbered from 0, the machine's restricted to them
		N=$($CMP set-nodes "$T/numactl" "$S" "$all")
		if [ -n "$N" ]; then
			env $(san_env) CPUSETSHIM_TEST_MEMS="$N" LD_PRELOAD="$SHIM_PRELOAD" \
				CPUSETSHIM_TEST_ROOT="$F" CPUSETSHIM_TEST_CPUS="$S" numactl --hardware > "$T/got" 2>&1
			check "$what, nodes {$N}: numactl --hardware" $CMP numactl-nodes "$T/numactl" "$S" "$T/got" "$all"
			# hwloc's restriction to the CPUs, then to the nodes
			# (nodeset=), its nodes numbered by their ranks; no
			# groups by distances on either side (compare.py)
			env $(san_env) CPUSETSHIM_TEST_MEMS="$N" LD_PRELOAD="$SHIM_PRELOAD" \
				CPUSETSHIM_TEST_ROOT="$F" CPUSETSHIM_TEST_CPUS="$S" HWLOC_FSROOT="$F" HWLOC_GROUPING=0 \
				lstopo-no-graphics --of xml - > "$T/got.xml" 2>"$T/err"
			check "$what, nodes {$N}: lstopo" $CMP hwloc-nodes "$F" "$S" "$N" "$T/got.xml"
			# lscpu lists the node directory through a copy of its
			# descriptor: the nodes by their virtual numbers there too
			# (where they are renumbered: not nodes 0..k-1)
			if [ "$N" != "$(seq -s, 0 $(($(echo "$N" | tr , '\n' | wc -l) - 1)))" ]; then
				env $(san_env) CPUSETSHIM_TEST_MEMS="$N" LD_PRELOAD="$SHIM_PRELOAD" \
					CPUSETSHIM_TEST_ROOT="$F" CPUSETSHIM_TEST_CPUS="$S" \
					lscpu --sysroot "$F" -e >"$T/got" 2>&1
				expect_eq "$what, nodes {$N}: lscpu -e exit status" "$?" 0 || show "$T/got"
				if [ $has_lscpu = 0 ]; then
					check "$what, nodes {$N}: lscpu -e" $CMP lscpu-nodes "$T/lscpu-e" "$S" "$T/got" "$F" "$N"
				fi
				env $(san_env) CPUSETSHIM_TEST_MEMS="$N" LD_PRELOAD="$SHIM_PRELOAD" \
					CPUSETSHIM_TEST_ROOT="$F" CPUSETSHIM_TEST_CPUS="$S" lscpu --sysroot "$F" >"$T/got" 2>&1
				expect_eq "$what, nodes {$N}: lscpu exit status" "$?" 0 || show "$T/got"
				check "$what, nodes {$N}: lscpu's NUMA lines" $CMP lscpu-numa "$F" "$S" "$N" "$T/got"
			fi
		fi
		# libnuma's node of every virtual CPU is its physical CPU's
		$CMP cpu-node "$F" "$S" > "$T/cpu-node"
		in_machine "$F" "$S" $PY "$SRC/tests/topo/compare.py" node-of-cpu "$T/cpu-node" > "$T/diff" 2>&1
		expect_eq "$what: numa_node_of_cpu" "$?" 0 || show "$T/diff"
	done < "$T/shapes"
	# lscpu cannot read machines captured without a cpu/possible file
	[ $has_lscpu = 0 ] || note "$m: lscpu cannot read this capture itself (no cpu/possible); lscpu -p and -e not compared, its nodes checked"
done
# This machine's CPU directory read by a descriptor of it, in a set of
# physical CPU 1: each list file the kernel has there is the set's part
need taskset util-linux
if [ $((0x$(outside taskset -p $$ | sed 's/.*: //') & 2)) -ne 0 ]; then
	S1=$("$CPUSET" create --cpus 1 --name topo-one) || die "cpuset create --cpus 1"
	in_set "$S1" $PY "$SRC/tests/topo/compare.py" read-top / > "$T/got" 2>&1
	expect_eq "this machine, set {1}: the CPU directory's lists in every spelling" \
		"$(cat "$T/got")" "$($CMP top-files / 1)"
	show "$T/got"
fi
finish
