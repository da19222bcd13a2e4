#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# Several real users (made here, removed at exit): per-user tables, a
# table planted under another user's default name, a planted views
# directory, a shared group table and its trust domain, a reader who may
# not repair a dead writer's table, and root facing tables of other users.
# Needs root, to make the users.
. "$(dirname "$0")/common.sh"
[ "$(id -u)" = 0 ] || skip_all "needs root (it makes users and a group)"
need useradd passwd
need setpriv util-linux
QUERY=$B/tests/prog_query
POKE=$B/tests/tablepoke
# the build tree must be readable by the users made here
for d in "$B" "$B/tests" "$B/.libs"; do
	[ "$(stat -c %A "$d" | cut -c8,10)" = "rx" ] || skip_all "the build tree ($d) is not open to other users"
done

# users a, b (both in group g) and c; short names, unique to this run
tag=$(($$ % 100000))
ua=cpsa$tag ub=cpsb$tag uc=cpsc$tag grp=cpsg$tag
pid_a=
# at exit: what runs as them first (pid_a, read then), then the users
at_exit '[ -n "$pid_a" ] && kill $pid_a 2>/dev/null && sleep 0.2; for u in $ua $ub $uc; do userdel $u 2>/dev/null; done; groupdel $grp 2>/dev/null'
groupadd "$grp" || die "groupadd failed"
for u in $ua $ub $uc; do
	useradd -M -N -g nogroup -s /bin/sh "$u" || die "useradd $u failed"
done
usermod -a -G "$grp" "$ua" && usermod -a -G "$grp" "$ub" || die "usermod failed"
ida=$(id -u $ua) idb=$(id -u $ub) idc=$(id -u $uc)
def_a=cpusetshim.$ida def_b=cpusetshim.$idb
shared=cpsshared.$tag rootnamed=cpsroot.$tag
at_exit "rm -rf /dev/shm/$def_a /dev/shm/$def_b /dev/shm/cpusetshim.$idc /dev/shm/$shared /dev/shm/$rootnamed /dev/shm/$def_a.views.* /dev/shm/$def_b.views.* /dev/shm/$shared.views.*"
rm -rf "/dev/shm/$def_a" "/dev/shm/$def_b" "/dev/shm/$def_a.views."*

# as USER CMD...: CMD as that user (its groups, no table named unless
# CMD names one), outputs kept by the caller
as() {
	_u=$1
	shift
	setpriv --reuid="$_u" --regid="$(id -g "$_u")" --init-groups \
		env -u CPUSETSHIM_TABLE -u CPUSETSHIM_TABLE_OWNER HOME=/ "$@"
}

# ---- per-user tables ----
expect_status "a makes a set in its own table" 0 as $ua "$CPUSET" create --cpus 0 --name a1
expect_eq "a's table is a's, private" "$(stat -c '%U %a' /dev/shm/$def_a)" "$ua 600"
expect_status "b has no table yet" 3 as $ub "$CPUSET" list
expect_status "b makes its own table" 0 as $ub "$CPUSET" init
expect_status "b lists its own table" 0 as $ub "$CPUSET" list
expect_nomatch "b does not see a's set" "$(cat "$T/out")" "a1"
expect_status "b cannot use a's table" 3 as $ub "$CPUSET" --table $def_a list
expect_status "c cannot either" 3 as $uc "$CPUSET_INSPECT" --table $def_a

# ---- a table planted under another user's default name ----
rm -f /dev/shm/$def_a
expect_status "b plants a table under a's default name" 0 as $ub "$CPUSET" --table $def_a init --mode 0644
expect_status "a refuses it" 3 as $ua "$CPUSET" list
expect_stderr "saying whose it is" "belongs to another user"
expect_status "a program of a passes it through" 0 \
	as $ua env $(san_env) LD_PRELOAD="$SHIM_PRELOAD" CPUSETSHIM_DEBUG=1 "$QUERY" 0
expect_stderr "and says why (debug)" "belongs to another user"
rm -f /dev/shm/$def_a
# planted as a group table of a group a is in: still refused under the
# default name, which any member of the group could take
expect_status "b plants a group table under a's default name" 0 \
	as $ub "$CPUSET" --table $def_a init --mode 0660 --group $grp
expect_status "a refuses it under its default name" 3 as $ua "$CPUSET" list
rm -f /dev/shm/$def_a

# ---- a planted views directory ----
expect_status "a makes its table again" 0 as $ua "$CPUSET" create --cpus 0 --name a1
viewdir=/dev/shm/$def_a.views.$ida
rm -rf "$viewdir"
as $ub sh -c "mkdir -m 0755 '$viewdir' && printf '0-99\n' >'$viewdir/range-1'" ||
	die "b cannot plant a views directory"
