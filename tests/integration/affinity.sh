#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# The affinity family under the shim, in {1} and {0,1}: util-linux
# taskset (through syscall(SYS_sched_getaffinity)) inside, a member seen
# from outside while it runs (its real kernel mask the set's; pinned with
# taskset -c 0 inside, the set's first CPU), and a C program that checks
# every interposed call (sched_*affinity, pthread_*affinity_np, the
# pthread_create attribute, raw syscall, sched_getcpu, sysconf, get_nprocs,
# CPU_* macros) against the kernel, also with CPUSETSHIM_WRAP=0.
. "$(dirname "$0")/../common.sh"
need timeout coreutils
need taskset util-linux
PROG_AFF="$B/tests/integration/prog_affinity"
[ -x "$PROG_AFF" ] || die "no $PROG_AFF (make check builds it)"
two_sets

# Relays the ok:/FAIL: lines of a checking program into our counters.
relay()
{
	_pfx=$1 _file=$2
	while IFS= read -r _l; do
		case $_l in
		"ok: "*) pass "$_pfx: ${_l#ok: }" ;;
		"FAIL: "*) fail "$_pfx: ${_l#FAIL: }" ;;
		*) note "  | $_l" ;;
		esac
	done <"$_file"
}

# hold_check DESC SET WANT_VMASK WANT_REAL_LIST WANT_KERNEL_HEX [CMD...]
# Runs "CMD prog_affinity --hold" in SET, looks at the process from outside
# with taskset while it waits, then lets it go.
hold_check()
{
	_d=$1 _s=$2 _vm=$3 _rl=$4 _kh=$5
	shift 5
	rm -f "$T/go" "$T/hold.out"
	with_san timeout 120 "$CPUSET_RUN" --set "$_s" "$@" "$PROG_AFF" --hold "$T/go" \
		>"$T/hold.out" 2>&1 &
	_bg=$!
	_i=0
	while ! grep -q '^pid ' "$T/hold.out" 2>/dev/null && [ $_i -lt 300 ]; do
		sleep 0.1
		_i=$((_i + 1))
	done
	_line=$(grep '^pid ' "$T/hold.out")
	_pid=$(echo "$_line" | awk '{ print $2 }')
	if [ -n "$_pid" ]; then
		_k=$(outside taskset -p "$_pid" | sed 's/.*: //')
		expect_eq "$_d: real kernel mask (taskset -p outside the shim)" "$_k" "$_kh"
	else
		fail "$_d: the program never reported: $(cat "$T/hold.out")"
	fi
	touch "$T/go"
	wait $_bg
	expect_eq "$_d: exit status" "$?" 0
	expect_eq "$_d: the program's virtual mask" \
		"$(echo "$_line" | awk '{ print $4 }')" "$_vm"
	expect_eq "$_d: the program's real mask (raw syscall)" \
		"$(echo "$_line" | awk '{ print $6 }')" "$_rl"
}

affinity() {
	# util-linux taskset asks through syscall(SYS_sched_getaffinity)
	expect_eq "$t: taskset -p \$\$ inside" \
		"$(in_set "$s" sh -c 'taskset -p $$' | sed 's/.*: //')" "$vmask"
	hold_check "$t: a member" "$s" "$(seq_join 0 $((n - 1)) ,)" "$list" "$kmask"
	hold_check "$t: taskset -c 0 PROG" "$s" 0 "$p0" "$(printf '%x' $((1 << p0)))" \
		taskset -c 0

	# every interposed call, checked from inside against the kernel
	in_set "$s" "$PROG_AFF" "$n" "$list" >"$T/aff.out" 2>&1
	expect_eq "$t: prog_affinity exit status" "$?" 0
	relay "$t: prog_affinity" "$T/aff.out"
	with_san env CPUSETSHIM_WRAP=0 timeout 120 "$CPUSET_RUN" --set "$s" \
		"$PROG_AFF" "$n" "$list" nowrap >"$T/aff.out" 2>&1
	expect_eq "$t: prog_affinity, CPUSETSHIM_WRAP=0: exit status" "$?" 0
	relay "$t: prog_affinity nowrap" "$T/aff.out"
}
# Every thread of another member, asked and moved by its thread id from
# inside the set (taskset -a: /proc/PID/task/*): each answers in the set's
# numbers, as its process does, whether or not it ever asked for anything,
# and a move of each lands on the set's CPUs.
threads() {
	rm -f "$T/tgo" "$T/tpid"
	with_san timeout 120 "$CPUSET_RUN" --set "$s" "$PYTHON3" -c '
import os, sys, threading, time
def wait():
    while not os.path.exists(sys.argv[1]): time.sleep(0.05)
ts = [threading.Thread(target=wait) for _ in range(3)]
for t in ts: t.start()
open(sys.argv[2], "w").write(str(os.getpid()))
wait()
for t in ts: t.join()' "$T/tgo" "$T/tpid" &
	_bg=$!
	wait_until [ -s "$T/tpid" ]
	_pid=$(cat "$T/tpid" 2>/dev/null)
	if [ -z "$_pid" ]; then
		fail "$t: a 4-thread member never started"
		touch "$T/tgo"
		wait $_bg
		return
	fi
	_got=$(in_set "$s" taskset -a -p "$_pid" | sed 's/.*: //' | sort | uniq -c | awk '{ print $1 "x" $2 }')
	expect_eq "$t: taskset -a -p of a 4-thread member, inside: every thread's mask" "$_got" "4x$vmask"
	in_set "$s" taskset -a -p -c 0 "$_pid" >/dev/null 2>&1
	expect_eq "$t: taskset -a -p -c 0 of it, inside: exit status" "$?" 0
	_real=$(for _tid in $(ls "/proc/$_pid/task"); do real_cpus "$_tid"; done | sort | uniq -c | awk '{ print $1 "x" $2 }')
	expect_eq "$t: every thread's real CPUs after, outside" "$_real" "4x$p0"
	touch "$T/tgo"
	wait $_bg
}

each_set affinity
each_set threads
finish
