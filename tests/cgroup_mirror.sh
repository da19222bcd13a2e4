#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# The cgroup mirror (cpuset init --cgroup, cpuset cgroup on|off|show): each
# set a cpuset cgroup, named s<ID> in the directory named as the table at
# the cpuset hierarchy's root, holding the set's memory nodes; every
# member written into it when it is moved onto its set, and the kernel's
# Mems_allowed of the member its set's nodes. On the host's own hierarchy
# (v1 cpuset or cgroup2, whichever it has); the memory itself, on several
# nodes, is the QEMU guest's part (tests/guest/inside.sh).
. "$(dirname "$0")/common.sh"
[ "$(id -u)" = 0 ] || skip_all "needs root (it writes cgroups)"
need setpriv util-linux
need "$PYTHON3" python3

# The cpuset hierarchy, as the tool looks for it: a v1 cgroup mount with
# the cpuset controller, else a cgroup2 mount that offers it.
H=$(awk '$3 == "cgroup" && ("," $4 ",") ~ /,cpuset,/ { print $2; exit }' /proc/self/mounts)
V=1
if [ -z "$H" ]; then
	H=$(awk '$3 == "cgroup2" { print $2; exit }' /proc/self/mounts)
	V=2
	[ -n "$H" ] && grep -qw cpuset "$H/cgroup.controllers" 2>/dev/null || H=
fi
[ -n "$H" ] || skip_all "needs a cpuset cgroup hierarchy (v1 cpuset or cgroup2 with the controller)"
[ -w "$H" ] || skip_all "needs a writable cpuset cgroup hierarchy ($H is read-only here)"
M=$H/$CPUSETSHIM_TABLE
at_exit '"$CPUSET" cgroup off >/dev/null 2>&1; kill $p1 $p2 2>/dev/null; for d in "$M"/s*; do rmdir "$d" 2>/dev/null; done; rmdir "$M" 2>/dev/null'

# the cgroup of process $1 in the hierarchy, as /proc/PID/cgroup names it
cg_of() {
	if [ $V = 1 ]; then
		awk -F: '("," $2 ",") ~ /,cpuset,/ { print $3 }' "/proc/$1/cgroup"
	else
		sed -n 's/^0:://p' "/proc/$1/cgroup"
	fi
}
# a field of cpuset --json show SET
field() {
	"$CPUSET" --json show "$1" | "$PYTHON3" -c 'import json, sys; print(json.load(sys.stdin)["set"][sys.argv[1]])' "$2"
}
mems_list() {
	sed -n 's/^Mems_allowed_list:[[:space:]]*//p' "/proc/$1/status"
}
# wait until file $1 is not empty
wait_for() {
	wait_until [ -s "$1" ]
}

expect_status "cpuset init (no mirror)" 0 "$CPUSET" init
expect_status "cpuset cgroup: none yet" 0 "$CPUSET" cgroup
expect_eq "... says none" "$(cat "$T/out")" "cgroup: none"
expect_status "cpuset --json cgroup: null" 0 "$CPUSET" --json cgroup
expect_eq "... as JSON" "$(cat "$T/out")" '{"cgroup":null}'
expect_status "cpuset cgroup bogus: a usage error" 2 "$CPUSET" cgroup bogus
expect_stderr "... naming the word" "not 'bogus'"
expect_status "cpuset cgroup on off: a usage error" 2 "$CPUSET" cgroup on off

# init --cgroup: the table made again (--force) with its mirror
expect_status "cpuset init --force --cgroup" 0 "$CPUSET" init --force --cgroup
expect_eq "... prints the table and the mirror" "$(cat "$T/out")" "$CPUSETSHIM_TABLE
cgroup: $M"
expect_eq "the mirror is a directory of the hierarchy" "$([ -d "$M" ] && echo yes)" yes
if [ $V = 1 ]; then
	expect_eq "v1: the mirror holds the root's nodes" "$(cat "$M/cpuset.mems")" "$(cat "$H/cpuset.mems")"
	expect_eq "v1: and the root's CPUs" "$(cat "$M/cpuset.cpus")" "$(cat "$H/cpuset.cpus")"
else
	expect_match "v2: the controller enabled below the mirror" "$(cat "$M/cgroup.subtree_control")" cpuset
fi

