# SPDX-License-Identifier: BSD-3-Clause
# Sourced by the Slurm tests (after tests/common.sh, whose $T, at_exit and
# skip_all it uses) and the Slurm benchmark: a private one-node cluster
# (slurmctld and slurmd) in $T, stopped by their pids at exit.
#
#   slurm_need                  exit 77 naming what is missing
#   slurm_start [PLUGSTACK]     write the configuration and start both
#                               daemons; PLUGSTACK is plugstack.conf's text
#   slurm_stop                  stop them (also done at exit, after
#                               slurm_diagnose if a check failed)
#
# SLURM_TASK_PLUGIN and SLURM_PROCTRACK replace TaskPlugin (task/affinity)
# and ProctrackType (proctrack/linuxproc); SLURM_CGROUP_CONF, when set, is
# cgroup.conf's text (beside slurm.conf, where Slurm looks for it).
#
# After slurm_start, SLURM_CONF is exported for srun, sbatch, squeue... and
# $SL is the cluster's directory (logs: $SL/ctld.log, $SL/slurmd.log).
# AuthType=auth/none and CredType=cred/none: nothing to set up, no munge.
# The daemons run as root (SlurmUser=root), as only root can start slurmd.

# The harness's tick (tests/common.sh: a note a while in a long wait),
# else nothing (the Slurm benchmark).
command -v tick >/dev/null 2>&1 || tick() { :; }

# The harness's skip_all (tests/common.sh), else a line and exit 77.
slurm_skip() {
	if command -v skip_all >/dev/null 2>&1; then
		skip_all "$1"
	fi
	echo "SKIP: $1"
	exit 77
}

# slurm_need: Slurm's daemons and commands, root, and the plugin built.
slurm_need() {
	PATH=$PATH:/usr/sbin:/sbin
	for t in slurmctld:slurmctld slurmd:slurmd srun:slurm-client sbatch:slurm-client \
		salloc:slurm-client scancel:slurm-client squeue:slurm-client scontrol:slurm-client \
		sinfo:slurm-client; do
		command -v "${t%%:*}" >/dev/null 2>&1 ||
			slurm_skip "needs ${t%%:*} (Debian package ${t#*:}; sh scripts/deps.sh installs it)"
	done
	[ "$(id -u)" = 0 ] || slurm_skip "slurmd must run as root (this is uid $(id -u))"
	[ -f "$B/slurm/.libs/cpusetshim.so" ] ||
		slurm_skip "the SPANK plugin was not built (configure found no <slurm/spank.h>: libslurm-dev)"
	# auth/none and cred/none are what the private cluster uses
	_pd=$(slurm_plugindir)
	for p in auth_none cred_none task_affinity proctrack_linuxproc select_cons_tres; do
		[ -f "$_pd/$p.so" ] || slurm_skip "needs Slurm's $p.so (slurm-wlm-basic-plugins), not in $_pd"
	done
}

# Where this Slurm keeps its plugins (as configure found it, else looked up).
slurm_plugindir() {
	for d in ${CPS_SLURM_PLUGINDIR:-} /usr/lib/x86_64-linux-gnu/slurm-wlm /usr/lib/aarch64-linux-gnu/slurm-wlm \
		/usr/lib64/slurm /usr/lib/slurm /usr/local/lib/slurm; do
		[ -f "$d/auth_none.so" ] && { echo "$d"; return; }
	done
	echo /nonexistent
}

# Two free TCP ports, found by the kernel (bind to port 0).
slurm_ports() {
	/usr/bin/python3 -c '
import socket
s = [socket.socket() for _ in range(2)]
for x in s: x.bind(("127.0.0.1", 0))
print(" ".join(str(x.getsockname()[1]) for x in s))'
}

SL=
slurm_ctld_pid=
slurm_slurmd_pid=

# slurm_wait_gone PID: up to 120 s for the process to end (a loaded
# machine is slow; the bound is reached only by one that never ends).
slurm_wait_gone() {
	_i=0 _wg_t0=$(date +%s)
	while [ -d "/proc/$1" ] && [ "$_i" -lt 2400 ]; do
		tick "$_wg_t0" "pid $1 to end"
		sleep 0.05
		_i=$((_i + 1))
	done
	[ ! -d "/proc/$1" ]
}

# what Slurm says of its node and queue, and the daemons' last words, under
# any failed check of a Slurm test
slurm_diagnose() {
	[ "${cps_failed:-0}" -gt 0 ] && [ -n "$SL" ] || return 0
	note "Slurm at the end of a failed test:" "$(sinfo -N -o '%N %T %E' 2>&1)" \
		"$(squeue -o '%i %T %r %j' 2>&1)" "slurmctld:" "$(tail -n 25 "$SL/ctld.log" 2>&1)" \
		"slurmd:" "$(tail -n 25 "$SL/slurmd.log" 2>&1)"
}

