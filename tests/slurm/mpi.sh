#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# Open MPI inside a step of the plugin: srun --mpi=pmix when Slurm has the
# PMIx plugin, and mpirun inside an allocation. Each rank runs inside its
# task's CPUs and sees them numbered from 0.
. "$(dirname "$0")/../common.sh"
. "$(dirname "$0")/lib.sh"
slurm_need
need mpicc libopenmpi-dev
need ompi_info openmpi-bin
. "$(dirname "$0")/plugin.sh"

NCPU=$(getconf _NPROCESSORS_ONLN)
[ "$NCPU" -ge 2 ] || skip_all "needs 2 CPUs (this machine has $NCPU)"
field() { echo "$2" | sed -n "s/.* $1 \([^ ]*\).*/\1/p"; }

# the reporter as an MPI program
mpicc -DWITH_MPI -I"${CPS_SRCDIR:-$(dirname "$0")/../..}" -o "$T/prog_mpi" \
	"$(dirname "$0")/prog_report.c" 2>"$T/cc.err" ||
	die "mpicc: $(cat "$T/cc.err")"
# Open MPI refuses root unless told
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
# no network probing: one node, shared memory
export OMPI_MCA_btl=self,vader OMPI_MCA_btl_vader_single_copy_mechanism=none

# one way: its name, then the command that runs two ranks
run_ranks() {
	how=$1
	shift
	"$@" >"$T/out" 2>"$T/err"
	rc=$?
	echo "# $how"
	expect_eq "$how: exit" "$rc" 0
	[ "$rc" = 0 ] || cat "$T/err"
	expect_eq "$how: two ranks" "$(grep -c '^task' "$T/out")" 2
	for r in 0 1; do
		l=$(grep "^task $r " "$T/out")
		expect_eq "$how: rank $r in the table" "$(field table "$l")" "$UT"
		if [ "$how" = "srun --mpi=pmix" ]; then
			# each rank is a task: one CPU of its own, seen as CPU 0
			expect_eq "$how: rank $r sees one CPU" "$(field ncpus "$l")" 1
			expect_eq "$how: rank $r sees CPU 0" "$(field seen "$l")" 0
		else
			# the ranks are children of the one task on the node (orted)
			expect_eq "$how: rank $r sees the task's CPUs" "$(field ncpus "$l")" 2
		fi
		eval "real$r=\$(field real \"\$l\")"
	done
	if [ "$how" = "srun --mpi=pmix" ]; then
		[ -n "$real0" ] && expect_ne "$how: the ranks' real CPUs are distinct" "$real0" "$real1"
	fi
	check_clean "$how"
}

# srun --mpi=pmix where Slurm has the PMIx plugin (Debian's has)
if sl srun --mpi=list 2>&1 | grep -q pmix; then
	run_ranks "srun --mpi=pmix" sl srun --mpi=pmix -n2 -c1 "$T/prog_mpi"
else
	skip "srun --mpi=pmix" "this Slurm has no PMIx plugin (srun --mpi=list)"
fi
# mpirun inside an allocation, always: mpirun runs where salloc does,
# outside any task; its ranks (children of orted, a task) get mpirun's
# environment, so they name the table the plugin uses as a user's would by
# default
run_ranks "mpirun in salloc" sl CPUSETSHIM_TABLE="$UT" salloc -n2 -c1 mpirun -n 2 "$T/prog_mpi"

finish
