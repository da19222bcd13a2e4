#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# The SPANK plugin on a private cluster of three nodes (cluster_lib.sh
# here: each slurmd in its own network, UTS and mount namespaces,
# on a bridge; the nodes share this machine's CPUs). Jobs across nodes:
# each task sees exactly its CPUs numbered 0..n-1 on its own node, its set
# is slurm.J.S.T by its global rank T in that node's table, the real CPUs
# are read from outside (/proc, and each node's table in its own /dev/shm),
# and after each job no set is left on any node.
. "$(dirname "$0")/../common.sh"
. "$(dirname "$0")/lib.sh"
slurm_need
. "$(dirname "$0")/cluster_lib.sh"
cluster_need
SLURM_STARTER=cluster_start
. "$(dirname "$0")/plugin.sh"

NCPU=$(getconf _NPROCESSORS_ONLN)
[ "$NCPU" -ge 2 ] || skip_all "needs 2 CPUs (this machine has $NCPU)"
field() { echo " $2" | sed -n "s/.* $1 \([^ ]*\).*/\1/p"; }
HOLD="$REPORT --hold $T/go"

# ---- running held jobs ----

# reporter lines of every output: srun's ($T/held.out) and the batch
# jobs' ($T/job*.out)
lines() { cat "$T/held.out" "$T"/job*.out 2>/dev/null | grep '^task .* table [^ ]*$'; }
have_lines() { [ "$(lines | wc -l)" -ge "$1" ] || ! kill -0 "$held_pid" 2>/dev/null; }
# held N CMD...: CMD (srun, salloc or sbatch --wait of the reporter held
# until $T/go) in the background until N reporter lines are out
held() {
	_n=$1
	shift
	rm -f "$T/go" "$T"/job*.out
	sl "$@" >"$T/held.out" 2>"$T/held.err" &
	held_pid=$!
	wait_until have_lines "$_n"
	[ "$(lines | wc -l)" -ge "$_n" ] && return 0
	note "$* gave $(lines | wc -l) of $_n lines:" "$(cat "$T/held.out" "$T/held.err" "$T"/job*.out 2>&1)"
	return 1
}
release() {
	touch "$T/go"
	sl_wait "$held_pid"
	held_rc=$?
}

# node_sets N: node N's table (name and CPUs of each set), read in its own
# /dev/shm, without making a table where there is none
node_sets() {
	on_node "$1" sh -c '[ -e "/dev/shm/$1" ] && "$2" --table "$1" list' sh "$UT" "$CPUSET" 2>/dev/null |
		awk 'NR > 1 { print $3, $NF }'
}
snapshot() {
	for _n in $(seq 1 "$CL_NODES"); do
		node_sets "$_n" >"$T/sets.$_n"
	done
}
# set_cpus N NAME: a set's CPUs in node N's listing (node_sets), expanded, or none
set_cpus() {
	_c=$(awk -v n="$2" '$1 == n { print $2 }' "$T/sets.$1")
	[ -n "$_c" ] && expand "$_c" || echo none
}
# upto K: 0,1,...,K-1
upto() { seq 0 $(($1 - 1)) | paste -sd, -; }

