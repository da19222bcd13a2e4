#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# Views read again after rewind: top keeps /proc/stat open and reads it
# again after rewind() and fflush(); with a busy loop in the one-CPU set,
# its last frame must say the set's CPU is busy (a view frozen at its open
# said 100% idle). prog_affinity checks the same idiom in C (views.sh).
. "$(dirname "$0")/../common.sh"
need timeout coreutils
need top procps
two_sets

if [ -n "$SAN_PRELOAD" ] &&
	! env LD_PRELOAD="$SAN_PRELOAD" timeout 10 top -b -n 1 </dev/null >/dev/null 2>&1; then
	# Measured: procps top hangs with libasan preloaded, shim or not; the
	# same idiom is checked by prog_affinity (rewind + fflush) in this pass.
	note "top does not run with $SAN_PRELOAD preloaded, even without the shim: not run here"
else
	last=$(in_set "$S1" sh -c 'timeout 3 sh -c "while :; do :; done" &
		top -b -n 3 -d 0.4 | grep "^%Cpu" | tail -n 1; wait')
	note "  | $last"
	# busy: the set's one CPU idle at most half the time (user or system
	# time, which a loaded machine shares out either way)
	expect_eq "top in a set with a busy loop: the last frame shows it busy" \
		"$(echo "$last" | sed 's/^%Cpu(s): *//' | awk -F'[ ,]+' '{ print ($7 <= 50) ? "busy" : "idle: " $0 }')" busy
fi

finish
