#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# Live resize: a multi-threaded workload of two processes under cpuset-run
# in a set {0,1} is resized to {1} and back while it runs. Every thread's
# real mask follows within the one alloc call (its wanted virtual mask
# mapped onto the new CPUs), and the members see one CPU, then two. A
# process that never loaded the shim follows by ancestry.
. "$(dirname "$0")/common.sh"
need "$PYTHON3" python3
need pgrep procps
W=$B/tests/integration/prog_workload

"$CPUSET" create --cpus 0-1 --name work >/dev/null
with_san "$CPUSET_RUN" --set work "$W" "$T" 4 &
runner=$!
# a member without the shim, and its child, found by ancestry
env -u LD_PRELOAD sh -c 'sleep 300 & exec sleep 301' &
plain=$!
at_exit 'touch $T/stop; pkill -P $plain 2>/dev/null; kill $plain 2>/dev/null'
# (both started: the child forked, the parent's exec done)
wait_until eval '[ "$(cat /proc/$plain/comm 2>/dev/null)" = sleep ] && pgrep -P $plain -x sleep >/dev/null'
"$CPUSET" attach work $plain
plain_child=$(pgrep -P $plain | head -1)

# wait for both processes and all their threads to report
wait_until eval '[ "$(cat "$T"/threads.* 2>/dev/null | wc -l)" -ge 8 ] && [ "$(ls "$T"/view.* 2>/dev/null | wc -l)" -ge 2 ]'
expect_eq "threads started" "$(cat "$T"/threads.* | wc -l)" 8
expect_eq "two members" "$(ls "$T"/view.* | grep -vc '\.tmp$')" 2

# each thread's real mask against what it wants, mapped onto CPUS
check_masks() {
	cpus=$1 label=$2
	for f in "$T"/threads.*; do
		while read -r tid want; do
			case "$want,$cpus" in
			0,0-1) exp=0 ;;
			1,0-1) exp=1 ;;
			-,*) exp=$cpus ;;
			*,1) exp=1 ;; # one CPU: every virtual CPU wraps onto it
			esac
			expect_eq "$label: thread $tid (wants $want)" "$(real_cpus $tid)" "$exp"
		done <"$f"
	done
	expect_eq "$label: plain member" "$(real_cpus $plain)" "$cpus"
	expect_eq "$label: plain member's child" "$(real_cpus $plain_child)" "$cpus"
	# on a failure, what the table says, for the log
	[ "$cps_failed" -gt "${masks_failed:-0}" ] && { "$CPUSET_INSPECT" >"$T/table"; show "$T/table"; masks_failed=$cps_failed; }
}

# views WANT LABEL: once the workload has written its views again (it
# does in a loop, however slowly a loaded machine runs it), each is WANT
views_are() {
	for f in "$T"/view.*; do
		case $f in *.tmp) continue ;; esac
		[ "$(cat "$f")" = "$1" ] || return 1
	done
}
views() {
	wait_until views_are "$1"
	for f in "$T"/view.*; do
		case $f in *.tmp) continue ;; esac
		expect_eq "$2: view $(basename $f)" "$(cat $f)" "$1"
	done
}

check_masks 0-1 "start"
views "n=2 online=0-1 cpuinfo=2 stat=2 affinity=2" "start"

"$CPUSET" alloc work 1
# no wait: the alloc call itself moved every thread
check_masks 1 "shrunk"
views "n=1 online=0 cpuinfo=1 stat=1 affinity=1" "shrunk"

"$CPUSET" alloc work 0-1
check_masks 0-1 "grown"
views "n=2 online=0-1 cpuinfo=2 stat=2 affinity=2" "grown"

# OpenMP places survive a resize: libgomp gives each thread its place
# through a thread attribute; the shim records it as the thread's wish.
OMP_PLACES=threads OMP_PROC_BIND=close OMP_NUM_THREADS=2 PROG_OMP_HOLD=$T/omp \
	with_san "$CPUSET_RUN" --set work "$B/tests/integration/prog_omp" >"$T/omp.out" &
omp=$!
wait_until eval '[ -f "$T/omp.tids" ] && [ "$(wc -l <"$T/omp.tids")" = 2 ]'
omp_masks() {
	while read -r t tid; do
		expect_eq "$1: OpenMP thread $t" "$(real_cpus $tid)" "$(echo "$2" | cut -d' ' -f$((t + 1)))"
	done <"$T/omp.tids"
}
omp_masks "places" "0 1"
"$CPUSET" alloc work 1
omp_masks "places shrunk" "1 1"
"$CPUSET" alloc work 0-1
omp_masks "places restored" "0 1"
touch "$T/omp"
wait $omp
expect_eq "OpenMP program ended cleanly" "$?" 0

# nested: a parent cannot shrink under a child's CPUs
"$CPUSET" create --parent work --cpus 0 --name inner >/dev/null
expect_status "shrink under a child" 1 "$CPUSET" alloc work 1
expect_stderr "child reason" "still held by a child set (EBUSY)"
"$CPUSET" destroy inner

touch "$T/stop"
wait $runner
expect_eq "workload ended cleanly" "$?" 0
check "cpuset-inspect --check" "$CPUSET_INSPECT" --check
# A thread that sets the same mask again after its set moved: the shim
# remembers the last call's physical mask only while the table is
# unchanged, so the mask is mapped onto the new CPUs.
"$CPUSET" create --cpus 0 --name again >/dev/null
with_san "$CPUSET_RUN" --set again "$PYTHON3" -c '
import os, sys, time
d = sys.argv[1]
os.sched_setaffinity(0, {0})
os.sched_setaffinity(0, {0})
open(d + "/again.pid", "w").write(str(os.getpid()))
os.rename(d + "/again.pid", d + "/again.ready")
while not os.path.exists(d + "/again.go"):
    time.sleep(0.01)
os.sched_setaffinity(0, {0})
open(d + "/again.done", "w").close()
while not os.path.exists(d + "/again.stop"):
    time.sleep(0.01)
' "$T" &
again=$!
wait_until [ -s "$T/again.ready" ]
again_pid=$(cat "$T/again.ready")
expect_eq "same mask twice in {0}: on CPU 0" "$(real_cpus $again_pid)" 0
"$CPUSET" alloc again 1
expect_eq "after alloc to {1}: moved to CPU 1" "$(real_cpus $again_pid)" 1
touch "$T/again.go"
wait_until [ -e "$T/again.done" ]
expect_eq "the same mask set again after the alloc: still CPU 1, not the old CPU 0" \
	"$(real_cpus $again_pid)" 1
touch "$T/again.stop"
wait $again
expect_eq "the program ended cleanly" "$?" 0

finish
