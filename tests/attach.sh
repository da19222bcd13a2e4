#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# attach moves the process named, all its threads, and its running
# descendants only when asked; pid 1 and a pid namespace's first process
# only when forced; a process takes its ancestor's set only when it is of
# the ancestor's user and session.
. "$(dirname "$0")/common.sh"
need taskset util-linux
need setsid util-linux
need setpriv util-linux
need pgrep procps

_m=$(outside taskset -p $$ | sed 's/.*: //')
[ $((0x$_m & 3)) -eq 3 ] || skip_all "needs CPUs 0 and 1 (our mask is $_m)"

expect_status "init" 0 "$CPUSET" init
S=$("$CPUSET" create --cpus 1 --name one) || die "create failed"

# kids PID: the children of PID, one a line, sorted
kids() {
	pgrep -P "$1" | sort -n
}
# wait_kids PID N: until PID has N children (and they have exec'd sleep)
wait_kids() {
	_wk_pid=$1 _wk_n=$2
	wait_until eval '[ "$(pgrep -P "$_wk_pid" -x sleep | wc -l)" -ge "$_wk_n" ]'
}

# ---- the process named, not its descendants ----
# a parent with a child of its session and one of a session of its own
sh -c 'sleep 600 & setsid sleep 601 & wait' &
P=$!
at_exit 'kill $(pgrep -P $P) $P 2>/dev/null'
wait_kids $P 2 || die "the children did not start"
C1=$(pgrep -f '^sleep 600$' -P $P)
C2=$(pgrep -f '^sleep 601$' -P $P)
[ -n "$C1" ] && [ -n "$C2" ] || die "cannot find the children ($(kids $P | tr '\n' ' '))"
note "parent $P, child $C1 (its session), child $C2 (setsid)"

expect_status "attach the parent" 0 "$CPUSET" attach one $P
expect_eq "the parent moved" "$(real_cpus $P)" "1"
expect_eq "its running child did not" "$(real_cpus $C1)" "0-1"
expect_eq "nor its setsid child" "$(real_cpus $C2)" "0-1"

# ancestry: the child of its session and user is in the set, the child in
# a session of its own is not
expect_eq "the child of its session is in the set by ancestry" "$("$CPUSET" which $C1)" "$S one"
expect_eq "the setsid child is not" "$("$CPUSET" which $C2)" "1 root"

# ---- --descendants: those of its user and session ----
expect_status "attach --descendants" 0 "$CPUSET" attach --descendants one $P
expect_eq "the child of its session moved" "$(real_cpus $C1)" "1"
expect_eq "the setsid child did not" "$(real_cpus $C2)" "0-1"

# an alloc moves the members and their descendants of the same user and
# session only
expect_status "alloc the set to CPU 0" 0 "$CPUSET" alloc one 0
expect_eq "alloc: the member moved" "$(real_cpus $P)" "0"
expect_eq "alloc: the child of its session moved" "$(real_cpus $C1)" "0"
expect_eq "alloc: the setsid child did not" "$(real_cpus $C2)" "0-1"

# ---- a descendant of another user ----
sh -c 'setpriv --reuid=nobody --regid=nogroup --clear-groups sleep 602 & wait' &
Q=$!
at_exit 'kill $(pgrep -P $Q) $Q 2>/dev/null'
wait_until eval 'Qc=$(pgrep -P $Q -u nobody -x sleep)'
[ -n "$Qc" ] || die "nobody's child did not start"
expect_status "attach its parent with --descendants" 0 "$CPUSET" attach --descendants one $Q
expect_eq "another user's child is not in the set by ancestry" "$("$CPUSET" which $Qc)" "1 root"
expect_eq "and was not moved" "$(real_cpus $Qc)" "0-1"
expect_eq "its parent was" "$(real_cpus $Q)" "0"

# ---- pid 1 ----
before=$(real_cpus 1)
expect_status "attach pid 1" 1 "$CPUSET" attach one 1
expect_stderr "refused, saying how to force it" "pid 1 (init) is not moved unless forced (--force) (EPERM)"
expect_eq "pid 1 did not move" "$(real_cpus 1)" "$before"
expect_status "with its descendants too" 1 "$CPUSET" attach --descendants one 1
expect_eq "pid 1 still did not move" "$(real_cpus 1)" "$before"

