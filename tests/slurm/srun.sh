#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# The SPANK plugin on a private one-node Slurm cluster: each task runs in a
# set of exactly the CPUs Slurm bound it to and sees them as 0..n-1; the
# real CPUs, read from outside, are Slurm's binding; --cpusetshim=off gives
# the native view; no set is left after the steps.
. "$(dirname "$0")/../common.sh"
. "$(dirname "$0")/lib.sh"
slurm_need
. "$(dirname "$0")/plugin.sh"

NCPU=$(getconf _NPROCESSORS_ONLN)
[ "$NCPU" -ge 2 ] || skip_all "needs 2 CPUs (this machine has $NCPU)"

# run_held N SRUN-ARGS...: srun the reporter with --hold, until its N lines
run_held() {
	_n=$1
	shift
	sl_held "$_n" '^task' --cpu-bind=verbose "$@" "$REPORT" --hold "$T/go"
}
# field NAME LINE: the word after NAME in a reporter line
field() { echo "$2" | sed -n "s/.* $1 \([^ ]*\).*/\1/p"; }
# Slurm's binding of task T, from --cpu-bind=verbose: "task  T  T [PID]: mask 0xM set"
bound() {
	_m=$(sed -n "s/.*task *$1 *[0-9]* \[[0-9]*\]: mask \(0x[0-9a-fA-F]*\) set.*/\1/p" "$T/held.err" | head -n 1)
	[ -n "$_m" ] && /usr/bin/python3 -c "import sys; m=int(sys.argv[1],16); print(','.join(str(i) for i in range(m.bit_length()) if m>>i&1))" "$_m"
}
# --- srun -n2 -c1: one CPU each, numbered 0; the real ones distinct ---
run_held 2 -n2 -c1
lines=$(cat "$T/held.out")
for t in 0 1; do
	l=$(echo "$lines" | grep "^task $t ")
	expect_eq "-n2 -c1 task $t count" "$(field ncpus "$l")" 1
	expect_eq "-n2 -c1 task $t sees CPU 0" "$(field seen "$l")" 0
	expect_eq "-n2 -c1 task $t table" "$(field table "$l")" "$UT"
	pid=$(field pid "$l")
	outside=$(expand "$(real_cpus "$pid")")
	expect_eq "-n2 -c1 task $t real CPUs (outside) are Slurm's binding" "$outside" "$(bound $t)"
	expect_eq "-n2 -c1 task $t reports its real CPUs" "$(field real "$l")" "$outside"
	eval "real$t=\$outside"
	# its set, as the tools show it: exactly those CPUs, under the step's set
	expect_eq "-n2 -c1 task $t set's CPUs" "$(cpus_of "$(set_of "$l")")" "$outside"
done
expect_ne "-n2 -c1: the tasks' real CPUs are distinct" "$real0" "$real1"
both=$(printf '%s,%s\n' "$real0" "$real1" | tr , '\n' | sort -n | paste -sd, -)
expect_eq "-n2 -c1 step's set holds both tasks' CPUs" "$(cpus_of "$(step_of "$l")")" "$both"
release
expect_eq "-n2 -c1 srun exit" "$held_rc" 0
check_clean "-n2 -c1"

# --- -c2: two CPUs, seen 0,1 ---
run_held 1 -n1 -c2
l=$(grep "^task 0 " "$T/held.out")
expect_eq "-c2 count" "$(field ncpus "$l")" 2
expect_eq "-c2 sees 0,1" "$(field seen "$l")" "0,1"
expect_eq "-c2 real = Slurm's binding" "$(expand "$(real_cpus "$(field pid "$l")")")" "$(bound 0)"
release
check_clean "-c2"

# --- --cpu-bind=map_cpu:1 (on a two-CPU allocation): real 1, seen 0 ---
run_held 1 -n1 -c2 --cpu-bind=map_cpu:1
l=$(grep "^task 0 " "$T/held.out")
expect_eq "map_cpu:1 real (outside)" "$(real_cpus "$(field pid "$l")")" 1
expect_eq "map_cpu:1 seen" "$(field seen "$l")" 0
expect_eq "map_cpu:1 count" "$(field ncpus "$l")" 1
release
expect_eq "map_cpu:1 srun exit" "$held_rc" 0
check_clean "map_cpu:1"

