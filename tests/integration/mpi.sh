#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# MPI launchers inside a set: Open MPI's mpirun and MPICH's mpiexec.hydra,
# in a one-CPU set {1} and a two-CPU set {0,1}, with CPUSETSHIM_WRAP=0 so
# that nothing comes out right by wrapping virtual CPUs onto the set. Both
# take the machine from hwloc (sysfs, cpuinfo, the cgroup's cpuset.cpus,
# the affinity calls) and bind by it:
#   - with --bind-to core and -np equal to the set's size, every rank's
#     real CPU, read from outside the shim, is in the set, and ranks sit
#     on distinct CPUs;
#   - mpirun counts as many slots as the set has CPUs;
#   - the binding report names virtual cores (Open MPI's --report-bindings,
#     Hydra's HYDRA_TOPO_DEBUG=1: cores and PUs below the set's size).
. "$(dirname "$0")/../common.sh"

need taskset util-linux
need mpirun openmpi-bin
need mpiexec.hydra mpich

real_mask=$(outside taskset -p $$ 2>/dev/null | sed 's/.*: //')
[ -n "$real_mask" ] && [ $((0x$real_mask & 3)) -eq 3 ] ||
	skip_all "needs CPUs 0 and 1 (our real mask is $real_mask)"

expect_status "cpuset init (private table $CPUSETSHIM_TABLE)" 0 "$CPUSET" init
S1=$("$CPUSET" create --cpus 1 --name mtest-one) || die "cpuset create --cpus 1 failed"
S2=$("$CPUSET" create --cpus 0-1 --name mtest-two) || die "cpuset create --cpus 0-1 failed"

# Open MPI refuses root unless told; nothing else in the environment may
# decide the mapping.
OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
export OMPI_ALLOW_RUN_AS_ROOT OMPI_ALLOW_RUN_AS_ROOT_CONFIRM
unset OMPI_MCA_hwloc_base_binding_policy OMPI_MCA_rmaps_base_mapping_policy \
	HYDRA_BINDING HYDRA_TOPOLIB HYDRA_HOST_FILE
CPUSETSHIM_WRAP=0
export CPUSETSHIM_WRAP

# Each rank prints its real CPU list, read by a process outside the shim
# (no preload: the kernel's own file).
RANK_CMD='echo "rank-cpus $(env LD_PRELOAD= sed -n "s/^Cpus_allowed_list:[[:space:]]*//p" /proc/$$/status)"'

# check_ranks LABEL N PHYS_LIST OUTPUT_FILE
check_ranks()
{
	_l=$1 _n=$2 _phys=$3 _f=$4
	_cpus=$(awk '$1 == "rank-cpus" { print $2 }' "$_f")
	expect_eq "$_l: $_n ranks ran" "$(echo "$_cpus" | grep -c .)" "$_n"
	_bad=
	for c in $_cpus; do
		case ",$_phys," in *",$c,"*) ;; *) _bad="$_bad $c" ;; esac
	done
	expect_eq "$_l: every rank's real CPUs are in the set ($_phys)" "$_bad" ""
	expect_eq "$_l: ranks on distinct CPUs" "$(echo "$_cpus" | sort | uniq -d)" ""
}

for s in "$S1" "$S2"; do
	if [ "$s" = "$S1" ]; then t="set {1}" n=1 phys=1; else t="set {0,1}" n=2 phys=0,1; fi

	# ---- Open MPI ----
	in_set "$s" mpirun --bind-to core --report-bindings -np $n sh -c "$RANK_CMD" \
		>"$T/ompi.out" 2>&1
	show "$T/ompi.out"
	check_ranks "$t: mpirun --bind-to core -np $n" $n $phys "$T/ompi.out"
	# "MCW rank R bound to socket 0[core C[hwt H]]: [B/.]" names cores and
	# draws one slot per core of the topology; a one-CPU set is "not bound
	# (or bound to all available processors)"
	rep=$(grep 'MCW rank' "$T/ompi.out")
	expect_eq "$t: a binding report line per rank" "$(echo "$rep" | grep -c .)" $n
	expect_eq "$t: the report names only cores below $n" \
		"$(echo "$rep" | grep -o 'core [0-9]*' | awk -v n=$n '$2 >= n' | wc -l)" 0
	expect_eq "$t: the report's maps have $n cores" \
		"$(echo "$rep" | sed -n 's/.*: \[\(.*\)\]$/\1/p' | awk -F/ -v n=$n 'NF != n' | wc -l)" 0
	if [ $n = 1 ]; then
		expect_match "$t: one rank on the one CPU: bound to all available" "$rep" \
			'not bound \(or bound to all available processors\)|core 0\['
	else
		expect_eq "$t: ranks bound to cores 0 and 1" \
			"$(echo "$rep" | grep -o 'core [0-9]*' | sort | tr '\n' ' ')" "core 0 core 1 "
	fi
	# slots: as many as the set has CPUs
	in_set "$s" mpirun --display-allocation -np 1 true >"$T/alloc.out" 2>&1
	expect_match "$t: mpirun's allocation has $n slots" "$(cat "$T/alloc.out")" "slots=$n "
	in_set "$s" mpirun -np $((n + 1)) true >"$T/over.out" 2>&1
	_st=$?
	expect_ne "$t: mpirun -np $((n + 1)) is refused" "$_st" 0
	expect_match "$t: ... for want of slots" "$(cat "$T/over.out")" 'not enough slots'

	# ---- MPICH Hydra ----
	HYDRA_TOPO_DEBUG=1 in_set "$s" mpiexec.hydra -bind-to core -np $n sh -c "$RANK_CMD" \
		>"$T/hydra.out" 2>&1
	show "$T/hydra.out"
	check_ranks "$t: mpiexec.hydra -bind-to core -np $n" $n $phys "$T/hydra.out"
	# "process R binding: BITS": one bit per PU of Hydra's topology
	bits=$(sed -n 's/^process [0-9]* binding: *//p' "$T/hydra.out")
	expect_eq "$t: Hydra's report per rank" "$(echo "$bits" | grep -c .)" $n
	expect_eq "$t: Hydra's topology has $n PUs" \
		"$(echo "$bits" | awk -v n=$n 'length($0) != n' | wc -l)" 0
	expect_eq "$t: Hydra binds each rank to one PU, all distinct" \
		"$(echo "$bits" | awk '{ print index($0, "1") }' | sort -u | wc -l)" $n
done

finish
