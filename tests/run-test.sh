#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# How make check runs every test (LOG_COMPILER and SH_LOG_COMPILER): the
# test's TAP on stdout is read by automake's TAP driver.
#
# Exit status: a test that skips exits 77 after TAP lines that say why
# ("1..0 # SKIP needs taskset ..."); the TAP driver would call any status
# but 0 an error, so 77 becomes 0 here and the TAP lines decide. Every
# other status is passed on as it is.
#
# Time: the last line of every test's log is "# took N s".
#
# Deadline: a test that hangs must not take the whole run with it. Each test
# runs in a session of its own; if it has not ended after CPS_TEST_TIMEOUT
# seconds (600 unless set; 0: no deadline), what is left of it is listed as
# TAP comments, "Bail out!" is printed (the driver counts an error), and the
# session gets SIGHUP (the harness's cleanup runs: daemons it started are
# stopped), then SIGKILL 10 s later.
#
# A test that can tell it is making progress (tests/guest.sh: its guest's
# console and results grow) may push its own deadline on: it writes a
# time (seconds since the epoch) into the file CPS_TEST_EXTEND names, and
# is not stopped before it. Such a test still ends: it writes only while
# it progresses, and a test that stops progressing meets the later of
# the two deadlines.
started=$(date +%s)
took() { echo "# took $(($(date +%s) - started)) s"; }
limit=${CPS_TEST_TIMEOUT:-600}
case $limit in
'' | *[!0-9]*) limit=600 ;;
esac
if [ "$limit" -eq 0 ] || ! command -v setsid >/dev/null 2>&1; then
	"$@"
	rc=$?
	took
	[ "$rc" -eq 77 ] && exit 0
	exit "$rc"
fi

# (a background job of a non-interactive shell is no group leader: setsid
# makes the session without forking, so $! is its leader)
ext=$(mktemp "${TMPDIR:-/tmp}/cpusetshim-deadline.XXXXXX") || ext=
CPS_TEST_EXTEND=$ext setsid "$@" &
pid=$!
(
	trap 'exit 0' TERM
	# the clock, not a count of sleeps: a loaded host sleeps longer.
	# The file is read every second: one caught between its writer's
	# truncation and its write keeps the time read before.
	until=0
	while :; do
		sleep 1 >/dev/null 2>&1 &
		wait $!
		now=$(date +%s)
		t=$(cat "$ext" 2>/dev/null)
		case $t in '' | *[!0-9]*) ;; *) until=$t ;; esac
		[ $((now - started)) -lt "$limit" ] || [ "$now" -lt "$until" ] || break
	done
	echo "# $* has run for $(($(date +%s) - started)) s (CPS_TEST_TIMEOUT $limit s, or the deadline it set in CPS_TEST_EXTEND); what is left of it:"
	ps -o pid,ppid,etimes,stat,args -s "$pid" 2>&1 | sed 's/^/#   /'
	echo "Bail out! $* did not end within its deadline"
	# the group, and what left it for a group of its own in the session
	kill -HUP "-$pid" 2>/dev/null
	pkill -HUP -s "$pid" 2>/dev/null
	sleep 10 >/dev/null 2>&1 &
	wait $!
	kill -KILL "-$pid" 2>/dev/null
	pkill -KILL -s "$pid" 2>/dev/null
) &
dog=$!
wait "$pid"
rc=$?
kill "$dog" 2>/dev/null
wait "$dog" 2>/dev/null
[ -n "$ext" ] && rm -f "$ext"
took
[ "$rc" -eq 77 ] && exit 0
exit "$rc"
