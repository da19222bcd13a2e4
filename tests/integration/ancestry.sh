#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# Set-up, fork, exec and ancestry under the shim: children forked with
# and without exec stay in the set (sh, python3's os.fork), cpuset which
# inside; shells that never ask about CPUs leave no record and what they
# start still finds the set; first calls from 8 threads at once; an
# orphan; CPUSETSHIM_SET alone, without cpuset-run.
. "$(dirname "$0")/../common.sh"
need timeout coreutils
need nproc coreutils
need "$PYTHON3" python3
need taskset util-linux
PROG_AFF="$B/tests/integration/prog_affinity"
[ -x "$PROG_AFF" ] || die "no $PROG_AFF (make check builds it)"
two_sets

forks() {
	expect_eq "$t: cpuset which, inside" \
		"$(in_set "$s" "$CPUSET" which | awk '{ print $1 }')" "$s"
	# children, forked with and without exec, stay in the set
	expect_eq "$t: sh forking nproc twice" "$(in_set "$s" sh -c 'nproc; nproc; :' | tr '\n' ' ')" \
		"$n $n "
	expect_eq "$t: python3 os.fork() child" "$(in_set "$s" "$PYTHON3" -c '
import os
pid = os.fork()
if pid == 0:
    print(os.cpu_count(), sorted(os.sched_getaffinity(0)))
    os._exit(0)
os.waitpid(pid, 0)')" "$n [$(seq_join 0 $((n - 1)) ', ')]"
}
each_set forks

# The shim sets up at the first call that needs it. Shells that never ask
# about CPUs leave no record; what they start still finds the set through
# its nearest registered ancestor, as the tools do.
expect_eq "three shells deep, none of them asking: nproc is the set's" \
	"$(in_set "$S1" sh -c 'sh -c "sh -c nproc"')" 1
expect_eq "three shells deep: python3 sees the set's CPUs" \
	"$(in_set "$S1" sh -c 'sh -c "/usr/bin/python3 -c \"import os; print(sorted(os.sched_getaffinity(0)))\""')" "[0]"
for i in $(seq 20); do
	expect_status "first calls from 8 threads at once all see the set (try $i)" 0 \
		in_set "$S1" "$PROG_AFF" --race 1
done

# An orphan (its parent gone, reparented) has no recorded ancestor left:
# cpuset-run's CPUSETSHIM_RUN_SET still names its set.
rm -f "$T/orphan"
in_set "$S1" sh -c "(sleep 0.5; nproc >'$T/orphan') & exit 0"
wait_until [ -s "$T/orphan" ]
expect_eq "an orphan under cpuset-run: nproc is still the set's" "$(cat "$T/orphan" 2>/dev/null)" 1

# CPUSETSHIM_SET alone (no cpuset-run): the process is put in the set and
# confined before main, even if it never asks about CPUs.
env $(san_env) CPUSETSHIM_SET=itest-one LD_PRELOAD="$SHIM_PRELOAD" sleep 600 &
sp=$!
at_exit "kill $sp 2>/dev/null"
# (once its shim has run: recorded, then confined, however slowly it
# starts; sleep asks no question, so its mask is the shim's doing)
wait_until eval '"$CPUSET" which "$sp" >/dev/null 2>&1'
wait_until eval '[ "$(outside taskset -p "$sp" | sed "s/.*: //")" = 2 ]'
expect_eq "CPUSETSHIM_SET alone: the kernel mask is the set's, before any question" \
	"$(outside taskset -p "$sp" | sed 's/.*: //')" 2
expect_eq "CPUSETSHIM_SET alone: recorded in the set" \
	"$("$CPUSET" which "$sp" 2>/dev/null | cut -d" " -f1)" "$S1"
kill "$sp"
wait "$sp" 2>/dev/null
expect_eq "CPUSETSHIM_SET alone: nproc" \
	"$(with_san env CPUSETSHIM_SET=itest-one LD_PRELOAD="$SHIM_PRELOAD" nproc)" 1

finish