# check_tasks DESC: every reporter line, against the truth read outside:
# its node is the one whose namespaces it runs in, its kernel mask (/proc)
# is what it reports, it sees 0..k-1 of its k CPUs, its set slurm.J.S.T
# on its node's table is exactly that mask, and no other node has that
# set. The tasks of a step on one node have distinct CPUs unless SHARED.
check_tasks() {
	snapshot
	lines >"$T/lines"
	while read -r l; do
		t=$(field task "$l") node=$(field node "$l") pid=$(field pid "$l")
		n=$(node_of "$node")
		name=$(set_of "$l")
		[ -z "${HET_FIRST:-}" ] || name=$(het_set "$l")
		outside=$(expand "$(real_cpus "$pid")")
		k=$(echo "$outside" | tr , '\n' | wc -l)
		expect_eq "$1: task $t's node is its namespaces' host name" \
			"$(nsenter -t "$pid" --uts hostname)" "$node"
		expect_eq "$1: task $t reports its kernel mask" "$(field real "$l")" "$outside"
		expect_eq "$1: task $t sees 0..$((k - 1))" "$(field seen "$l") $(field ncpus "$l")" "$(upto "$k") $k"
		expect_eq "$1: task $t's set $name on $node" "$(set_cpus "$n" "$name")" "$outside"
		for m in $(seq 1 "$CL_NODES"); do
			[ "$m" = "$n" ] && continue
			expect_eq "$1: task $t's set not on cpsn$m" "$(set_cpus "$m" "$name")" none
		done
		echo "$(step_of "$l") $node $outside" >>"$T/cpus"
	done <"$T/lines"
	if [ -z "${SHARED:-}" ]; then
		dup=$(sort "$T/cpus" | awk '{ split($3, c, ","); for (i in c) print $1, $2, c[i] }' | sort | uniq -d)
		expect_eq "$1: tasks of a step on a node have distinct CPUs" "$dup" ""
	fi
	rm -f "$T/cpus"
}
# het_set LINE: the set of a task of a heterogeneous step, whose
# components' first global ranks are HET_FIRST: Slurm gives the plugin
# (S_JOB_ID, S_TASK_GLOBAL_ID) the component's job (the job's id plus
# the component's index) and the task's rank within the component
het_set() {
	_r=$(field task "$1") _k=-1 _f0=0
	for _f in $HET_FIRST; do
		[ "$_r" -ge "$_f" ] || break
		_k=$((_k + 1)) _f0=$_f
	done
	echo "slurm.$(($(field job "$1") + _k)).$(field step "$1").$((_r - _f0))"
}
# placement DESC WANT: "rank:node" of every line, by rank
placement() {
	expect_eq "$1: ranks on nodes" "$(lines | while read -r l; do
		echo "$(field task "$l"):$(field node "$l")"
	done | sort -n | paste -sd' ' -)" "$2"
}
# clean DESC: once the job has ended, no node has a set left: its table is
# gone (the user's last job on the node removed it) or holds the root alone
node_clean() {
	on_node "$1" sh -c '[ ! -e "/dev/shm/$1" ] || [ "$("$2" --table "$1" --tree 2>/dev/null | wc -l)" -le 1 ]' \
		sh "$UT" "$CPUSET_INSPECT"
}
clean() {
	for n in $(seq 1 "$CL_NODES"); do
		if wait_until node_clean "$n"; then
			pass "$1: nothing left on cpsn$n"
		else
			fail "$1: nothing left on cpsn$n" "$(on_node "$n" "$CPUSET_INSPECT" --table "$UT" --tree 2>&1)"
		fi
		expect_eq "$1: no kept views on cpsn$n" \
			"$(on_node "$n" sh -c 'ls -d /dev/shm/$1.views.* 2>/dev/null' sh "$UT")" ""
	done
}
# one DESC N WANT-PLACEMENT CMD...: a held job of N tasks, checked, released
one() {
	_d=$1 _nl=$2 _want=$3
	shift 3
	echo "# $_d"
	if held "$_nl" "$@"; then
		pass "$_d: $_nl tasks started"
		[ -z "$_want" ] || placement "$_d" "$_want"
		check_tasks "$_d"
	else
		fail "$_d: $_nl tasks started"
	fi
	release
	expect_eq "$_d: exit status" "$held_rc" 0
	clean "$_d"
}

# ---- jobs across nodes ----

one "srun -N3 -n6" 6 "0:cpsn1 1:cpsn1 2:cpsn2 3:cpsn2 4:cpsn3 5:cpsn3" \
	srun -N3 -n6 $HOLD
one "srun -N2 --ntasks-per-node=2 -c1" 4 "0:cpsn1 1:cpsn1 2:cpsn2 3:cpsn2" \
	srun -N2 --ntasks-per-node=2 -c1 $HOLD
one "srun -N3 -n6 --distribution=cyclic" 6 "0:cpsn1 1:cpsn2 2:cpsn3 3:cpsn1 4:cpsn2 5:cpsn3" \
	srun -N3 -n6 --distribution=cyclic $HOLD
one "salloc -N3 then srun" 3 "0:cpsn1 1:cpsn2 2:cpsn3" \
	salloc -N3 -n3 srun $HOLD

# two --exclusive steps side by side in one allocation: each gets one CPU
# of each node, not the other's
printf '#!/bin/sh\nsrun --exclusive -N2 -n2 -c1 %s &\nsrun --exclusive -N2 -n2 -c1 %s &\nwait\n' \
	"$HOLD" "$HOLD" >"$T/excl.sh"
