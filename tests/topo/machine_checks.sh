# SPDX-License-Identifier: BSD-3-Clause
# The checks of one captured or dumped machine, sourced by
# tests/topo/machines.sh (hwloc's captures) and tests/topo/dumps.sh
# (util-linux's dumps): for sets of several shapes on the machine, hwloc
# (lstopo --of xml, hwloc-calc), lscpu -p and -e and numactl --hardware run
# under the shim report exactly what the tool's own restriction of the
# machine to those CPUs reports, but for the CPUs renumbered 0..n-1
# (tests/topo/compare.py says how each is compared).
#
#     machine_prelude VAR DIR WHAT
#     machine_checks DIR
#
# Needs common.sh; machine_prelude sets PY and CMP, needs the tools,
# checks that DIR (the value of VAR) holds the unpacked machines (WHAT),
# makes the table and exports HWLOC_COMPONENTS=-x86 (the machine's CPU
# model, not this one's from CPUID). tests/topo/random.sh takes
# in_machine from here too.

machine_prelude() {
	PY=$PYTHON3
	CMP="$PY $SRC/tests/topo/compare.py"
	need lstopo-no-graphics hwloc
	need hwloc-calc hwloc
	need lscpu util-linux
	need numactl numactl
	need "$PY" python3
	[ -d "$2" ] || die "no unpacked $3 in $1='$2'"
	"$CPUSET" init >/dev/null || die "cpuset init"
	export HWLOC_COMPONENTS=-x86
}

# A program under the shim that reads machine $1 in the set $2.
in_machine() {
	_root=$1 _cpus=$2
	shift 2
	env $(san_env) LD_PRELOAD="$SHIM_PRELOAD" \
		CPUSETSHIM_TEST_ROOT="$_root" CPUSETSHIM_TEST_CPUS="$_cpus" "$@"
}

# cmp_cpuinfo DIR S: /proc/cpuinfo read in the set S of machine DIR
# against compare.py cpuinfo (the set's blocks, each its CPU's own, their
# ids as the ids rule says; a header's CPU lines and counts); its verdict
# printed, its status returned
cmp_cpuinfo() {
	in_machine "$1" "$2" cat "$1/proc/cpuinfo" >"$T/cpuinfo.got" 2>&1
	$CMP cpuinfo "$1" "$2" "$T/cpuinfo.got"
}
# cmp_cpu_files DIR S: every list and mask file of the set's CPUs (lists
# that end in "\n\0" among them) read in the set, against the machine's
# restricted (compare.py cpu-files)
cmp_cpu_files() {
	$CMP file-list "$1" "$2" >"$T/files.paths"
	in_machine "$1" "$2" $PY "$SRC/tests/topo/compare.py" read-files "$T/files.paths" >"$T/files.got" 2>&1
	$CMP cpu-files "$1" "$2" "$T/files.got"
}

# numactl_whole DIR ALL OUT: numactl --hardware of the whole machine into
# the file OUT, made by
# numactl itself with no shim where it can be (root: a private mount
# namespace with the machine's cpu and node directories bound over this
# one's, and no node directory where the machine has none), and sets
# numactl_cpus to "native"; elsewhere the shim's answer in the set ALL of
# every CPU, numactl_cpus=ALL (then a defect common to the set and the
# whole machine cannot show)
numactl_whole() {
	_sys=$1/sys/devices/system
	numactl_cpus=native
	if [ -d "$_sys/node" ]; then
		_binds="mount --bind '$_sys/cpu' /sys/devices/system/cpu && mount --bind '$_sys/node' /sys/devices/system/node"
	else
		_binds="mount -t tmpfs none /sys/devices/system && mkdir /sys/devices/system/cpu && mount --bind '$_sys/cpu' /sys/devices/system/cpu"
	fi
	# libnuma sizes its CPU masks by this kernel's (the answer of a raw
	# sched_getaffinity), so a machine whose kernel printed wider masks
	# cannot be read natively here: libnuma warns that it cannot parse a
	# cpumap, and the shim's whole-machine answer is taken instead
	if [ "$(id -u)" = 0 ] && unshare -m sh -c "$_binds && exec numactl --hardware" >"$T/numactl.native" 2>&1 &&
		! grep -q 'libnuma: Warning' "$T/numactl.native"; then
		cp "$T/numactl.native" "$3"
		return 0
	fi
	grep -q 'libnuma: Warning' "$T/numactl.native" 2>/dev/null &&
		note "$(basename "$1"): numactl cannot read the whole machine natively ($(grep -m 1 'libnuma: Warning' "$T/numactl.native")): compared with the shim's answer for every CPU"
	numactl_cpus=$2
	in_machine "$1" "$2" numactl --hardware >"$3" 2>&1
}

