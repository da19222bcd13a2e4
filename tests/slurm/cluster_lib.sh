# SPDX-License-Identifier: BSD-3-Clause
# Sourced by the multi-node Slurm test after lib.sh's slurm_need: a private
# cluster of CL_NODES (3) slurmd nodes and a slurmctld on this one machine.
# Each node is a process holding its own network, UTS and mount namespaces
# (unshare): its own hostname (cpsn1, cpsn2...), its own address on a
# bridge the test makes (veth pairs), its own /dev/shm (a tmpfs: the
# plugin's tables of one node are not another's), its own TmpFS (Slurm's
# PMIx plugin makes a directory per step there), and an /etc/hosts naming
# the nodes and this machine (its hostname: the bridge's address, where
# mpiexec.hydra listens). slurmctld runs in the
# test's namespaces with the bridge's first address. The pid namespace,
# /sys and /proc are the machine's: every node has the machine's CPUs (they
# share them) and a task's kernel mask is read in /proc from here.
#
#   cluster_need               exit 77 naming what is missing (ip, unshare,
#                              nsenter, namespaces the kernel refuses)
#   cluster_start PLUGSTACK    make the bridge and the nodes, start the
#                              daemons, wait until every node is idle
#   cluster_stop               stop the daemons, the nodes and the bridge
#                              (also done at exit)
#   on_node N CMD...           CMD in node N's namespaces (1..CL_NODES)
#   node_of HOSTNAME           N of a node's hostname
#   node_holder N              the pid of node N's namespace holder
#
# SLURM_CONF is exported; $SL is the cluster's directory (ctld.log,
# cpsnN.log for each slurmd).
CL_NODES=${CL_NODES:-3}

cluster_need() {
	PATH=$PATH:/usr/sbin:/sbin
	for t in ip:iproute2 unshare:util-linux nsenter:util-linux; do
		command -v "${t%%:*}" >/dev/null 2>&1 ||
			slurm_skip "needs ${t%%:*} (Debian package ${t#*:})"
	done
	unshare --net --uts --mount true 2>/dev/null ||
		slurm_skip "the kernel refuses new network, UTS or mount namespaces (unshare --net --uts --mount)"
	_b=cpsk$$
	ip link add "$_b" type bridge 2>/dev/null ||
		slurm_skip "cannot make a bridge (ip link add type bridge: CONFIG_BRIDGE)"
	ip link del "$_b"
}

SL=
CL_BR=
CL_NET=
cl_holders=
cl_ctld=

node_holder() { eval "echo \"\${cl_holder_$1:-}\""; }
node_of() { echo "${1#cpsn}"; }
on_node() {
	_on_n=$1
	shift
	nsenter -t "$(node_holder "$_on_n")" --net --uts --mount "$@"
}

# what Slurm says of its nodes and queue, and the daemons' last words,
# under any failed check
cluster_diagnose() {
	[ "${cps_failed:-0}" -gt 0 ] && [ -n "$SL" ] || return 0
	note "Slurm at the end of a failed test:" "$(sinfo -N -o '%N %T %E' 2>&1)" \
		"$(squeue -o '%i %T %r %j %N' 2>&1)" "slurmctld:" "$(tail -n 25 "$SL/ctld.log" 2>&1)"
	for _n in $(seq 1 "$CL_NODES"); do
		note "slurmd of cpsn$_n:" "$(tail -n 15 "$SL/cpsn$_n.log" 2>&1)"
	done
}

# slurmd_pid N: node N's slurmd, from its pid file
slurmd_pid() { cat "$SL/cpsn$1.pid" 2>/dev/null; }

cluster_stop() {
	[ -n "$SL" ] || return 0
	scancel --quiet --full --state=RUNNING,PENDING -u root 2>/dev/null
	_pids=
	for _n in $(seq 1 "$CL_NODES"); do
		_pids="$_pids $(slurmd_pid "$_n")"
	done
	[ -n "$cl_ctld" ] || cl_ctld=$(cat "$SL/ctld.pid" 2>/dev/null)
	for _p in $_pids $cl_ctld; do
		kill "$_p" 2>/dev/null
	done
	for _p in $_pids $cl_ctld; do
		slurm_wait_gone "$_p" || kill -9 "$_p" 2>/dev/null
	done
	# the holders last: a node's namespaces (its /dev/shm too) end with
	# their last process
	for _p in $cl_holders; do
		kill "$_p" 2>/dev/null
		slurm_wait_gone "$_p" || kill -9 "$_p" 2>/dev/null
	done
	cl_holders=
	cl_ctld=
	[ -z "$CL_BR" ] || ip link del "$CL_BR" 2>/dev/null
	CL_BR=
}

# cl_node N: node N's namespaces (a holder process), its hostname, its
# /dev/shm, its end of a veth pair on the bridge with address .N+1
cl_node() {
	_n=$1
	rm -f "$SL/cpsn$_n.ready"
	# the holder execs sleep once its namespaces are ready: its pid is $!
	unshare --net --uts --mount --propagation private sh -c '
		mount -t tmpfs -o mode=1777 cps-shm /dev/shm &&
		mount -t tmpfs -o mode=1777 cps-tmp "$3" && mount --bind "$4" /etc/hosts &&
		hostname "$1" && : >"$2" && exec sleep 100000' sh "cpsn$_n" "$SL/cpsn$_n.ready" \
		"$SL/tmpfs" "$SL/hosts" &
	eval "cl_holder_$_n=\$!"
	cl_holders="$cl_holders $!"
	wait_until test -e "$SL/cpsn$_n.ready" || { echo "node cpsn$_n: its namespaces were not made"; return 1; }
	_h=$(node_holder "$_n")
	ip link add "cpsv$$n$_n" type veth peer name eth0 netns "$_h" &&
		ip link set "cpsv$$n$_n" master "$CL_BR" up &&
		nsenter -t "$_h" --net ip addr add "$CL_NET.$((_n + 1))/24" dev eth0 &&
		nsenter -t "$_h" --net ip link set eth0 up &&
		nsenter -t "$_h" --net ip link set lo up ||
		{ echo "node cpsn$_n: its network was not made"; return 1; }
}