# ---- the first process of a pid namespace ----
if command -v unshare >/dev/null 2>&1 && unshare --pid --fork true 2>/dev/null; then
	unshare --pid --fork sleep 603 &
	U=$!
	# (SIGKILL: a namespace's pid 1 ignores a signal it has no handler
	# for, and unshare passes SIGTERM on to it; left alive, it would hold
	# the test's output open for its 603 s)
	at_exit 'kill -KILL $(pgrep -P $U) $U 2>/dev/null'
	wait_until eval 'N=$(pgrep -P $U -x sleep)'
	[ -n "$N" ] || die "the namespace's process did not start"
	expect_eq "it is its namespace's pid 1" "$(awk '/^NSpid:/ { print $NF }' /proc/$N/status)" 1
	expect_status "attach a namespace's first process" 1 "$CPUSET" attach one $N
	expect_stderr "refused" "the first process of a pid namespace is not moved unless forced"
	expect_eq "it did not move" "$(real_cpus $N)" "0-1"
	expect_status "forced" 0 "$CPUSET" attach --force one $N
	expect_eq "it moved" "$(real_cpus $N)" "0"
else
	skip "a pid namespace's first process" "unshare --pid is not allowed here"
fi

# a process moving itself is never refused (cpuset-run as a container's
# first process)
expect_status "cpuset-run moves itself" 0 with_san "$CPUSET_RUN" --set one true

check "the table is consistent" "$CPUSET_INSPECT" --check

# ---- root and another user's table (--table-owner) ----
# Root acting on nobody's table moves only nobody's processes: a record in
# it is nobody's word, and may name anyone's process.
id nobody >/dev/null 2>&1 || skip_all "needs the user nobody"
[ "$(id -u)" = 0 ] || skip_all "the rest needs root"
T2=$CPUSETSHIM_TABLE.nobody
nobody_uid=$(id -u nobody)
AS_NOBODY="setpriv --reuid=nobody --regid=nogroup --clear-groups --"
at_exit 'kill $np $rp $rq 2>/dev/null; rm -f /dev/shm/$T2; rm -rf /dev/shm/$T2.views.*'
check "nobody makes a table" $AS_NOBODY "$CPUSET" --table "$T2" init
check "nobody makes a set" $AS_NOBODY "$CPUSET" --table "$T2" create --cpus 0-1 --name fixed
$AS_NOBODY sleep 600 &
np=$!
wait_until eval '[ "$(stat -c %u /proc/$np 2>/dev/null)" = "$nobody_uid" ]'
check "nobody attaches its process" $AS_NOBODY "$CPUSET" --table "$T2" attach fixed $np
sleep 600 &
rq=$!
# named by its command: wait for the exec
wait_until eval '[ "$(cat /proc/$rq/comm 2>/dev/null)" = sleep ]'
expect_status "root attaching its own process to nobody's table" 1 \
	"$CPUSET" --table "$T2" --table-owner nobody attach fixed $rq
expect_stderr "is refused, naming it" "$rq (sleep) is not of uid $nobody_uid, the table's owner"
expect_eq "it did not move" "$(real_cpus $rq)" "0-1"
check "root attaches nobody's process" "$CPUSET" --table "$T2" --table-owner nobody attach fixed $np
# a record of a root process in nobody's table all the same (nobody may
# write any bytes; here a root process whose shim joins the set named by
# its environment)
env $(san_env) LD_PRELOAD="$SHIM_PRELOAD" CPUSETSHIM_TABLE="$T2" CPUSETSHIM_TABLE_OWNER="$nobody_uid" \
	CPUSETSHIM_SET=fixed sleep 600 &
rp=$!
wait_until eval '"$CPUSET" --table "$T2" --table-owner nobody show fixed 2>/dev/null | grep -q "pid $rp "'
check "a root process is on record in nobody's table" sh -c \
	"'$CPUSET' --table '$T2' --table-owner nobody show fixed | grep -q 'pid $rp '"
expect_status "root's alloc on nobody's table" 4 "$CPUSET" --table "$T2" --table-owner nobody alloc fixed 1
expect_stderr "names the process not moved" "not moved (EPERM): $rp (sleep)"
expect_stderr "and why" "the table is another user's (uid $nobody_uid)"
expect_eq "root's process stayed where it was" "$(real_cpus $rp)" "0-1"
expect_eq "nobody's moved" "$(real_cpus $np)" "1"

# ---- a member the kernel will not move, already where it should be ----
# nobody's alloc: the kernel refuses to move root's process, but it runs
# on the set's new CPUs already: nothing is left undone (exit 0)
taskset -p -c 0 $rp >/dev/null
expect_status "nobody's alloc, the refused member already on its CPUs" 0 \
	$AS_NOBODY "$CPUSET" --table "$T2" alloc fixed 0
expect_eq "nobody's process moved" "$(real_cpus $np)" "0"
expect_status "but one not on them is still said (exit 4)" 4 \
	$AS_NOBODY "$CPUSET" --table "$T2" alloc fixed 1
expect_stderr "naming it" "(EPERM): $rp (sleep)"
finish
