# SPDX-License-Identifier: BSD-3-Clause
# The checks of a machine's description in one set, sourced by
# tests/topo/host.sh (this machine) and tests/topo/roots.sh (captured
# machines through the shim's test root, as they are and with their cache
# directories taken away). Every expectation is read from the machine
# itself and restricted to the set (tests/topo/compare.py view): a file the
# machine lacks must be missing in the view too, so the same checks hold
# on a machine with or without caches, NUMA nodes, cpufreq or any
# topology file.
#
#     topo_checks R S WHAT
#
# R: the machine's root ("" for this machine's own /sys and /proc; a
# captured tree otherwise), S: the set as a list of R's CPUs, WHAT: the
# prefix of the checks' names. The caller defines run (CMD... in the set,
# under the shim) and, for R, run_whole (the same in the set WHOLE of all
# of R's CPUs) and exports HWLOC_COMPONENTS=-x86 (hwloc must not ask this
# CPU). Needs common.sh, PY and CMP.

# vcat PATH: the file as the set reads it; "ENOENT" if it does not exist,
# "EACCES" if it may not be read, "ERROR ..." for any other failure
vcat() {
	if run cat "$1" >"$T/vcat" 2>"$T/vcat.err"; then
		cat "$T/vcat"
	elif grep -q 'No such file' "$T/vcat.err"; then
		echo ENOENT
	elif grep -q 'Permission denied' "$T/vcat.err"; then
		echo EACCES
	else
		echo "ERROR $(cat "$T/vcat.err")"
	fi
}
# vls DIR: the cpuN entries of DIR as the set lists it, in order; ENOENT
# if the directory does not exist
vls() {
	if run ls "$1" >"$T/vls" 2>"$T/vls.err"; then
		grep '^cpu[0-9][0-9]*$' "$T/vls" | sort -V | tr '\n' ' ' | sed 's/ $//'
	elif grep -q 'No such file' "$T/vls.err"; then
		echo ENOENT
	else
		echo "ERROR $(cat "$T/vls.err")"
	fi
}
# want PATH: what PATH must read in the set (from $T/want)
want() { sed -n "s|^$1: ||p" "$T/want"; }

