#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# The checks run inside the guest of tests/guest_cgroup2.sh (cgroup2 at
# /sys/fs/cgroup with the cpuset controller, a real kernel): a private
# Slurm (tests/slurm/lib.sh) with task/cgroup on cgroup/v2 and the plugin
# (tests/slurm/plugin.sh), and a step of two tasks, each bound to one CPU
# and one memory node (--mem-bind=map_mem), each of which:
#   - reads its own cgroup's cpuset.cpus.effective and
#     cpuset.mems.effective through the shim (the plugin preloads it): the
#     set's CPUs and nodes, virtual (0..n-1), where from outside they are
#     the step's, physical;
#   - then, without the shim and as an unprivileged user (as a site's
#     tasks run), tries to leave: taskset to a CPU outside the step's
#     cgroup, its pid written into the root cgroup's cgroup.procs, its
#     own cgroup's parent's, and a cgroup's of the test's whose
#     cgroup.procs anyone may write.
# From outside: the plugin's sets lie within the step cgroup's
# cpuset.cpus.effective, and each leaving program's real mask and cgroup
# stay the step's.
#
# Needs CPS_BUILDDIR and CPS_SRCDIR (tests/guest_cgroup2.sh sets them);
# runs as root in the guest.
#
# Time: every step says so ("# " lines), and every wait says it goes on
# each CPS_TICK (30) s: the guest's output grows while it progresses, so
# that tests/guest/boot.sh's GUEST_STALL stops only a guest that hangs.
# Slurm's bound (SL_TIMEOUT) is scaled by the guest's boot time (its
# clock when this script starts): 600 s and 30 s a second of boot.
. "$CPS_SRCDIR/tests/common.sh"
CPS_TICK=${CPS_TICK:-30}
boot=$(cut -d. -f1 /proc/uptime)
note "guest: the checks start, $boot s after boot"
. "$SRC/tests/slurm/lib.sh"
slurm_need
PY=/usr/bin/python3
[ -x "$PY" ] || skip_all "needs $PY (Debian package python3)"
need taskset util-linux
need ip iproute2
note "step: the loopback"
# Slurm's daemons talk over the loopback, down in a fresh guest; their
# getaddrinfo (AI_ADDRCONFIG) wants an address other than 127.0.0.1
ip link set lo up && ip addr add 10.254.0.1/32 dev lo || die "ip link set lo up, an address on it"
CG=/sys/fs/cgroup
note "step: the cgroup2 hierarchy"
grep -q cgroup2 /proc/self/mounts && [ -f $CG/cgroup.controllers ] ||
	die "cgroup2 is mounted at $CG ($(grep cgroup /proc/self/mounts))"
grep -qw cpuset $CG/cgroup.controllers || die "the cpuset controller in $CG/cgroup.controllers ($(cat $CG/cgroup.controllers))"
# IgnoreSystemd: slurmd makes its scope (system.slice/<node>_slurmstepd.scope)
# itself, but not system.slice, which systemd would have made, with the
# controllers enabled down to it (else slurmstepd: "Controller cpuset is
# not enabled!"): every controller, the cpuset one first
mkdir -p $CG/system.slice || die "mkdir $CG/system.slice"
for d in $CG $CG/system.slice; do
	for c in cpuset $(cat $CG/cgroup.controllers); do
		echo "+$c" >$d/cgroup.subtree_control 2>/dev/null
	done
	expect_match "cpuset in $d/cgroup.subtree_control" "$(cat $d/cgroup.subtree_control)" "cpuset"
done
note "guest: CPUs $(cat /sys/devices/system/cpu/online), nodes with memory $(cat /sys/devices/system/node/has_memory), cgroup controllers: $(cat $CG/cgroup.subtree_control)"
# a cgroup anyone may write a pid into: the kernel still asks for the
# common ancestor's cgroup.procs (the root's), so a task cannot go there
mkdir -p $CG/cpstest-open && chmod 0666 $CG/cpstest-open/cgroup.procs
at_exit "rmdir $CG/cpstest-open 2>/dev/null"

# (a check costs seconds under TCG: srun's own bound, SL_TIMEOUT, longer)
SL_TIMEOUT=$((600 + 30 * boot))
SLURM_TASK_PLUGIN=task/cgroup,task/affinity
SLURM_PROCTRACK=proctrack/cgroup
SLURM_CGROUP_CONF="CgroupPlugin=cgroup/v2
IgnoreSystemd=yes
ConstrainCores=yes"
note "step: starting Slurm (SL_TIMEOUT $SL_TIMEOUT s)"
. "$SRC/tests/slurm/plugin.sh"
note "Slurm is up: $(sinfo -N -o '%N %T %c %E' 2>&1)"
progress

