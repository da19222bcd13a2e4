#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# Function size: no function of src/, preload/, supervise/, shm/, tools/ or
# slurm/ is longer than 80 lines or has a cyclomatic complexity over 25 (pmccabe's
# traditional count, every case of a switch one), unless
# tests/function_size.exceptions lists it with a reason. An entry whose
# function is now within the limits, or gone, fails too: the list only
# shrinks.
. "$(dirname "$0")/common.sh"
need pmccabe pmccabe
MAX_LINES=80
MAX_CC=25
LIST=$SRC/tests/function_size.exceptions

# FILE NAME COMPLEXITY LINES for every function; pmccabe names a function
# declared with a leading __attribute__ "__attribute__": its name is then
# the identifier before the first "(" of its line, attributes left out
(cd "$SRC" && pmccabe src/*.c preload/*.c supervise/*.c shm/*.c tools/*.c slurm/*.c) >"$T/all" 2>"$T/err" ||
	die "pmccabe failed" "$(cat "$T/err")"
awk -v root="$SRC" '{
	loc = $6; sub(/\(.*/, "", loc)
	line = $6; sub(/.*\(/, "", line); sub(/\).*/, "", line)
	name = $7
	if (name == "__attribute__") {
		src = ""
		n = 0
		file = root "/" loc
		while ((getline l <file) > 0)
			if (++n == line) { src = l; break }
		close(file)
		gsub(/__attribute__\(\([^)]*\)\)/, "", src)
		if (match(src, /[A-Za-z_][A-Za-z0-9_]*[ \t]*\(/)) {
			name = substr(src, RSTART, RLENGTH - 1)
			sub(/[ \t]+$/, "", name)
		}
	}
	print loc, name, $2, $5
}' "$T/all" >"$T/fns"
[ "$(wc -l <"$T/fns")" -gt 100 ] || die "pmccabe found too few functions" "$(cat "$T/fns")"
[ -f "$LIST" ] || die "no $LIST"
# the list: "FILE FUNCTION: reason", comments (#) and blank lines aside
sed -e 's/#.*//' -e '/^[[:space:]]*$/d' "$LIST" >"$T/list"
awk '$2 !~ /:$/ || NF < 3 { print "  line: " $0 }' "$T/list" >"$T/badlist"
if [ -s "$T/badlist" ]; then
	fail "tests/function_size.exceptions: each entry is 'FILE FUNCTION: reason'" "$(cat "$T/badlist")"
fi

over=
while read -r f fn cc lines; do
	[ "$lines" -gt $MAX_LINES ] || [ "$cc" -gt $MAX_CC ] || continue
	grep -q "^$f $fn:" "$T/list" && continue
	over="$over
  $f $fn: $lines lines, complexity $cc"
done <"$T/fns"
if [ -z "$over" ]; then
	pass "every function is within $MAX_LINES lines and complexity $MAX_CC, or listed"
else
	fail "every function is within $MAX_LINES lines and complexity $MAX_CC, or listed" \
		"over the limits (split it into named steps, or add 'FILE FUNCTION: why'" \
		"to tests/function_size.exceptions):$over"
fi

stale=
while read -r f fn rest; do
	fn=${fn%:}
	m=$(awk -v f="$f" -v fn="$fn" '$1 == f && $2 == fn { print $3, $4; exit }' "$T/fns")
	if [ -z "$m" ]; then
		stale="$stale
  $f $fn: no such function any more"
	else
		set -- $m
		[ "$2" -gt $MAX_LINES ] || [ "$1" -gt $MAX_CC ] ||
			stale="$stale
  $f $fn: now $2 lines, complexity $1"
	fi
done <"$T/list"
if [ -z "$stale" ]; then
	pass "every exception is still over the limits ($(wc -l <"$T/list") listed)"
else
	fail "every exception is still over the limits" \
		"within the limits or gone: remove from tests/function_size.exceptions:$stale"
fi
note "the listed functions now:"
while read -r f fn rest; do
	awk -v f="$f" -v fn="${fn%:}" '$1 == f && $2 == fn { printf "#   %s %s: %d lines, complexity %d\n", $1, $2, $4, $3 }' "$T/fns"
done <"$T/list"
finish
