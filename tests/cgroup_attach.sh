#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# A member moved by root into a wider cpuset cgroup (its cgroup.procs
# written, as an administrator or a job manager would) stays confined to
# its set, and every view agrees with its kernel mask: the kernel's mask
# of each thread is within the set, and sched_getaffinity, the status
# file's Cpus_allowed_list, sched_getcpu and the online count through the
# shim are the set's (doc/membership.md: a member moved into another
# cgroup). Linux 6.2 and later keep a task's own affinity across a cgroup
# attach; before it the kernel resets it to the cgroup's CPUs, which the
# shim does not undo yet: there the mask's checks are TODOs naming it.
# On the host's own hierarchy (v1 cpuset or cgroup2), as root.
. "$(dirname "$0")/common.sh"
[ "$(id -u)" = 0 ] || skip_all "needs root (it writes cgroups)"
need "$PYTHON3" python3
need taskset util-linux

H=$(awk '$3 == "cgroup" && ("," $4 ",") ~ /,cpuset,/ { print $2; exit }' /proc/self/mounts)
V=1
if [ -z "$H" ]; then
	H=$(awk '$3 == "cgroup2" { print $2; exit }' /proc/self/mounts)
	V=2
	[ -n "$H" ] && grep -qw cpuset "$H/cgroup.controllers" 2>/dev/null || H=
fi
[ -n "$H" ] || skip_all "needs a cpuset cgroup hierarchy (v1 cpuset or cgroup2 with the controller)"
[ -w "$H" ] || skip_all "needs a writable cpuset cgroup hierarchy ($H is read-only here)"
two_sets
C1=$("$CPUSET" --json show "$S1" | "$PYTHON3" -c 'import json, sys; print(json.load(sys.stdin)["set"]["cpus"])')
W=$H/$CPUSETSHIM_TABLE.wide
at_exit 'kill $p 2>/dev/null; [ -n "$p" ] && echo $p >"$H/cgroup.procs" 2>/dev/null; rmdir "$W" 2>/dev/null'

# The wider cgroup: every CPU and node of the hierarchy's root
eff() { cat "$H/cpuset.$1.effective" 2>/dev/null || cat "$H/cpuset.effective_$1" 2>/dev/null || cat "$H/cpuset.$1"; }
mkdir "$W" || die "cannot make $W"
[ $V = 2 ] && { grep -qw cpuset "$H/cgroup.subtree_control" || echo +cpuset >"$H/cgroup.subtree_control"; }
echo "$(eff cpus)" >"$W/cpuset.cpus" && echo "$(eff mems)" >"$W/cpuset.mems" ||
	die "cannot give $W the CPUs $(eff cpus) and nodes $(eff mems)"
expect_ne "the wider cgroup has more CPUs than the set {$C1}" "$(cat "$W/cpuset.cpus")" "$C1"

# a member of set {C1} with two threads, which reports what it sees each
# time $T/go1 and go2 appear, and ends at go3
rm -f "$T"/go* "$T/ready"
env $(san_env) "$CPUSET_RUN" --set "$S1" "$PYTHON3" -c '
import ctypes, os, sys, threading, time
libc = ctypes.CDLL(None)
stop = threading.Event()
threading.Thread(target=stop.wait, daemon=True).start()
def status():
    for l in open("/proc/self/status"):
        if l.startswith("Cpus_allowed_list:"):
            return l.split()[1]
open(sys.argv[1] + "/ready", "w").close()
for n in (1, 2):
    while not os.path.exists("%s/go%d" % (sys.argv[1], n)):
        time.sleep(0.02)
    with open("%s/seen%d" % (sys.argv[1], n), "w") as f:
        f.write("affinity %s status %s getcpu %d nprocs %d\n" % (
            ",".join(map(str, sorted(os.sched_getaffinity(0)))), status(),
            libc.sched_getcpu(), os.sysconf("SC_NPROCESSORS_ONLN")))
while not os.path.exists(sys.argv[1] + "/go3"):
    time.sleep(0.02)
' "$T" &
p=$!
wait_until test -e "$T/ready" || die "the member never started"
touch "$T/go1"
wait_until test -s "$T/seen1" || die "the member never answered"
want="affinity 0 status 0 getcpu 0 nprocs 1"
expect_eq "in its set: the views" "$(cat "$T/seen1")" "$want"

# root moves it into the wider cgroup
echo "$p" >"$W/cgroup.procs" || die "cannot move $p into $W"
cg=$(if [ $V = 1 ]; then awk -F: '("," $2 ",") ~ /,cpuset,/ { print $3 }' "/proc/$p/cgroup"; else sed -n 's/^0:://p' "/proc/$p/cgroup"; fi)
expect_eq "moved into the wider cgroup" "$H$cg" "$W"
touch "$T/go2"
wait_until test -s "$T/seen2" || die "the member never answered"
# each thread's kernel mask, read outside the shim
masks=$(for t in /proc/$p/task/*; do real_cpus "${t#/proc/}"; done | sort -u | tr '\n' ' ' | sed 's/ $//')
kv=$(uname -r | sed 's/^\([0-9]*\)\.\([0-9]*\).*/\1 \2/')
set -- $kv
keeps=no
if [ "$1" -gt 6 ] || { [ "$1" = 6 ] && [ "$2" -ge 2 ]; }; then keeps=yes; fi
# moved DESC GOT WANT: a check, a TODO where the kernel resets the mask
moved() {
	if [ "$2" = "$3" ] || [ $keeps = yes ]; then
		expect_eq "$1" "$2" "$3"
	else
		cps_n=$((cps_n + 1))
		echo "not ok $cps_n - $1 (got $2) # TODO Linux $(uname -r) resets the mask at the attach; the shim does not confine the member again"
	fi
}
moved "moved: every thread's kernel mask is the set's" "$masks" "$C1"
moved "moved: the views are the set's" "$(cat "$T/seen2")" "$want"
moved "moved: it runs on the set's CPU" "$(ps -o psr= -p "$p" | tr -d ' ')" "$C1"
expect_eq "moved: its two threads were read" "$(ls "/proc/$p/task" | wc -l)" 2
touch "$T/go3"
wait $p
expect_eq "the member's exit status" "$?" 0
finish