# a set of the last CPU and the first node with memory (the root's nodes)
rootcpus=$(field root cpus)
last=$("$PYTHON3" -c '
import sys
c = []
for p in sys.argv[1].split(","):
    a, _, b = p.partition("-")
    c += range(int(a), int(b or a) + 1)
print(c[-1])' "$rootcpus")
node=$(field root mems | sed 's/[-,].*//')
check "a set of CPU $last and node $node" "$CPUSET" create --cpus "$last" --mems "$node" --name cga
ida=$(field cga id)
expect_eq "no cgroup for it before its first member" "$([ -d "$M/s$ida" ] && echo made)" ""
with_san "$CPUSET_RUN" --set cga -- sh -c 'echo $$ > "$1"; exec sleep 600' sh "$T/p1" &
wait_for "$T/p1"
p1=$(cat "$T/p1")
[ -d "/proc/$p1" ] || die "the member of cga did not start"
expect_eq "a member of cga is in its cgroup" "$(cg_of "$p1")" "${M#$H}/s$ida"
expect_eq "the set's cgroup holds the set's nodes" "$(cat "$M/s$ida/cpuset.mems")" "$node"
expect_eq "the member's Mems_allowed_list (the kernel's) is the set's node" "$(mems_list "$p1")" "$node"
expect_eq "its affinity is the set's CPU (the cgroup's attach undone)" "$(real_cpus "$p1")" "$last"

# a member pinned inside a set of every CPU keeps its pin when the mirror
# goes and comes back (a v1 cpuset's attach resets the affinity before
# Linux 6.2; later kernels keep a thread's own mask through it, so here
# this holds either way)
check "a set of every CPU" "$CPUSET" create --cpus "$rootcpus" --name cgb
nb=$("$PYTHON3" -c 'import os; print(len(os.sched_getaffinity(0)))')
vpin=$((nb - 1))
with_san "$CPUSET_RUN" --set cgb -- "$PYTHON3" -c '
import os, sys, time
os.sched_setaffinity(0, {int(sys.argv[2])})
open(sys.argv[1], "w").write(str(os.getpid()))
time.sleep(600)' "$T/p2" "$vpin" &
wait_for "$T/p2"
p2=$(cat "$T/p2")
[ -d "/proc/$p2" ] || die "the member of cgb did not start"
pinned=$(real_cpus "$p2")
expect_match "the pinned member: one CPU" "$pinned" '^[0-9]+$'
idb=$(field cgb id)
expect_eq "it is in cgb's cgroup" "$(cg_of "$p2")" "${M#$H}/s$idb"
expect_status "cpuset cgroup off" 0 "$CPUSET" cgroup off
expect_eq "... says none" "$(cat "$T/out")" "cgroup: none"
expect_eq "the mirror is gone" "$([ -d "$M" ] && echo left)" ""
expect_eq "the members are back at the hierarchy's root" "$(cg_of "$p1") $(cg_of "$p2")" "/ /"
expect_eq "the pinned member keeps its pin" "$(real_cpus "$p2")" "$pinned"
expect_eq "the other keeps its set's CPU" "$(real_cpus "$p1")" "$last"
expect_status "cpuset cgroup on: the mirror again" 0 "$CPUSET" cgroup on
expect_eq "... says where" "$(cat "$T/out")" "cgroup: $M"
expect_eq "every member placed again" "$(cg_of "$p1") $(cg_of "$p2")" "${M#$H}/s$ida ${M#$H}/s$idb"
expect_eq "the pinned member keeps its pin" "$(real_cpus "$p2")" "$pinned"
expect_eq "the other keeps its set's CPU" "$(real_cpus "$p1")" "$last"
expect_status "cpuset --json cgroup" 0 "$CPUSET" --json cgroup
expect_eq "... names the mirror" "$(cat "$T/out")" "{\"cgroup\":\"$M\"}"

# destroy: the set's cgroup goes with it
# (not this shell's child: with_san's subshell is; wait for it to be gone)
kill "$p1"
wait_until [ ! -d "/proc/$p1" ]
check "destroy cga" "$CPUSET" destroy cga
expect_eq "its cgroup is gone" "$([ -d "$M/s$ida" ] && echo left)" ""
expect_eq "cgb's is there" "$([ -d "$M/s$idb" ] && echo yes)" yes

# the caller's own cpuset cgroup, read (src/allowance.c) for the kernel's
# allowance: a CPU outside it is refused, naming the cgroup's file
N=$H/$CPUSETSHIM_TABLE.narrow
at_exit 'rmdir "$N" 2>/dev/null'
first=$("$PYTHON3" -c 'import sys; print(sys.argv[1].split(",")[0].split("-")[0])' "$rootcpus")
if [ "$first" != "$last" ] && mkdir "$N"; then
	[ $V = 1 ] && echo "$first" >"$N/cpuset.cpus" && echo "$node" >"$N/cpuset.mems"
	[ $V = 2 ] && echo "$first" >"$N/cpuset.cpus"
	expect_status "in a cgroup of CPU $first: a set of CPU $last is refused" 1 \
		sh -c 'echo $$ >"$1/cgroup.procs" && exec "$2" create --cpus "$3" --name cgn' sh "$N" "$CPUSET" "$last"
	f=cpuset.effective_cpus
	[ $V = 2 ] && f=cpuset.cpus.effective
	expect_stderr "... naming the cgroup's file and its CPUs" "outside the caller's cgroup cpuset ($N/$f: $first)"
	expect_status "in that cgroup: a set of CPU $first is made" 0 \
		sh -c 'echo $$ >"$1/cgroup.procs" && exec "$2" create --cpus "$3" --mems "$4" --name cgn' sh "$N" "$CPUSET" "$first" "$node"
	check "destroy cgn" "$CPUSET" destroy cgn
fi

# another user may not write the hierarchy: a clear refusal, the table kept
T2=$CPUSETSHIM_TABLE.nobody
at_exit 'rm -f /dev/shm/$T2; rm -rf /dev/shm/$T2.views.*'
if id nobody >/dev/null 2>&1; then
	expect_status "nobody: cpuset init --cgroup is refused" 1 \
		setpriv --reuid=nobody --regid=nogroup --clear-groups -- "$CPUSET" --table "$T2" init --cgroup
	expect_stderr "... naming the reason" "cannot make the mirror's cgroup directory (EACCES)"
	expect_eq "... the table made all the same" "$([ -e "/dev/shm/$T2" ] && echo yes)" yes
	expect_eq "... and no mirror" "$([ -d "$H/$T2" ] && echo made)" ""
fi
kill "$p2"
finish