one "--exclusive steps side by side" 4 "" sbatch --wait -N2 -n4 -o "$T/job.excl.out" "$T/excl.sh"
# (two steps, and no CPU of a node in both)
expect_eq "--exclusive: two steps" "$(awk '/^task/ { print $6 }' "$T/job.excl.out" | sort -u | wc -l)" 2
expect_eq "--exclusive: no CPU of a node in both steps" \
	"$(awk '/^task/ { print $16, $14 }' "$T/job.excl.out" | sort | uniq -d)" ""

# --overlap: a step over every CPU of the allocation, and a second one
# sharing them
printf '#!/bin/sh\nsrun -N2 -n4 -c1 %s &\nsrun --overlap -N2 -n2 %s &\nwait\n' "$HOLD" "$HOLD" >"$T/over.sh"
SHARED=1 one "--overlap" 6 "" sbatch --wait -N2 -n4 -o "$T/job.over.out" "$T/over.sh"
unset SHARED

# a step on a subset of the batch job's nodes: the others have no set of it
printf '#!/bin/sh\nsrun -N2 -n2 --relative=1 %s\n' "$HOLD" >"$T/sub.sh"
one "sbatch, a step on nodes 2-3 of 3" 2 "0:cpsn2 1:cpsn3" sbatch --wait -N3 -n3 -o "$T/job.sub.out" "$T/sub.sh"

# a job array: each element a job of its own, its sets named by its id
printf '#!/bin/sh\nsrun -n1 %s\n' "$HOLD" >"$T/arr.sh"
one "a job array of 3" 3 "" sbatch --wait --array=0-2 -n1 -o "$T/job.arr.%a.out" "$T/arr.sh"

# a heterogeneous job: two components, one step over both (global ranks
# 0 and 1-2)
HET_FIRST="0 1" one "a heterogeneous job" 3 "" srun -N1 -n1 -c2 : -N2 -n2 -c1 $HOLD
unset HET_FIRST

# ---- MPI across nodes: two ranks a node, an allreduce of what they see ----

# mpi_case DESC N CMD...: N ranks on three nodes, two a node, each seeing
# its CPUs from 0 in the table; rank 0's allreduce of the ranks' seen CPU
# numbers is the sum and the largest of what the ranks said
mpi_case() {
	_d=$1 _nr=$2
	shift 2
	echo "# $_d"
	# Open MPI 4.1's TCP transport gives up on a connection between nodes
	# that a busy machine makes slow ("failed to TCP connect to a peer MPI
	# process ... Operation now in progress"), and the rank then dies: a
	# launch that fails so is noted and made again, twice at most; any
	# other failure counts at once
	for _try in 1 2 3; do
		sl "$@" >"$T/mpi.out" 2>"$T/mpi.err"
		_rc=$?
		[ "$_rc" != 0 ] && [ "$_try" -lt 3 ] &&
			grep -q 'failed to TCP connect to a peer MPI' "$T/mpi.err" || break
		note "$_d (try $_try): Open MPI could not connect its ranks over TCP; again" \
			"$(grep -A6 'failed to TCP connect' "$T/mpi.err" | head -n 7)"
		for n in $(seq 1 "$CL_NODES"); do
			wait_until node_clean "$n" || note "$_d: cpsn$n not clean after the failed try"
		done
	done
	expect_eq "$_d: exit status" "$_rc" 0 || note "$(tail -n 30 "$T/mpi.err")"
	grep '^task' "$T/mpi.out" >"$T/mpi.lines"
	expect_eq "$_d: $_nr ranks" "$(wc -l <"$T/mpi.lines")" "$_nr"
	expect_eq "$_d: two ranks a node" "$(awk '{ print $16 }' "$T/mpi.lines" | sort | uniq -c | awk '{ print $1 }' | sort -u)" 2
	expect_eq "$_d: every rank in the table" "$(awk '{ print $NF }' "$T/mpi.lines" | sort -u)" "$UT"
	_sum=0 _max=-1 _bad=
	while read -r l; do
		_seen=$(field seen "$l") _real=$(field real "$l")
		_k=$(echo "$_real" | tr , '\n' | wc -l)
		# a rank bound by its launcher within its task: its seen CPUs are
		# as many as its real ones, all below the task's count
		[ "$(echo "$_seen" | tr , '\n' | wc -l)" = "$_k" ] || _bad="$_bad [$l]"
		for c in $(echo "$_seen" | tr , ' '); do
			[ "$c" -lt "$(field ncpus "$l")" ] || _bad="$_bad [$l]"
			_sum=$((_sum + c))
			[ "$c" -le "$_max" ] || _max=$c
		done
	done <"$T/mpi.lines"
	expect_eq "$_d: each rank sees as many CPUs as it has, numbered from 0" "$_bad" ""
	expect_eq "$_d: allreduce of the seen CPU numbers" "$(grep '^allreduce' "$T/mpi.out")" \
		"allreduce size $_nr sum $_sum max $_max"
	clean "$_d"
}
if command -v mpicc >/dev/null 2>&1 && command -v ompi_info >/dev/null 2>&1; then
	mpicc -DWITH_MPI -I"$SRC" -o "$T/prog_ompi" "$SRC/tests/slurm/prog_report.c" 2>"$T/cc.err" ||
		die "mpicc: $(cat "$T/cc.err")"
	# root, TCP between the nodes on the bridge's network, shared memory
	# within a node
	export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
	export OMPI_MCA_btl=self,vader,tcp OMPI_MCA_btl_vader_single_copy_mechanism=none
	export OMPI_MCA_btl_tcp_if_include="$CL_NET.0/24" OMPI_MCA_oob_tcp_if_include="$CL_NET.0/24"
	if sl srun --mpi=list 2>&1 | grep -q pmix; then
		mpi_case "Open MPI, srun --mpi=pmix" 6 srun --mpi=pmix -N3 -n6 -c1 "$T/prog_ompi"
	else
		skip "Open MPI, srun --mpi=pmix" "this Slurm has no PMIx plugin (srun --mpi=list)"
	fi
	# mpirun in the allocation, each rank bound to a core of its node's
	# task (orted's); the ranks get mpirun's environment: the table named
	mpi_case "Open MPI, mpirun in salloc" 6 env CPUSETSHIM_TABLE="$UT" \
		salloc -N3 --ntasks-per-node=2 -c1 mpirun --bind-to core -n 6 "$T/prog_ompi"
