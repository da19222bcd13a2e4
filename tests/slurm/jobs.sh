#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# The SPANK plugin with batch jobs: sbatch --wait of a script running two
# srun steps (the batch step in a set of its own too), and clean-up: no set
# is left after normal, failed, killed and cancelled jobs, nor after a step
# whose task left a process behind (retried, then swept by a later step).
. "$(dirname "$0")/../common.sh"
. "$(dirname "$0")/lib.sh"
slurm_need
. "$(dirname "$0")/plugin.sh"

NCPU=$(getconf _NPROCESSORS_ONLN)
[ "$NCPU" -ge 2 ] || skip_all "needs 2 CPUs (this machine has $NCPU)"
field() { echo "$2" | sed -n "s/.* $1 \([^ ]*\).*/\1/p"; }

# --- sbatch --wait: the batch script and two steps ---
cat >"$T/job.sh" <<EOF
#!/bin/sh
"$REPORT"
srun -n2 -c1 "$REPORT"
srun -n1 -c2 "$REPORT"
EOF
expect_status "sbatch --wait" 0 sl sbatch --wait -n2 -c1 -o "$T/job.out" "$T/job.sh"
batch=$(grep " step - " "$T/job.out")
expect_eq "batch step in the table" "$(field table "$batch")" "$UT"
expect_eq "batch step sees its CPUs from 0" "$(field seen "$batch" | cut -c1)" 0
expect_eq "batch step count" "$(field ncpus "$batch")" "$(field real "$batch" | tr , '\n' | wc -l | tr -d ' ')"
s0=$(grep " step 0 " "$T/job.out")
expect_eq "step 0 has two tasks" "$(echo "$s0" | wc -l | tr -d ' ')" 2
expect_eq "step 0 tasks see CPU 0" "$(echo "$s0" | awk '{print $12}' | sort -u)" 0
expect_eq "step 0 tasks' real CPUs distinct" "$(echo "$s0" | awk '{print $14}' | sort -u | wc -l | tr -d ' ')" 2
s1=$(grep " step 1 " "$T/job.out")
expect_eq "step 1 sees two CPUs" "$(field seen "$s1")" "0,1"
expect_eq "step 1 in the table" "$(field table "$s1")" "$UT"
check_clean "sbatch --wait"

# --- a failed job: tasks exit 3, the script with them ---
printf '#!/bin/sh\nsrun -n2 sh -c "exit 3"\nexit 3\n' >"$T/fail.sh"
expect_status "failed job" 3 sl sbatch --wait -n2 -o /dev/null "$T/fail.sh"
check_clean "failed job"

# --- the user's last job on the node has ended: the table goes (once the
# steps' clean-up has run), and the next job makes it again ---
i=0
while [ -e "/dev/shm/$UT" ] && [ "$i" -lt 2400 ]; do
	sleep 0.05
	i=$((i + 1))
done
expect_eq "the table goes with the user's last job" "$(ls "/dev/shm/$UT" 2>/dev/null)" "" ||
	"$CPUSET_INSPECT" --table "$UT" 2>&1 | sed 's/^/# /'
expect_status "a job after it" 0 sl srun -n1 "$REPORT"
expect_eq "it runs in a table made again" "$(field table "$(cat "$T/out")")" "$UT"
expect_eq "it sees its CPUs from 0" "$(field seen "$(cat "$T/out")" | cut -c1)" 0

# --- killed tasks: SIGKILL in the middle of a step ---
printf '#!/bin/sh\nsrun -n2 sh -c "kill -9 \\$\\$"\n' >"$T/kill.sh"
sl sbatch --wait -n2 -o /dev/null "$T/kill.sh" >/dev/null 2>&1
check_clean "killed tasks"

# --- a cancelled job: scancel while its step runs ---
printf '#!/bin/sh\nsrun -n2 "%s" --hold "%s"\n' "$REPORT" "$T/never" >"$T/long.sh"
job=$(sl sbatch --parsable -n2 -o "$T/long.out" "$T/long.sh")
i=0
while [ "$(cat "$T/long.out" 2>/dev/null | grep -c "^task")" -lt 2 ] && [ "$i" -lt 1200 ]; do
	sleep 0.05
	i=$((i + 1))
done
sets=$("$CPUSET" --table "$UT" list | awk -v j="slurm.$job." 'index($3, j) == 1' | wc -l | tr -d ' ')
expect_eq "running job: batch, step and task sets" "$sets" 5
scancel "$job"
check_clean "cancelled job"

# --- a task that leaves a process behind: its set is busy when the step
# ends (retried, then left), and the next step of the user sweeps it once
# that process has gone ---
cat >"$T/orphan.sh" <<EOF
#!/bin/sh
# a grandchild reparented to init, out of Slurm's process tracking; it
# registers in the task's set through CPUSETSHIM_RUN_SET
( setsid "$REPORT" --hold "$T/orphan.go" >"$T/orphan.out" 2>&1 & )
i=0
while ! grep -q ^task "$T/orphan.out" 2>/dev/null && [ \$i -lt 2400 ]; do sleep 0.05; i=\$((i + 1)); done
EOF
chmod +x "$T/orphan.sh"
sl srun -n1 -c1 "$T/orphan.sh" >/dev/null 2>&1
l=$(cat "$T/orphan.out")
expect_eq "orphan still in the task's table" "$(field table "$l")" "$UT"
expect_eq "orphan sees its task's CPUs" "$(field seen "$l")" 0
opid=$(field pid "$l")
kill -9 "$opid" 2>/dev/null
touch "$T/orphan.go"
sl srun -n1 true
check_clean "left-behind process, swept by the next step"

# --- an interactive step (salloc without a command, LaunchParameters=
# use_interactive_step): the shell it starts runs in a set of its own ---
if command -v script >/dev/null 2>&1; then
	printf '%s\nexit\n' "$REPORT" |
		env $(san_env) SHELL=/bin/sh timeout 60 script -qec "salloc -n1" /dev/null >"$T/ia.out" 2>&1
	# (the shell's prompt may come first on the line)
	l=$(tr -d '\r' <"$T/ia.out" | sed -n 's/.*\(task 0 job \)/\1/p' | head -n 1)
	[ -n "$l" ] || show "$T/ia.out"
	expect_eq "interactive step: its step id" "$(field step "$l")" 4294967290
	expect_eq "interactive step: in the table" "$(field table "$l")" "$UT"
	expect_eq "interactive step: sees its CPU as 0" "$(field seen "$l") $(field ncpus "$l")" "0 1"
	check_clean "interactive step"
else
	skip "interactive step" "needs script (Debian package util-linux)"
fi

# --- the sets of a crashed step (its slurmstepd gone: no clean-up ran),
# with a member that has died: the user's next step sweeps them ---
"$CPUSET" --table "$UT" create --cpus 0 --parent root --name slurm.999999.0 >/dev/null
"$CPUSET" --table "$UT" create --cpus 0 --autoclean --parent slurm.999999.0 \
	--name slurm.999999.0.0 >/dev/null
sleep 30 &
dead=$!
"$CPUSET" --table "$UT" attach slurm.999999.0.0 "$dead"
kill "$dead"
wait "$dead" 2>/dev/null
expect_eq "a crashed step's sets are there" \
	"$("$CPUSET" --table "$UT" list | awk '$3 ~ /^slurm\.999999\./' | wc -l | tr -d ' ')" 2
sl srun -n1 true
check_clean "a crashed step's sets, swept by the next step"

finish