topo_checks() {
	R=$1 S=$2 W=$3
	# the program's paths are the machine's own: below the test root, the
	# shim takes /sys as R's; read outside the shim at $R$SYS
	SYS=/sys/devices/system/cpu
	NODE=/sys/devices/system/node
	BUS=/sys/bus/cpu/devices
	ROOT=${R:-/}
	phys=$($PY -c "import sys; sys.path.insert(0, '$SRC/tests/topo'); import compare; print(' '.join(map(str, compare.cpulist('$S'))))")
	set -- $phys
	n=$#
	p0=$1
	eval "pl=\${$n}"
	last=$((n - 1))
	LSCPU="lscpu${R:+ --sysroot $R}"
	HWENV="env${R:+ HWLOC_FSROOT=$R}"
	vnames=$($CMP names "0-$last")

	# ---- listings: cpu0..cpu(n-1), nothing beyond ----
	expect_eq "$W ls $SYS" "$(vls "$SYS")" "$vnames"
	# the machine's own entries, restricted (a machine without the
	# directory: none in the set either)
	expect_eq "$W ls $BUS$([ -d "$R$BUS" ] || echo ': none on the machine')" "$(vls "$BUS")" \
		"$($CMP entries "$ROOT" "$S" "$BUS")"
	[ -d "$R$BUS" ] &&
		expect_eq "$W readlink bus link" "$(run readlink "$BUS/cpu$last")" "../../../devices/system/cpu/cpu$last"
	expect_eq "$W readlink beyond" "$(run readlink "$BUS/cpu$n"; echo $?)" 1
	expect_eq "$W python listdir" "$(run $PY -c "import os; print(' '.join(sorted((e for e in os.listdir('$SYS') if e[3:].isdigit()), key=lambda e: int(e[3:]))))")" "$vnames"
	expect_eq "$W glob(3)" "$(run "$B/tests/topo/lsglob" "$SYS/cpu[0-9]*" | sort -V | tr '\n' ' ')" "$(seq -f "$SYS/cpu%.0f" 0 $last | tr '\n' ' ')"
	expect_eq "$W nftw(3)" "$(run "$B/tests/topo/lsglob" -w "$SYS" | grep -E "^$SYS/cpu[0-9]+\$" | sort -V | tr '\n' ' ')" "$(seq -f "$SYS/cpu%.0f" 0 $last | tr '\n' ' ')"
	# the other entries are the machine's
	expect_eq "$W other entries" "$(run ls "$SYS" | grep -v '^cpu[0-9]')" "$(ls "$R$SYS" | grep -v '^cpu[0-9]')"

	# ---- the files: every file of the machine's first and last CPU of
	# the set, by their virtual names, and the names a machine may lack
	# (the kernel's topology, cache and cpufreq files) ----
	: >"$T/paths"
	for v in 0 $last; do
		eval "p=\${$((v + 1))}"
		for f in topology/core_id topology/physical_package_id topology/die_id \
			topology/cluster_id topology/thread_siblings topology/thread_siblings_list \
			topology/core_cpus topology/core_cpus_list topology/core_siblings_list \
			topology/die_cpus_list topology/cluster_cpus_list topology/package_cpus \
			topology/package_cpus_list cache/index0/shared_cpu_map \
			cache/index2/shared_cpu_list cache/index3/shared_cpu_list cache/index3/level \
			cpufreq/related_cpus cpufreq/affected_cpus; do
			echo "$SYS/cpu$v/$f" >>"$T/paths"
		done
		# (cpufreq's other files move: its CPU lists are named above)
		[ -d "$R$SYS/cpu$p" ] && (cd "$R$SYS/cpu$p" && find topology cache -type f 2>/dev/null) |
			sed "s|^|$SYS/cpu$v/|" >>"$T/paths"
	done
	for f in online possible present kernel_max offline isolated enabled nohz_full; do
		echo "$SYS/$f" >>"$T/paths"
	done
	echo "$NODE/has_cpu" >>"$T/paths"
	nodes=$(ls "$R$NODE" 2>/dev/null | grep '^node[0-9][0-9]*$' | sort -V)
	for k in $nodes; do
		echo "$NODE/$k/cpulist" >>"$T/paths"
		echo "$NODE/$k/cpumap" >>"$T/paths"
	done
	sort -u -o "$T/paths" "$T/paths"
	# what each must read: the machine's file restricted to the set
	$CMP view "$ROOT" "$S" $(cat "$T/paths") >"$T/want"
	: >"$T/got"
	while read -r f; do
		echo "$f: $(vcat "$f")" >>"$T/got"
	done <"$T/paths"
	# the named ones as checks of their own, the machine's whole list as one
	for f in cpu0/topology/thread_siblings_list cpu0/topology/core_cpus \
		cpu0/topology/package_cpus_list cpu0/cache/index3/shared_cpu_list \
		cpu0/cache/index0/shared_cpu_map cpu$last/topology/core_id \
		online possible present kernel_max; do
		w=$(want "$SYS/$f")
		expect_eq "$W $f$([ "$w" = ENOENT ] && echo ': none on the machine, none in the set')" \
			"$(sed -n "s|^$SYS/$f: ||p" "$T/got")" "$w"
	done
	what="every file of cpu0$([ $last = 0 ] || echo " and cpu$last"), the CPU directory and the nodes"
	if diff "$T/want" "$T/got" >"$T/diff"; then
		pass "$W $what ($(grep -c ': ENOENT$' "$T/want") of $(wc -l <"$T/paths") absent)"
	else
		fail "$W $what" "$(cat "$T/diff")"
	fi
	# each node's cpuN links: the machine's, restricted (where it has
	# them: a capture may lack them), and only CPUs of the node's cpulist
	for k in $nodes; do
		got=$(vls "$NODE/$k")
		expect_eq "$W $k links" "$got" "$($CMP entries "$ROOT" "$S" "$NODE/$k")"
		for c in $got; do
			$CMP names "$(want "$NODE/$k/cpulist")" | grep -qw "$c" ||
				fail "$W $k links: $c is not in the node's cpulist [$(want "$NODE/$k/cpulist")]"
		done
	done
	[ -n "$nodes" ] || expect_eq "$W no node directory on the machine: none in the set" \
		"$(vls "$NODE/node0")" ENOENT

	# ---- the listings through every copy of a descriptor (dup, dup2,
	# dup3, F_DUPFD, F_DUPFD_CLOEXEC, one passed over a socket, the
	# original or a copy closed; tests/topo/lsdup): each the same as
	# opendir's, whose cpuN entries are the machine's restricted, and
	# every cpuN and nodeN entry opened relative to the copy ----
	ldirs=$SYS
	[ -d "$R$NODE" ] && ldirs="$ldirs $NODE"
	for k in $nodes; do ldirs="$ldirs $NODE/$k"; done
	run "$B/tests/topo/lsdup" $ldirs >"$T/lsdup" 2>&1
	for d in $ldirs; do
		grep "^$d opendir: " "$T/lsdup" | sed "s|^$d opendir: ||" >"$T/lsdup.want"
		case $d in
		"$SYS") wc=$vnames ;;
		"$NODE") wc= ;;
		*) wc=$($CMP entries "$ROOT" "$S" "$d") ;;
		esac
		expect_eq "$W $d opendir: its cpuN entries" \
			"$(sed 's/ [|] openat:.*//' "$T/lsdup.want" | tr ' ' '\n' | grep '^cpu[0-9][0-9]*$' | sort -V | tr '\n' ' ' | sed 's/ $//')" \
			"$wc"
		expect_match "$W $d opendir: every entry opened, none beyond" "$(cat "$T/lsdup.want")" ' [|] openat: ok$'
		expect_eq "$W $d: the listing through every copy of a descriptor is opendir's" \
			"$(grep "^$d [^ ]*: " "$T/lsdup" | grep -v "^$d opendir: " |
				while read -r _d m rest; do [ "$rest" = "$(cat "$T/lsdup.want")" ] || echo "$m $rest"; done)" ""
	done
	expect_eq "$W lsdup: every method of every directory" "$(grep -c ': ' "$T/lsdup")" \
		"$((10 * $(echo $ldirs | wc -w)))"
	# Python's os.listdir(fd) lists a copy (fdopendir(dup(fd)))
	expect_eq "$W python listdir(fd)" "$(run $PY -c "import os; print(' '.join(sorted((e for e in os.listdir(os.open('$SYS', os.O_RDONLY)) if e[3:].isdigit()), key=lambda e: int(e[3:]))))")" "$vnames"

	# ---- CPUs beyond the set do not exist ----
	expect_status "$W cat cpu$n/topology/core_id" 1 run cat "$SYS/cpu$n/topology/core_id"
	expect_stderr "$W cat cpu$n ENOENT" "No such file"
	expect_status "$W ls cpu$n" 2 run ls "$SYS/cpu$n"
	expect_status "$W stat cpu$n" 1 run stat -c %n "$SYS/cpu$n"
	expect_eq "$W test -e cpu$n" "$(run sh -c "test -e $SYS/cpu$n && echo yes || echo no")" no
	expect_eq "$W stat cpu0 is physical cpu$p0" "$(run stat -c %i "$SYS/cpu0")" "$(stat -c %i "$R$SYS/cpu$p0")"
	expect_eq "$W python stat" "$(run $PY -c "import os; print(os.path.exists('$SYS/cpu$n'), os.path.isdir('$SYS/cpu$last'), $([ -d "$R$BUS" ] || echo "not os.path.isdir('$BUS') or") os.stat('$BUS/cpu0').st_ino == os.stat('$SYS/cpu0').st_ino)")" "False True True"
	expect_eq "$W access cpu$n" "$(run $PY -c "import os; print(os.access('$SYS/cpu$n', os.F_OK), os.access('$SYS/cpu$last', os.X_OK))")" "False True"

	# ---- the tools, against their own restriction of the machine ----
	run env ${R:+HWLOC_FSROOT=$R} lstopo-no-graphics --of xml - >"$T/got.xml"
	check "$W lstopo" $CMP hwloc "$ROOT" "$S" "$T/got.xml"
	bm=$($PY -c "import sys; sys.path.insert(0, '$SRC/tests/topo'); import compare; print(compare.hwloc_bitmap(compare.cpulist('$S')))")
	for t in pu core l2cache l3cache package; do
		expect_eq "$W hwloc-calc -N $t" "$(run $HWENV hwloc-calc -N $t all 2>&1)" \
			"$(LD_PRELOAD= $HWENV hwloc-calc --restrict "$bm" -N $t all 2>&1)"
	done
	expect_eq "$W hwloc-calc pu:0 core" "$(run $HWENV hwloc-calc -I core pu:0)" 0
	expect_eq "$W lscpu CPU(s)" "$(run $LSCPU | sed -n 's/^CPU(s): *//p')" $n
	if LD_PRELOAD= $LSCPU -p >"$T/lscpu-p" 2>/dev/null; then
		run $LSCPU -p >"$T/got" 2>&1
		check "$W lscpu -p" $CMP lscpu "$T/lscpu-p" "$S" "$T/got" "$ROOT"
	else
		note "$W: lscpu cannot read this machine itself; lscpu -p not compared"
	fi
	# numactl --hardware: the machine's node lines, each node's CPUs
	# restricted to the set
	if [ -n "$nodes" ]; then
		run numactl --hardware >"$T/got" 2>&1
		if [ -n "$R" ]; then
			# the whole machine as numactl sees it through the test root: in
			# the set of all its CPUs (run_whole, the caller's)
			run_whole numactl --hardware >"$T/numactl" 2>&1
			check "$W numactl --hardware" $CMP numactl "$T/numactl" "$S" "$T/got" "$WHOLE"
		else
			numactl --hardware >"$T/numactl" 2>&1
			check "$W numactl --hardware" $CMP numactl "$T/numactl" "$S" "$T/got"
		fi
	fi
	# libnuma's node of every virtual CPU is its physical CPU's (from the
	# machine's node directories, read outside the shim; without any,
	# libnuma's own answer outside the set), and none beyond the set
	nodeof="import ctypes; l = ctypes.CDLL('libnuma.so.1'); l.numa_available(); print(' '.join(str(l.numa_node_of_cpu(c)) for c in"
	if [ -n "$nodes" ] || [ -n "$R" ]; then
		wn="$($CMP node-of "$ROOT" "$S") -1"
	else
		wn="$(LD_PRELOAD= $PY -c "$nodeof [$(echo $phys | tr ' ' ,)]))") -1"
	fi
	expect_eq "$W numa_node_of_cpu" "$(run $PY -c "$nodeof range($n + 1)))")" "$wn"
}