# a /24 of 10.0.0.0/8 no interface of this machine is on
cl_net() {
	_s=$$
	for _k in 0 1 2 3 4 5 6 7; do
		_net="10.$((200 + (_s + _k) % 50)).$(((_s / 50 + _k) % 250))"
		ip -o -4 addr show | grep -q " $_net\." || { echo "$_net"; return; }
	done
	echo "10.254.$((_s % 250))"
}

# the node lines of slurm.conf
cl_nodes_conf() {
	for _n in $(seq 1 "$CL_NODES"); do
		echo "NodeName=cpsn$_n NodeAddr=$CL_NET.$((_n + 1)) CPUs=$1 State=UNKNOWN"
	done
}

cluster_start() {
	SL=$T/slurm
	mkdir -p "$SL/state" "$SL/spool"
	for _n in $(seq 1 "$CL_NODES"); do
		mkdir -p "$SL/spool/cpsn$_n"
	done
	at_exit "cluster_diagnose; cluster_stop"
	CL_BR=cpsb$$
	CL_NET=$(cl_net)
	ip link add "$CL_BR" type bridge && ip addr add "$CL_NET.1/24" dev "$CL_BR" &&
		ip link set "$CL_BR" up || { echo "the bridge $CL_BR was not made"; return 1; }
	mkdir -p "$SL/tmpfs"
	{
		echo "127.0.0.1 localhost"
		echo "$CL_NET.1 $(uname -n) $(uname -n | cut -d. -f1)"
		for _n in $(seq 1 "$CL_NODES"); do
			echo "$CL_NET.$((_n + 1)) cpsn$_n"
		done
	} >"$SL/hosts"
	for _n in $(seq 1 "$CL_NODES"); do
		cl_node "$_n" || return 1
	done
	set -- "${1:-}" $(slurm_ports)
	_host=$(uname -n | cut -d. -f1)
	printf '%s\n' "$1" >"$SL/plugstack.conf"
	cat >"$SL/slurm.conf" <<EOF
ClusterName=cpsmulti
SlurmctldHost=$_host($CL_NET.1)
SlurmUser=root
SlurmdUser=root
AuthType=auth/none
CredType=cred/none
SlurmctldPort=$2
SlurmdPort=$3
StateSaveLocation=$SL/state
TmpFS=$SL/tmpfs
SlurmdSpoolDir=$SL/spool/%n
SlurmctldPidFile=$SL/ctld.pid
SlurmdPidFile=$SL/%n.pid
SlurmctldLogFile=$SL/ctld.log
SlurmdLogFile=$SL/%n.log
SlurmctldDebug=info
SlurmdDebug=info
ProctrackType=proctrack/linuxproc
TaskPlugin=task/affinity
SelectType=select/cons_tres
SelectTypeParameters=CR_Core
# (a heterogeneous job needs the backfill scheduler)
SchedulerType=sched/backfill
SchedulerParameters=sched_interval=1,bf_interval=1
ReturnToService=2
SlurmdTimeout=${CL_SLURMD_TIMEOUT:-300}
MpiDefault=none
JobCompType=jobcomp/none
AccountingStorageType=accounting_storage/none
JobAcctGatherType=jobacct_gather/none
KillWait=2
LaunchParameters=use_interactive_step
MinJobAge=2
PlugStackConfig=$SL/plugstack.conf
$(cl_nodes_conf "$(getconf _NPROCESSORS_ONLN)")
PartitionName=debug Nodes=ALL Default=YES MaxTime=INFINITE State=UP
EOF
	export SLURM_CONF="$SL/slurm.conf"
	unset SLURM_JOB_ID SLURM_JOBID SLURM_STEP_ID SLURM_NODELIST
	env -u LD_PRELOAD -u CPUSETSHIM_SET -u CPUSETSHIM_RUN_SET \
		slurmctld -f "$SLURM_CONF" -i >"$SL/ctld.out" 2>&1 || {
		echo "slurmctld failed:"; cat "$SL/ctld.out" "$SL/ctld.log" 2>/dev/null; return 1; }
	for _n in $(seq 1 "$CL_NODES"); do
		cl_slurmd "$_n" || return 1
	done
	wait_until cl_all_idle || {
		echo "the private Slurm cluster did not come up:" "$(sinfo -N 2>&1)"
		tail -n 20 "$SL/ctld.log" "$SL/cpsn"*.log
		return 1
	}
	cl_ctld=$(cat "$SL/ctld.pid")
}

# cl_slurmd N: start node N's slurmd in its namespaces
cl_slurmd() {
	on_node "$1" env -u LD_PRELOAD -u CPUSETSHIM_SET -u CPUSETSHIM_RUN_SET ${SLURM_DAEMON_ENV:-} \
		slurmd -f "$SLURM_CONF" >"$SL/cpsn$1.out" 2>&1 || {
		echo "slurmd of cpsn$1 failed:"; cat "$SL/cpsn$1.out" "$SL/cpsn$1.log" 2>/dev/null; return 1; }
}

# every node idle (and the daemons' pid files written)
cl_all_idle() {
	[ -s "$SL/ctld.pid" ] || return 1
	[ "$(sinfo -h -N -o %T 2>/dev/null | grep -c '^idle$')" = "$CL_NODES" ]
}