# the task: what it reads through the shim, then the leaving program,
# which waits as nobody for $T/go (release): nobody must be able to look
# it up ($T is made 0700)
chmod 0711 "$T" || die "chmod 0711 $T"
cat >"$T/task.sh" <<EOF
#!/bin/sh
cg=\$(sed -n 's/^0:://p' /proc/self/cgroup)
echo "view \$SLURM_PROCID cg \$cg cpus \$(cat $CG\$cg/cpuset.cpus.effective) mems \$(cat $CG\$cg/cpuset.mems.effective) \$("$REPORT")"
exec env -u LD_PRELOAD $PY "$SRC/tests/guest/leave.py" "$T/go" $SL_TIMEOUT
EOF
chmod +x "$T/task.sh"
field() { echo "$2" | sed -n "s/.* $1 \([^ ]*\).*/\1/p"; }
# (awk, not python: a python start costs seconds under TCG)
# each CPLIST: the CPUs (nodes) of a kernel list, one a line
each() { echo "$1" | awk -F, '{ for (i = 1; i <= NF; i++) { n = split($i, a, "-"); if (n == 1) a[2] = a[1]; for (j = a[1]; j <= a[2]; j++) print j } }'; }
# within A B: every CPU (node) of the list A is in the list B, and A has
# one at least
within() { [ -n "$1" ] && [ -z "$( (each "$2"; each "$2"; each "$1") | sort -n | uniq -u)" ]; }
count() { each "$1" | grep -c .; }
# the CPUs of a set of $UT, as its listing gives them
setcpus() { "$CPUSET" --table "$UT" list 2>/dev/null | awk -v n="$1" '$3 == n { print $NF }'; }
virt() { [ "$1" -eq 1 ] && echo 0 || echo "0-$(($1 - 1))"; }

# two tasks, each on one CPU, task 0's memory on node 1 and task 1's on
# node 2 (memory only)
note "step: srun -n2, each task held once it has tried to leave"
sl_held 2 "^leave " -n2 -c1 --cpu-bind=cores --mem-bind=map_mem:1,2 "$T/task.sh" ||
	die "srun -n2 under task/cgroup (cgroup/v2): the tasks ran" "$(cat "$T/held.out" "$T/held.err")"
progress
note "the tasks said:" "$(cat "$T/held.out")"
# what the kernel and the table say while the tasks are held, read at
# once (each command is slow under TCG; the checks come after)
for i in 0 1; do
	v=$(grep "^view $i " "$T/held.out")
	l=$(grep "^leave $i " "$T/held.out")
	cg=$(field cg "$v")
	step=$(echo "$cg" | sed -n 's|^\(.*/step_[0-9]*\)/.*|\1|p')
	r="task ${v#* task }"
	pid=$(field pid "$l")
	note "step: task $i's cgroup, sets and mask, read while it is held"
	cat >"$T/obs.$i" <<OBS
v='$v'
l='$l'
cg='$cg'
step='$step'
r='$r'
pid='$pid'
scpus='$(cat "$CG$step/cpuset.cpus.effective")'
smems='$(cat "$CG$step/cpuset.mems.effective")'
tcpus='$(cat "$CG$cg/cpuset.cpus.effective")'
name='$(set_of "$r")'
set='$(setcpus "$(set_of "$r")")'
step_set='$(setcpus "$(step_of "$r")")'
real='$(real_cpus "$pid")'
pcg='$(sed -n 's/^0:://p' "/proc/$pid/cgroup")'
OBS
done
note "step: the tasks released"
release
expect_eq "srun exit status" "$held_rc" 0
for i in 0 1; do
	. "$T/obs.$i"
	expect_match "task $i: in a step cgroup of Slurm's" "$step" "/job_[0-9]*/step_[0-9]*$"
	expect_match "task $i: the step's cpuset.cpus.effective read from outside" "$scpus" "^[0-9]"
	note "task $i: cgroup $cg; the step's cpuset.cpus.effective $scpus, cpuset.mems.effective $smems (outside)"
	# the task's own cgroup has nothing of its own: the step's lists
	expect_eq "task $i: its cgroup's cpuset.cpus.effective from outside is the step's" "$tcpus" "$scpus"
	note "task $i: set $name CPUs $set, the step's set $step_set, the kernel's mask $(field real "$r")"
	within "$set" "$scpus" && pass "task $i: its set ($set) lies within the step cgroup ($scpus)" ||
		fail "task $i: its set ($set) lies within the step cgroup ($scpus)"
	within "$step_set" "$scpus" && pass "task $i: the step's set ($step_set) lies within the step cgroup" ||
		fail "task $i: the step's set ($step_set) lies within the step cgroup ($scpus)"
	expect_eq "task $i: cpuset.cpus.effective through the shim: the set's, virtual" \
		"$(field cpus "$v")" "$(virt "$(count "$set")")"
	expect_ne "task $i: ... not the physical list" "$(field cpus "$v")" "$scpus"
	node=$((i + 1))
	within "$node" "$smems" && pass "task $i: node $node in the step's cpuset.mems.effective ($smems)" ||
		fail "task $i: node $node in the step's cpuset.mems.effective ($smems)"
	expect_eq "task $i: cpuset.mems.effective through the shim: the set's node $node, virtual" \
		"$(field mems "$v")" 0
	# leaving, as an unprivileged user, without the shim
	note "task $i: $l"
	expect_match "task $i: taskset -p -c of a CPU outside the step cgroup refused" "$l" "taskset-cpu [0-9]* rc [1-9]"
	expect_match "task $i: its pid into the root's cgroup.procs refused" "$l" " root (EACCES|EPERM)"
	expect_match "task $i: its pid into its cgroup's parent's cgroup.procs refused" "$l" " parent (EACCES|EPERM|EBUSY)"
	expect_match "task $i: its pid into a cgroup.procs it may write refused" "$l" " open (EACCES|EPERM)"
	within "$real" "$scpus" && pass "task $i: its real mask ($real) stays within the step cgroup" ||
		fail "task $i: its real mask stays within the step cgroup" "$real of $scpus"
	expect_eq "task $i: it stays in its cgroup" "$pcg" "$cg"
done
note "step: no set left"
check_clean "task/cgroup on cgroup/v2"
finish