# --- map_cpu:1,0: task 0 on CPU 1, task 1 on CPU 0, both see CPU 0 ---
run_held 2 -n2 --cpu-bind=map_cpu:1,0
for t in 0 1; do
	l=$(grep "^task $t " "$T/held.out")
	expect_eq "map_cpu:1,0 task $t real (outside)" "$(real_cpus "$(field pid "$l")")" "$((1 - t))"
	expect_eq "map_cpu:1,0 task $t seen" "$(field seen "$l")" 0
done
release
check_clean "map_cpu:1,0"

# --- --cpusetshim=off: the native view, nothing of the shim in the task ---
out=$(CPUSETSHIM_RUN_SET=5 sl srun -n1 -c1 --cpusetshim=off "$REPORT" 2>"$T/err")
expect_eq "off: no table" "$(field table "$out")" -
expect_eq "off: seen = real" "$(field seen "$out")" "$(field real "$out")"
expect_eq "off: count is the machine's" "$(field ncpus "$out")" "$NCPU"
out=$(sl srun -n1 -c1 --cpusetshim=off sh -c 'echo "[$LD_PRELOAD]"')
expect_nomatch "off: no shim in LD_PRELOAD" "$out" libcpusetshim
expect_status "--cpusetshim=bogus refused" 255 sl srun -n1 --cpusetshim=bogus true
expect_stderr "--cpusetshim=bogus says why" "on, off, preload, supervise"
check_clean "off"

# --- srun started inside a set of CPU 1 (cpuset-run --cpus 1 -- srun):
# the task inherits LD_PRELOAD, CPUSETSHIM_TABLE and CPUSETSHIM_RUN_SET of
# that set, yet runs in its own set on the CPU Slurm gave it ---
out=$(timeout --foreground -k 10 "$SL_TIMEOUT" env -u CPUSETSHIM_TABLE $(san_env) CPUSETSHIM_TABLE="$CPUSETSHIM_TABLE" \
	"$CPUSET_RUN" --cpus 1 -- srun -n1 -c2 --cpu-bind=map_cpu:0 "$REPORT" 2>"$T/err")
expect_eq "under cpuset-run --cpus 1: the task's own table" "$(field table "$out")" "$UT"
expect_eq "under cpuset-run --cpus 1: the task runs on Slurm's CPU 0" "$(field real "$out")" 0
expect_eq "under cpuset-run --cpus 1: and sees it as CPU 0" "$(field seen "$out")" 0
out=$(timeout --foreground -k 10 "$SL_TIMEOUT" env -u CPUSETSHIM_TABLE $(san_env) CPUSETSHIM_TABLE="$CPUSETSHIM_TABLE" \
	"$CPUSET_RUN" --cpus 1 -- srun -n1 -c2 --cpu-bind=map_cpu:0 --cpusetshim=off "$REPORT" 2>"$T/err")
expect_eq "under cpuset-run --cpus 1, --cpusetshim=off: the native view" \
	"$(field seen "$out") $(field real "$out")" "0 0"
check_clean "srun inside a set"

# --- --cpusetshim=off given to salloc and sbatch holds for their steps ---
out=$(sl salloc -n1 --cpusetshim=off srun -n1 "$REPORT" 2>"$T/err")
expect_eq "salloc --cpusetshim=off: no table in its step" "$(field table "$out")" -
expect_eq "salloc --cpusetshim=off: seen = real" "$(field seen "$out")" "$(field real "$out")"
printf '#!/bin/sh\n"%s"\nsrun -n1 "%s"\n' "$REPORT" "$REPORT" >"$T/off.sh"
expect_status "sbatch --wait --cpusetshim=off" 0 sl sbatch --wait --cpusetshim=off -n1 -o "$T/off.out" "$T/off.sh"
expect_eq "sbatch --cpusetshim=off: neither the script nor its step in a table" \
	"$(awk '{ print $NF }' "$T/off.out" | sort -u)" -
