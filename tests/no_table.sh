#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# A table name nobody made (a mistyped CPUSETSHIM_TABLE or --table): every
# command that only reads or joins a set says so and leaves no file in
# /dev/shm (neither the table nor its kept views' folder); only 'cpuset
# init', 'cpuset create' and 'cpuset-run --cpus' make a table. The shim
# with no table makes nothing either.
. "$(dirname "$0")/common.sh"

TBL=$CPUSETSHIM_TABLE
F=/dev/shm/$TBL
[ ! -e "$F" ] || die "the test's table $TBL exists before the test"

# none CMD...: after CMD nothing of the table's name appeared
none() {
	_made=$(ls -d "$F" "$F".* 2>/dev/null)
	if [ -n "$_made" ]; then
		fail "no table made by: $*" "$_made"
		rm -rf "$F" "$F".*
	else
		pass "no table made by: $*"
	fi
}

# reads STATUS TEXT CMD...: CMD exits STATUS, says TEXT, makes no table
reads() {
	_st=$1 _txt=$2
	shift 2
	expect_status "$* exits $_st" "$_st" "$@"
	expect_stderr "$* says so" "$_txt"
	none "$@"
}

notab="table $TBL: no such table (make one with 'cpuset init' or 'cpuset create')"
reads 3 "$notab" "$CPUSET" list
reads 3 "$notab" "$CPUSET" --json list
reads 3 "$notab" "$CPUSET" show x
reads 3 "$notab" "$CPUSET" which
reads 3 "$notab" "$CPUSET" free
reads 3 "$notab" "$CPUSET" attach x $$
reads 3 "$notab" "$CPUSET" destroy x
reads 3 "$notab" "$CPUSET" alloc x 0
reads 3 "$notab" "$CPUSET" sweep
reads 3 "$notab" "$CPUSET_INSPECT"
reads 3 "$notab" "$CPUSET_INSPECT" --tree
reads 3 "$notab" "$CPUSET_INSPECT" --check
reads 3 "$notab" "$CPUSET_INSPECT" --json
reads 3 "$notab" "$CPUSET_INSPECT" --top -n 1
reads 1 "set 'x': no such set (there is no table $TBL" "$CPUSET_RUN" --set x true
# the same table named by --table, with the variable unset
reads 3 "$notab" env -u CPUSETSHIM_TABLE "$CPUSET" --table "$TBL" list
reads 1 "no such set" env -u CPUSETSHIM_TABLE "$CPUSET_RUN" --table "$TBL" --set x true
# neither --set nor --cpus: the caller is in no set; the program runs as
# it is
expect_status "cpuset-run PROGRAM runs without a table" 0 with_san "$CPUSET_RUN" sh -c 'echo ran'
expect_eq "and its output is the program's" "$(cat "$T/out")" "ran"
none "$CPUSET_RUN" sh -c 'echo ran'
expect_status "a missing program is still 127" 127 with_san "$CPUSET_RUN" /nonexistent/prog
none "$CPUSET_RUN" /nonexistent/prog
# a program under the shim asking for a set by CPUSETSHIM_SET: the shim
# never makes a table
CPUSETSHIM_SET=x env $(san_env) LD_PRELOAD="$SHIM_PRELOAD" sh -c 'exit 0' 2>/dev/null
none "CPUSETSHIM_SET=x under the shim"
# a program under the shim (set up by its first calls) that reopens its
# streams with freopen(NULL, ...), where the shim asks whether the stream
# is one of its views, whose folder belongs to a table: tests/difflibc's
# freopen cases (what is asked is that they ran, not their comparison
# with libc, which means nothing in a sanitizer build)
DL=$B/tests/difflibc
if [ -x "$DL" ]; then
	env -C "$T" $(san_env) LD_PRELOAD="$SHIM_PRELOAD" "$DL" "$SRC/preload/libcpusetshim.map" \
		same freopen >"$T/dl.out" 2>&1
	expect_match "freopen(NULL, ...) under the shim with no table: the cases ran" \
		"$(cat "$T/dl.out")" '^(PASS|FAIL) freopen '
	none "freopen(NULL, ...) under the shim"
else
	fail "no $DL (make check builds it)"
fi

# those that make one
expect_status "cpuset-run --cpus makes the table" 0 with_san "$CPUSET_RUN" --cpus 0 true
check "the table is there" test -e "$F"
rm -f "$F"
expect_status "cpuset create makes the table" 0 "$CPUSET" create --cpus 0
check "the table is there" test -e "$F"
rm -f "$F"
expect_status "cpuset init makes the table" 0 "$CPUSET" init
check "the table is there" test -e "$F"
expect_status "then list reads it" 0 "$CPUSET" list
finish
