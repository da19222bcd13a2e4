#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# The shim's entry points that are frameless stubs where the architecture
# has them (preload/stubs.h): syscall(2) passed through (its value, errno,
# six arguments) and translated (sched_getaffinity, getcpu, chdir), the
# open family passed through (errno, the mode in each register) and each
# spelling of a view a stub tells apart (tests/integration/prog_entry.c),
# in set {1}. tests/cross.sh runs the same program for each cross
# build under QEMU's user mode (aarch64's stubs, the others' C paths).
. "$(dirname "$0")/../common.sh"
PROG=$B/tests/integration/prog_entry
[ -x "$PROG" ] || die "no $PROG (make check builds it)"
two_sets
mkdir "$T/dir" || die "mkdir $T/dir"
in_set "$S1" "$PROG" "$T/dir" >"$T/out" 2>"$T/err"
st=$?
while IFS= read -r l; do
	case $l in
	"ok - "*) pass "${l#ok - }" ;;
	"not ok - "*) fail "${l#not ok - }" ;;
	*) note "$l" ;;
	esac
done <"$T/out"
show "$T/err"
expect_eq "prog_entry: exit status" "$st" 0
expect_match "prog_entry: its checks ran to the last" "$(tail -n 1 "$T/out")" 'in "/"$'
finish