expect_status "a's program in a1 reads the online CPUs" 0 \
	as $ua env $(san_env) LD_PRELOAD="$SHIM_PRELOAD" CPUSETSHIM_SET=a1 cat /sys/devices/system/cpu/online
expect_eq "not from b's planted directory" "$(cat "$T/out")" "0"
rm -rf "$viewdir"

# ---- a shared group table ----
expect_status "a makes a group table" 0 as $ua "$CPUSET" --table $shared init --mode 0660 --group $grp
expect_stderr "with the trust warning" "one trust domain"
expect_eq "group-writable, group g" "$(stat -c '%a %G' /dev/shm/$shared)" "660 $grp"
expect_status "a world-writable one is refused" 2 as $ua "$CPUSET" --table $shared.w init --mode 0666
expect_status "a makes a set in it" 0 as $ua "$CPUSET" --table $shared create --cpus 0 --name sa
expect_status "b, in the group, makes one" 0 as $ub "$CPUSET" --table $shared create --cpus 0 --name sb
expect_status "c, outside it, may not read it" 3 as $uc "$CPUSET" --table $shared list
as $ua sleep 60 &
# a's sleep, once it runs (the switch of user takes its time on a loaded machine)
pid_a=
for i in $(seq 100); do
	pid_a=$(pgrep -u $ua -x sleep | head -n 1)
	[ -n "$pid_a" ] && break
	sleep 0.1
done
[ -n "$pid_a" ] || die "a's sleep did not start in 10 s"
expect_status "b may not move a's process by the rules" 1 as $ub "$CPUSET" --table $shared attach sb "$pid_a"
expect_stderr "(not b's process)" "EPERM"
expect_status "b may not destroy a's set" 1 as $ub "$CPUSET" --table $shared destroy sa
kill "$pid_a" 2>/dev/null

# a reader who may not repair: a writer dies inside a group table that is
# read-only to the group
if have_fault_points; then
	expect_status "a makes a table its group may read" 0 as $ua "$CPUSET" --table $shared init --force --mode 0640 --group $grp
	as $ua "$CPUSET" --table $shared create --cpus 0 --name s0 >/dev/null
	as $ua env CPUSETSHIM_FAULT_STEP=6 "$CPUSET" --table $shared create --cpus 0 --name dying >/dev/null 2>&1
	t0=$(date +%s%3N)
	expect_status "b, read-only, is told what to do" 3 as $ub "$CPUSET" --table $shared which
	t1=$(date +%s%3N)
	expect_stderr "run cpuset repair" "run 'cpuset repair'"
	check "without waiting ($((t1 - t0)) ms)" [ $((t1 - t0)) -lt 3000 ]
	t0=$(date +%s%3N)
	expect_status "b's program starts at once" 0 \
		as $ub env $(san_env) LD_PRELOAD="$SHIM_PRELOAD" CPUSETSHIM_TABLE=$shared CPUSETSHIM_DEBUG=1 "$QUERY" 0
	t1=$(date +%s%3N)
	expect_stderr "saying so (debug)" "cpuset repair"
	check "without waiting ($((t1 - t0)) ms)" [ $((t1 - t0)) -lt 3000 ]
	expect_status "a repairs it" 0 as $ua "$CPUSET" --table $shared repair
	expect_status "b reads it again" 0 as $ub "$CPUSET" --table $shared which
else
	skip "a reader who may not repair a dead writer's table" "$NO_FAULTS"
fi

# ---- root and the tables of other users ----
expect_status "b makes a table under a name root uses" 0 as $ub "$CPUSET" --table $rootnamed init --mode 0644
expect_status "b makes a set in it" 0 as $ub "$CPUSET" --table $rootnamed create --cpus 0 --name trap
expect_status "root refuses it" 3 "$CPUSET" --table $rootnamed list
expect_stderr "naming the way to confirm" "table-owner"
expect_status "root's cpuset-run refuses it" 125 "$CPUSET_RUN" --table $rootnamed --set trap true
expect_status "root's checker refuses it" 3 "$CPUSET_INSPECT" --table $rootnamed --check
expect_status "confirmed for another owner: refused" 3 "$CPUSET" --table $rootnamed --table-owner $ua list
expect_status "confirmed for its owner: used" 0 "$CPUSET" --table $rootnamed --table-owner $ub list
expect_match "(b's set)" "$(cat "$T/out")" "trap"
expect_status "the owner by name" 0 "$CPUSET_INSPECT" --table $rootnamed --table-owner $ub --check
expect_status "cpuset-run with the owner's uid" 0 \
	with_san "$CPUSET_RUN" --table $rootnamed --table-owner $idb --set trap true
finish
