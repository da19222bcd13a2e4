#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# No way out of a task's set through cpusetshim: inside a task, cpuset-run
# --cpus of a CPU the task does not have (in its own numbers: bad usage,
# 125; --physical: refused, 1), --set of the root or of another task's
# set are refused (exit 1); CPUSETSHIM_SET cannot move the task out; taskset
# stays inside. What the kernel really does is read by each program itself
# with the system call instruction.
. "$(dirname "$0")/../common.sh"
. "$(dirname "$0")/lib.sh"
slurm_need
need taskset util-linux
. "$(dirname "$0")/plugin.sh"

NCPU=$(getconf _NPROCESSORS_ONLN)
[ "$NCPU" -ge 2 ] || skip_all "needs 2 CPUs (this machine has $NCPU)"
field() { echo "$2" | sed -n "s/.* $1 \([^ ]*\).*/\1/p"; }

# Task 0 bound to CPU 1, task 1 to CPU 0: each tries its way out.
cat >"$T/escape.sh" <<EOF
#!/bin/sh
me=\$(sed -n 's/^Cpus_allowed_list:[[:space:]]*//p' /proc/self/status)
other=\$((1 - me))
run() { "\$@" >/dev/null 2>"$T/err.\$SLURM_PROCID"; echo "\$SLURM_PROCID \$2 \$3 rc \$? \$(head -c 200 "$T/err.\$SLURM_PROCID" | tr '\n' ' ')"; }
if [ "\$SLURM_PROCID" = 0 ]; then
	# the caller's own numbers: its one CPU is 0, and 1 is none of its
	run "$CPUSET_RUN" --cpus \$other -- true
	# the machine's other CPU (this task is bound to CPU 1)
	run "$CPUSET_RUN" --physical --cpus 0 -- true
	run "$CPUSET_RUN" --set root -- true
	# the other task's set (it waits for us below)
	run "$CPUSET_RUN" --set slurm.\$SLURM_JOB_ID.\$SLURM_STEP_ID.1 -- true
	run "$CPUSET_RUN" --cpus \$me -- true
	echo "env \$(CPUSETSHIM_SET=root "$REPORT")"
	echo "taskset \$(taskset -c \$other "$REPORT")"
	echo "taskset-all \$(taskset -c 0-$((NCPU - 1)) "$REPORT")"
	taskset -p -c \$other \$\$ >/dev/null 2>&1
	echo "taskset-p \$("$REPORT")"
	touch "$T/done"
else
	i=0
	while [ ! -f "$T/done" ] && [ \$i -lt 2400 ]; do sleep 0.05; i=\$((i + 1)); done
fi
EOF
chmod +x "$T/escape.sh"
sl srun -n2 --cpu-bind=map_cpu:1,0 "$T/escape.sh" >"$T/out" 2>"$T/srun.err"
expect_eq "srun exit" "$?" 0
o=$(cat "$T/out")
line() { echo "$o" | grep "^0 $1 $2 "; }
l=$(line --cpus 1)
expect_eq "cpuset-run --cpus 1 in a one-CPU task: no such CPU (1)" "$(field rc "$l")" 1
expect_match "cpuset-run --cpus 1: the reason" "$l" "CPU 1 is not one of this process's CPUs \\(0,"
l=$(line --physical --cpus)
expect_eq "cpuset-run --physical --cpus of the other CPU refused" "$(field rc "$l")" 1
expect_match "cpuset-run --physical --cpus: the reason" "$l" "CPU 0 is outside the caller's affinity \\(1\\)|not in the parent"
l=$(line --set root)
expect_eq "cpuset-run --set root refused" "$(field rc "$l")" 1
expect_match "cpuset-run --set root: the reason" "$l" "\\(EACCES\\)"
l=$(echo "$o" | grep "^0 --set slurm\.")
expect_eq "cpuset-run --set of the other task's set refused" "$(field rc "$l")" 1
l=$(line --cpus 0)
expect_eq "cpuset-run --cpus 0, its own CPU in its numbers, runs" "$(field rc "$l")" 0
for what in env taskset taskset-all taskset-p; do
	l=$(echo "$o" | grep "^$what ")
	expect_eq "$what: still on CPU 1" "$(field real "$l")" 1
	expect_eq "$what: sees CPU 0 alone" "$(field seen "$l")" 0
	expect_eq "$what: in the task's table" "$(field table "$l")" "$UT"
done
check_clean "escapes"

finish