# oracle_check DESC CMD...: check, but CMD's exit status 3 says that the
# oracle cannot judge this machine (compare.py prints why): a TAP TODO
# that names the cause, counted apart, never a pass
oracle_check() {
	_d=$1
	shift
	"$@" >"$T/oracle" 2>&1
	case $? in
	0) pass "$_d" ;;
	3)
		cps_n=$((cps_n + 1))
		echo "not ok $cps_n - $(cps_desc "$_d") # TODO $(cps_desc "$(grep -m 1 '^ORACLE: ' "$T/oracle" | sed 's/^ORACLE: //')")"
		;;
	*) fail "$_d" "$(cat "$T/oracle")" ;;
	esac
}

machine_checks() {
	F=${1%/}
	# progress: each machine begun pushes the test's deadline on by the
	# per-test limit (tests/run-test.sh, CPS_TEST_EXTEND), so that a
	# loaded machine slows the test without stopping it
	[ -z "${CPS_TEST_EXTEND:-}" ] || echo $(($(date +%s) + ${CPS_TEST_TIMEOUT:-600})) >"$CPS_TEST_EXTEND"
	F=${F%/}
	m=$(basename "$F")
	all=$($CMP shapes "$F" | awk '$1 == "all" { print $2 }')
	$CMP shapes "$F" > "$T/shapes"
	lscpu --sysroot "$F" -p > "$T/lscpu-p" 2>/dev/null && lscpu --sysroot "$F" -e > "$T/lscpu-e" 2>/dev/null
	has_lscpu=$?
	numactl_whole "$F" "$all" "$T/numactl"
	full=$numactl_cpus
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
				oracle_check "$what: lscpu -$o" $CMP lscpu "$T/lscpu-$o" "$S" "$T/got" "$F"
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
		check "$what: /proc/cpuinfo" cmp_cpuinfo "$F" "$S"
		check "$what: topology and cache lists and masks" cmp_cpu_files "$F" "$S"
		in_machine "$F" "$S" numactl --hardware > "$T/got" 2>&1
		check "$what: numactl --hardware" $CMP numactl "$T/numactl" "$S" "$T/got" "$full"
		# the set with the nodes of its CPUs as its memory nodes: k
		# nodes numbered from 0, the machine's restricted to them
		N=$($CMP set-nodes "$T/numactl" "$S" "$full")
		if [ -n "$N" ]; then
			env $(san_env) CPUSETSHIM_TEST_MEMS="$N" LD_PRELOAD="$SHIM_PRELOAD" \
				CPUSETSHIM_TEST_ROOT="$F" CPUSETSHIM_TEST_CPUS="$S" numactl --hardware > "$T/got" 2>&1
			check "$what, nodes {$N}: numactl --hardware" $CMP numactl-nodes "$T/numactl" "$S" "$T/got" "$full"
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
					oracle_check "$what, nodes {$N}: lscpu -e" $CMP lscpu-nodes "$T/lscpu-e" "$S" "$T/got" "$F" "$N"
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
}