else
	skip "Open MPI across nodes" "needs mpicc and ompi_info (libopenmpi-dev, openmpi-bin)"
fi
if command -v mpicc.mpich >/dev/null 2>&1 && command -v mpiexec.hydra >/dev/null 2>&1; then
	mpicc.mpich -DWITH_MPI -I"$SRC" -o "$T/prog_mpich" "$SRC/tests/slurm/prog_report.c" 2>"$T/cc.err" ||
		die "mpicc.mpich: $(cat "$T/cc.err")"
	# Debian's MPICH speaks PMI-1 and PMI-2, not PMIx: Slurm's pmi2
	mpi_case "MPICH, srun --mpi=pmi2" 6 srun --mpi=pmi2 -N3 -n6 -c1 "$T/prog_mpich"
	# Hydra starts its proxies by srun, one a node (a task each), which
	# reach mpiexec by this machine's name (the nodes' /etc/hosts)
	mpi_case "MPICH, mpiexec.hydra in salloc" 6 env CPUSETSHIM_TABLE="$UT" \
		salloc -N3 --ntasks-per-node=2 -c1 mpiexec.hydra -launcher slurm -bind-to core -n 6 "$T/prog_mpich"
else
	skip "MPICH across nodes" "needs mpicc.mpich and mpiexec.hydra (libmpich-dev, mpich)"
fi

# ---- faults ----

# scancel of a step over three nodes: every node clean
echo "# scancel of a step over three nodes"
if held 6 srun -N3 -n6 $HOLD; then
	j=$(field job "$(lines | head -n 1)")
	check "scancel $j.0" scancel "$j.0"
	sl_wait "$held_pid"
	expect_ne "scancel: srun says the step failed" "$?" 0
else
	fail "scancel: 6 tasks started"
	release
fi
touch "$T/go"
clean "scancel of a step"

# node_pids N PROG: the processes named PROG in node N's network namespace
node_pids() {
	_ns=$(readlink "/proc/$(node_holder "$1")/ns/net")
	for _p in $(pgrep -x "$2"); do
		[ "$(readlink "/proc/$_p/ns/net" 2>/dev/null)" = "$_ns" ] && echo "$_p"
	done
}
# a node's slurmd and slurmstepd killed mid-job: Slurm cancels the job,
# the other nodes end clean; the killed node's orphan task ends, its
# slurmd comes back, and its next job sweeps what the dead step left
echo "# cpsn2's slurmd and slurmstepd killed mid-job"
if held 3 srun -N3 -n3 $HOLD; then
	j=$(field job "$(lines | head -n 1)")
	orphan=$(field pid "$(lines | grep ' node cpsn2 ')")
	victims="$(slurmd_pid 2) $(node_pids 2 slurmstepd)"
	expect_match "killed: cpsn2 has a slurmd and a slurmstepd" "$(echo $victims | wc -w)" '^[2-9]'
	kill -9 $victims
	check "the job cancelled (scancel $j)" scancel "$j"
	sl_wait "$held_pid"
	expect_ne "killed: srun says the job failed" "$?" 0