check_clean "salloc and sbatch --cpusetshim=off"

# --- the shim is first in LD_PRELOAD, once ---
# (a submitter that preloads the shim already; a sanitizer runtime stays first)
out=$(timeout --foreground -k 10 "$SL_TIMEOUT" env -u CPUSETSHIM_TABLE $(san_env) LD_PRELOAD="${SAN_PRELOAD:+$SAN_PRELOAD:}$SHIM" \
	srun -n1 sh -c 'echo "$LD_PRELOAD"')
n=$(echo "$out" | tr ': ' '\n\n' | grep -c libcpusetshim)
expect_eq "shim in LD_PRELOAD once" "$n" 1
if [ -n "$SAN_PRELOAD" ]; then
	expect_eq "the shim first in LD_PRELOAD (after libasan)" "$(echo "$out" | cut -d: -f1-2)" \
		"${SAN_PRELOAD%%:*}:$SHIM"
else
	expect_eq "the shim first in LD_PRELOAD" "$(echo "$out" | cut -d: -f1)" "$SHIM"
fi
check_clean "LD_PRELOAD"

# --- required: a task that cannot be put in its set does not run ---
# (the user's table replaced by a file that is no table: the plugin cannot
# open it, and must not let the task run unvirtualised)
rm -f "/dev/shm/$UT"
printf 'no table here' >"/dev/shm/$UT"
chmod 600 "/dev/shm/$UT"
expect_status "required: the task fails when its set cannot be made" 1 \
	sl srun -n1 sh -c 'echo ran unvirtualised'
expect_nomatch "required: the program did not run" "$(cat "$T/out")" "ran unvirtualised"
expect_match "required: the reason is logged through Slurm" "$(cat "$T/err" "$SL/slurmd.log")" \
	"cpusetshim: .*cannot open or make table $UT"
rm -f "/dev/shm/$UT"

# --- a job of another user (srun --uid): a table of its own, owned by it,
# made by the task and cleaned by slurmstepd as root ---
if id nobody >/dev/null 2>&1; then
	NB=$(id -u nobody)
	NT="$TBASE.$NB"
	at_exit "rm -f /dev/shm/$NT; rm -rf /dev/shm/$NT.views.*"
	out=$(sl srun --uid=nobody --chdir=/ -n2 -c1 "$REPORT" 2>"$T/err")
	expect_eq "other user: two tasks" "$(echo "$out" | grep -c '^task')" 2
	expect_eq "other user: its own table" "$(echo "$out" | awk '{print $NF}' | sort -u)" "$NT"
	expect_eq "other user: tasks see CPU 0" "$(echo "$out" | awk '{print $12}' | sort -u)" 0
	# its last job on the node ended: the table went with it (cpuset list
	# would make it again: never used on it here)
	i=0
	while [ -e "/dev/shm/$NT" ] && [ $i -lt 2400 ]; do
		sleep 0.05
		i=$((i + 1))
	done
	expect_eq "other user: the table goes with its last job" "$(ls "/dev/shm/$NT" 2>/dev/null)" ""
	# while a job of it runs, the table is there and its own (the hold
	# file where the user can see it)
	go="/tmp/cpst-slurm-go.$$"
	at_exit "rm -f $go"
	sl srun --uid=nobody --chdir=/ -n1 -c1 "$REPORT" --hold "$go" >"$T/nb.out" 2>&1 &
	nbp=$!
	i=0
	while ! grep -q '^task' "$T/nb.out" 2>/dev/null && [ $i -lt 1200 ]; do
		sleep 0.05
		i=$((i + 1))
	done
	expect_eq "other user: the table is its own" "$(stat -c %u "/dev/shm/$NT" 2>&1)" "$NB"
	touch "$go"
	sl_wait "$nbp"
	i=0
	while [ -e "/dev/shm/$NT" ] && [ $i -lt 2400 ]; do
		sleep 0.05
		i=$((i + 1))
	done
	expect_eq "other user: gone again after the job" "$(ls "/dev/shm/$NT" 2>/dev/null)" ""
else
	skip "the other user's job" "no user nobody"
fi

finish