slurm_stop() {
	[ -n "$SL" ] || return 0
	[ -n "$slurm_ctld_pid" ] || slurm_ctld_pid=$(cat "$SL/ctld.pid" 2>/dev/null)
	[ -n "$slurm_slurmd_pid" ] || slurm_slurmd_pid=$(cat "$SL/slurmd.pid" 2>/dev/null)
	# no job left running: their steps' slurmstepd end with them
	scancel --quiet --full --state=RUNNING,PENDING -u root 2>/dev/null
	for p in $slurm_slurmd_pid $slurm_ctld_pid; do
		kill "$p" 2>/dev/null
	done
	for p in $slurm_slurmd_pid $slurm_ctld_pid; do
		slurm_wait_gone "$p" || kill -9 "$p" 2>/dev/null
	done
	slurm_slurmd_pid=
	slurm_ctld_pid=
}

slurm_start() {
	SL=$T/slurm
	mkdir -p "$SL/state" "$SL/spool"
	set -- "${1:-}" $(slurm_ports)
	_host=$(uname -n | cut -d. -f1) # as slurmd finds its node: gethostname(), short
	_cpus=$(getconf _NPROCESSORS_ONLN)
	printf '%s\n' "$1" >"$SL/plugstack.conf"
	cat >"$SL/slurm.conf" <<EOF
ClusterName=cpstest
SlurmctldHost=$_host(127.0.0.1)
SlurmUser=root
SlurmdUser=root
AuthType=auth/none
CredType=cred/none
SlurmctldPort=$2
SlurmdPort=$3
StateSaveLocation=$SL/state
SlurmdSpoolDir=$SL/spool
SlurmctldPidFile=$SL/ctld.pid
SlurmdPidFile=$SL/slurmd.pid
SlurmctldLogFile=$SL/ctld.log
SlurmdLogFile=$SL/slurmd.log
SlurmctldDebug=info
SlurmdDebug=info
ProctrackType=${SLURM_PROCTRACK:-proctrack/linuxproc}
TaskPlugin=${SLURM_TASK_PLUGIN:-task/affinity}
SelectType=select/cons_tres
SelectTypeParameters=CR_Core
SchedulerType=sched/builtin
SchedulerParameters=sched_interval=1
ReturnToService=2
MpiDefault=none
JobCompType=jobcomp/none
AccountingStorageType=accounting_storage/none
JobAcctGatherType=jobacct_gather/none
KillWait=2
LaunchParameters=use_interactive_step
MinJobAge=2
PlugStackConfig=$SL/plugstack.conf
NodeName=$_host NodeAddr=127.0.0.1 CPUs=$_cpus State=UNKNOWN
PartitionName=debug Nodes=ALL Default=YES MaxTime=INFINITE State=UP
EOF
	[ -z "${SLURM_CGROUP_CONF:-}" ] || printf '%s\n' "$SLURM_CGROUP_CONF" >"$SL/cgroup.conf"
	export SLURM_CONF="$SL/slurm.conf"
	# nothing of the caller's own Slurm job or of the shim reaches the daemons
	unset SLURM_JOB_ID SLURM_JOBID SLURM_STEP_ID SLURM_NODELIST
	env -u LD_PRELOAD -u CPUSETSHIM_SET -u CPUSETSHIM_RUN_SET \
		slurmctld -f "$SLURM_CONF" -i >"$SL/ctld.out" 2>&1 || {
		echo "slurmctld failed:"; cat "$SL/ctld.out" "$SL/ctld.log" 2>/dev/null; return 1; }
	env -u LD_PRELOAD -u CPUSETSHIM_SET -u CPUSETSHIM_RUN_SET ${SLURM_DAEMON_ENV:-} \
		slurmd -f "$SLURM_CONF" >"$SL/slurmd.out" 2>&1 || {
		echo "slurmd failed:"; cat "$SL/slurmd.out" "$SL/slurmd.log" 2>/dev/null; return 1; }
	at_exit "slurm_diagnose; slurm_stop"
	# up when the node is idle: 2400 looks at most (about 0.1 s here)
	_i=0 _ss_t0=$(date +%s)
	while [ "$_i" -lt 2400 ]; do
		tick "$_ss_t0" "the private Slurm cluster to come up"
		slurm_ctld_pid=$(cat "$SL/ctld.pid" 2>/dev/null)
		slurm_slurmd_pid=$(cat "$SL/slurmd.pid" 2>/dev/null)
		[ -n "$slurm_ctld_pid" ] && [ -n "$slurm_slurmd_pid" ] &&
			[ "$(sinfo -h -o %T 2>/dev/null)" = idle ] && return 0
		sleep 0.05
		_i=$((_i + 1))
	done
	echo "the private Slurm cluster did not come up:"
	tail -n 20 "$SL/ctld.log" "$SL/slurmd.log"
	return 1
}