else
	fail "killed: 3 tasks started"
fi
touch "$T/go"
# (the task left on cpsn2 goes once it is released)
orphan_gone() { [ -z "${orphan:-}" ] || [ ! -d "/proc/$orphan" ]; }
check "killed: cpsn2's task ends" wait_until orphan_gone
for n in 1 3; do
	if wait_until node_clean "$n"; then
		pass "killed: nothing left on cpsn$n"
	else
		fail "killed: nothing left on cpsn$n" "$(on_node "$n" "$CPUSET_INSPECT" --table "$UT" --tree 2>&1)"
	fi
done
# cpsn2 again: its slurmd started anew, the node idle once Slurm has
# finished the job there
rm -f "$SL/cpsn2.pid"
check "cpsn2's slurmd started again" cl_slurmd 2
node2_idle() { [ "$(sinfo -h -n cpsn2 -o %T 2>/dev/null)" = idle ]; }
check "cpsn2 idle again" wait_until node2_idle
check "a job on cpsn2 after it came back" sl srun -w cpsn2 -n1 true
clean "after the killed node came back"

# ---- cost: srun -N3 -n6 true with the plugin and without ----

# plugstack.conf read anew by each srun and slurmstepd: the plugin's line,
# or nothing. Sides alternate, the order flipping every round; each srun
# starts with every node idle and is timed alone.
CL_BENCH_N=${CL_BENCH_N:-30}
cp "$SL/plugstack.conf" "$SL/plugstack.with"
: >"$SL/plugstack.none"
side() { cp "$SL/plugstack.$1" "$SL/plugstack.conf"; }
side none
expect_eq "cost: no plugin, no table in the tasks" \
	"$(sl srun -N3 -n6 sh -c 'echo "[${CPUSETSHIM_TABLE:-}]"' | sort -u)" "[]"
side with
expect_eq "cost: the plugin, the table in the tasks" \
	"$(sl srun -N3 -n6 sh -c 'echo "[${CPUSETSHIM_TABLE:-}]"' | sort -u)" "[$UT]"
: >"$T/bench"
bad=0
i=1
while [ "$i" -le "$CL_BENCH_N" ]; do
	order="none with"
	[ $((i % 2)) = 0 ] && order="with none"
	for m in $order; do
		side "$m"
		wait_until cl_all_idle
		t0=$(date +%s%N)
		sl srun -N3 -n6 true || bad=$((bad + 1))
		t1=$(date +%s%N)
		echo "$m $(((t1 - t0) / 1000))" >>"$T/bench"
	done
	i=$((i + 1))
done
side with
expect_eq "cost: every srun -N3 -n6 true ran" "$bad" 0
# median and p90 (nearest rank) of each side, in ms
stats() {
	awk -v m="$1" '$1 == m { print $2 }' "$T/bench" | sort -n | awk '{ v[NR] = $1 }
		END { n = NR; md = n % 2 ? v[(n + 1) / 2] : (v[n / 2] + v[n / 2 + 1]) / 2
			p = int(0.9 * n + 0.999); printf "%.0f %.0f", md / 1000, v[p] / 1000 }'
}
set -- $(stats none) $(stats with)
note "srun -N3 -n6 true, $CL_BENCH_N runs a side, ms: median $1 p90 $2 without the plugin," \
	"median $3 p90 $4 with it (ratio of medians $(awk -v a="$1" -v b="$3" 'BEGIN { printf "%.2f", b / a }'))"
mkdir -p "$B/tests/bench"
printf 'srun -N3 -n6 true (%s runs a side) | median ms | p90 ms\nno plugin | %s | %s\ncpusetshim.so | %s | %s\n' \
	"$CL_BENCH_N" "$1" "$2" "$3" "$4" >"$B/tests/bench/bench_slurm_cluster.txt"

finish
