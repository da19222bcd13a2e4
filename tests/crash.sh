#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# Crash safety: a writer killed with SIGKILL at any write step of any
# operation leaves a table that the next writer rolls back to exactly the
# state before (or, killed past the commit point, the state after), which
# then passes cpuset-inspect --check. The fault points
# are test-only (CPUSETSHIM_FAULT_STEP=N kills at the N-th step).
. "$(dirname "$0")/common.sh"
need "$PYTHON3" python3
need_fault_points
FAULT_OP=$B/tests/fault_op

# The table's state, without the counters that writes and repairs move,
# and with the pid of the dead member (new at each setup) replaced.
state() {
	"$CPUSET_INSPECT" --json | DEAD=$dead "$PYTHON3" -c '
import json, os, sys
d = json.load(sys.stdin)
for k in ("seq", "writes", "repairs"):
    d.pop(k)
for m in d["members"]:
    m.pop("alive")
    if str(m["pid"]) == os.environ["DEAD"]:
        m["pid"] = "dead"
d["members"].sort(key=lambda m: json.dumps(m, sort_keys=True))
print(json.dumps(d, sort_keys=True))'
}

sleeper_pid=
"$B/cpuset" --version >/dev/null
sleep 600 &
sleeper_pid=$!
sleep 600 &
other_pid=$!
at_exit 'kill $sleeper_pid $other_pid 2>/dev/null'

# The same starting point for every run: a victim set with a member, a
# sibling, a strict set, a dead member waiting for the sweep.
setup() {
	"$CPUSET" init --force --max-sets 16 --max-procs 32 --max-threads 64 >/dev/null || exit 99
	"$CPUSET" create --cpus 0-1 --name victim >/dev/null
	"$CPUSET" create --cpus 1 --name sib --parent victim >/dev/null
	"$CPUSET" create --cpus 0 --name empty --autoclean >/dev/null
	"$CPUSET" create --cpus 1 --name spare >/dev/null
	"$CPUSET" attach victim "$sleeper_pid"
	"$CPUSET" attach spare "$other_pid"
	sleep 600 &
	dead=$!
	"$CPUSET" attach spare "$dead"
	kill $dead
	wait $dead 2>/dev/null
}

run_op() {
	case "$1" in
	create) "$CPUSET" create --cpus 0 --name fresh ;;
	destroy) "$CPUSET" destroy empty ;;
	alloc) "$CPUSET" alloc victim 1 ;;
	createmems) "$CPUSET" create --cpus 1 --mems auto --parent victim --name fresh ;;
	allocmems) "$CPUSET" alloc --mems "$FIRST_NODE" victim 1 ;;
	attach) "$CPUSET" attach spare "$sleeper_pid" ;;
	sweep) "$CPUSET" sweep ;;
	repair) "$CPUSET" repair ;;
	register) "$FAULT_OP" register "$other_pid" 2 ;;
	want) "$FAULT_OP" want "$sleeper_pid" "$sleeper_pid" 1 ;;
	esac
}

# a node of this machine with memory (node 0 without NUMA)
FIRST_NODE=$(sed 's/[-,].*//' /sys/devices/system/node/has_memory 2>/dev/null || echo 0)
for op in create destroy alloc createmems allocmems attach sweep repair register want; do
	setup
	rm -f "$T/steps"
	CPUSETSHIM_FAULT_REPORT=$T/steps run_op $op >/dev/null 2>&1
	steps=$(cat "$T/steps" 2>/dev/null)
	after=$(state)
	if [ -z "$steps" ] || [ "$steps" -lt 2 ]; then
		fail "$op: write steps counted" "counted [$steps], want 2 or more"
		continue
	fi
	n=1
	while [ "$n" -le "$steps" ]; do
		setup
		before=$(state)
		CPUSETSHIM_FAULT_STEP=$n run_op $op >/dev/null 2>&1
		rc=$?
		expect_eq "$op killed at step $n/$steps" "$rc" 137
		out=$("$CPUSET" repair)
		expect_eq "$op step $n: the next writer repairs" "$out" \
			"repaired: a dead writer's transaction was rolled back"
		# undone, or (killed past the commit point) done: never half done
		now=$(state)
		if [ "$now" = "$before" ] || [ "$now" = "$after" ]; then
			pass "$op step $n: the state is the one before or the one after"
		else
			fail "$op step $n: the state is the one before or the one after" "neither: $now"
		fi
		check "$op step $n: cpuset-inspect --check" "$CPUSET_INSPECT" --check
		n=$((n + 1))
	done
	# past the last step the operation completes
	setup
	CPUSETSHIM_FAULT_STEP=$((steps + 1)) run_op $op >/dev/null 2>&1
	expect_eq "$op completes past its last step" "$?" 0
	check "$op: cpuset-inspect --check after completion" "$CPUSET_INSPECT" --check
	note "$op: $steps write steps, each killed and repaired"
done
finish
