#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# The wrap rule said where someone sees it: a bind that names a CPU
# beyond its set and lands on CPU mod N is kept (exit 0), said once a
# process under CPUSETSHIM_DEBUG, counted in the set's slot (shown by
# cpuset-inspect's views and --json) and noted under --top; a bind the
# kernel's rule gives the same CPUs (the whole set, or no CPU beyond it)
# is not counted; CPUSETSHIM_WRAP=0 refuses and counts nothing. Through
# the preload (taskset, Python) and through cpuset-run's supervisor.
. "$(dirname "$0")/common.sh"
need "$PYTHON3" python3
need taskset util-linux

expect_status "init" 0 "$CPUSET" init
one=$("$CPUSET" create --cpus 1 --name w1) || die "create failed"
wrapped() {
	"$CPUSET_INSPECT" --json | "$PYTHON3" -c '
import json, sys
d = json.load(sys.stdin)
print([s for s in d["sets"] if s["id"] == int(sys.argv[1])][0]["wrapped_binds"])' "$one"
}
expect_eq "a new set: no wrapped bind" "$(wrapped)" 0

# taskset -c 1 in a one-CPU set: CPU 0, said once
expect_status "taskset -c 1 in a one-CPU set runs" 0 \
	env $(san_env) CPUSETSHIM_DEBUG=1 "$CPUSET_RUN" --set w1 --no-supervise \
	taskset -c 1 sh -c 'taskset -cp $$'
cp "$T/err" "$T/e"
check "on its CPU 0" grep -q "current affinity list: 0$" "$T/out"
expect_eq "CPUSETSHIM_DEBUG says so once" "$(grep -c 'virtual CPU 1 is beyond this set' "$T/e")" 1
check "naming the CPU it got and CPUSETSHIM_WRAP" \
	grep -q 'bound to CPU 0 by the wrap rule (CPUSETSHIM_WRAP=0 refuses it instead)' "$T/e"
expect_eq "counted in the set" "$(wrapped)" 1

# one process binding three times past its set: said once, counted
cat >"$T/binds.py" <<'EOF'
import os
for cpu in (1, 2, 3):
    os.sched_setaffinity(0, {cpu})
print(sorted(os.sched_getaffinity(0)))
EOF
expect_status "three binds past the set" 0 \
	env $(san_env) CPUSETSHIM_DEBUG=1 "$CPUSET_RUN" --set w1 --no-supervise "$PYTHON3" "$T/binds.py"
expect_eq "each on CPU 0" "$(cat "$T/out")" "[0]"
expect_eq "said once in the process" "$(grep -c 'is beyond this set' "$T/err")" 1
expect_eq "each counted" "$(wrapped)" 4
# without CPUSETSHIM_DEBUG the shim says nothing
expect_status "quiet without CPUSETSHIM_DEBUG" 0 \
	with_san "$CPUSET_RUN" --set w1 --no-supervise taskset -c 1 true
expect_eq "not a word" "$(cat "$T/err")" ""
expect_eq "counted" "$(wrapped)" 5

# binds the kernel's rule gives the same: not counted
expect_status "taskset -c 0" 0 with_san "$CPUSET_RUN" --set w1 --no-supervise taskset -c 0 true
expect_status "every CPU (0-1023)" 0 with_san "$CPUSET_RUN" --set w1 --no-supervise taskset -c 0-1023 true
expect_status "CPU 0 and 1" 0 with_san "$CPUSET_RUN" --set w1 --no-supervise taskset -c 0,1 true
expect_eq "none counted" "$(wrapped)" 5

# CPUSETSHIM_WRAP=0: refused as the kernel refuses, nothing counted
expect_status "CPUSETSHIM_WRAP=0 refuses" 1 \
	env $(san_env) CPUSETSHIM_WRAP=0 "$CPUSET_RUN" --set w1 --no-supervise taskset -c 1 true
expect_eq "nothing counted" "$(wrapped)" 5

# through the supervisor (the shim stands aside)
expect_status "supervised: taskset -c 1" 0 \
	with_san "$CPUSET_RUN" --set w1 --supervise=calls taskset -c 1 sh -c 'taskset -cp $$'
check "supervised: on its CPU 0" grep -q "current affinity list: 0$" "$T/out"
expect_eq "supervised: counted" "$(wrapped)" 6

# where someone looks
"$CPUSET_INSPECT" --tree >"$T/o"
check "--tree shows the count" grep -q -- "-- $one w1 .*, 6 wrapped binds" "$T/o"
"$CPUSET_INSPECT" >"$T/o"
check "the default view shows it" grep -q "wrapped binds = 6" "$T/o"
"$CPUSET_INSPECT" --top -n 1 >"$T/o"
check "--top notes it" grep -q "^note: wrapped binds .*: 6 in set $one" "$T/o"
"$CPUSET_INSPECT" --top --json -n 1 >"$T/o"
check "--top --json has it" grep -q '"wrapped_binds":6' "$T/o"
finish
