#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# Calls before libc is up: a program's preinit functions (and a sanitizer
# runtime, and the constructors of libraries loaded before the shim) run
# before libc's own set-up, when getenv answers NULL to every name. The
# shim passes such calls through, as libc answers them, and decides
# nothing then: the set, the table and the test root that the environment
# names are still the ones main sees. A program that empties its
# environment in main stays in its set.
. "$(dirname "$0")/common.sh"
PRE=$B/tests/preinit
need taskset util-linux
[ -d "${CPS_FIXTURES:-}" ] || die "no unpacked fixtures in CPS_FIXTURES='${CPS_FIXTURES:-}'"

"$CPUSET" init >/dev/null || die "cpuset init"
# the first CPU this process may use: a set of one CPU on any host
first=$(outside taskset -cp $$ | sed 's/.*: //; s/[-,].*//')
"$CPUSET" create --cpus "$first" --name pre-one >/dev/null || die "cpuset create --cpus $first"
onln=$(outside getconf _NPROCESSORS_ONLN)

# the table is this test's own (CPUSETSHIM_TABLE): a shim that read the
# environment in the preinit call would look for the default table
out=$(in_set pre-one "$PRE") || die "cpuset-run --set pre-one $PRE failed"
expect_eq "in a set of one CPU: main sees it (online, affinity, CPU directories)" \
	"$(echo "$out" | grep '^main')" "main 1 1 1"
expect_eq "the preinit call passed through: libc's answer (the machine's online count, the real affinity)" \
	"$(echo "$out" | grep '^pre')" "pre $onln 1"
out=$(in_set pre-one "$PRE" --clearenv) || die "cpuset-run --set pre-one $PRE --clearenv failed"
expect_eq "main empties its environment first: still in the set" \
	"$(echo "$out" | grep '^main')" "main 1 1 1"

# CPUSETSHIM_SET naming no set: the program still stops before main,
# with cpuset-run's status and message, though a preinit call came first
expect_status "CPUSETSHIM_SET=no-such-set: the program does not run" 1 \
	env $(san_env) LD_PRELOAD="${SAN_PRELOAD:+$SAN_PRELOAD:}$SHIM" CPUSETSHIM_SET=no-such-set "$PRE"
expect_stderr "with cpuset-run's message" "no-such-set"
expect_eq "and nothing on its standard output" "$(cat "$T/out")" ""

# the test root: a captured machine and a set of 4 of its CPUs, given
# out of order
M=64amd64-4s2n4ca2co
[ -d "$CPS_FIXTURES/$M/sys/devices/system/cpu" ] || die "no fixture $M"
out=$(env $(san_env) LD_PRELOAD="$SHIM_PRELOAD" CPUSETSHIM_TEST_ROOT="$CPS_FIXTURES/$M" \
	CPUSETSHIM_TEST_CPUS=63,3,33,1 "$PRE") || die "$PRE under the test root failed"
expect_eq "test root $M, set {63,3,33,1}: main lists 4 CPU directories" \
	"$(echo "$out" | awk '/^main/ { print $4 }')" 4
finish
