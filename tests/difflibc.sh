#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# The differential test (tests/difflibc.c): every name the shim exports,
# read from preload/libcpusetshim.map, called through the shim and through
# libc's own on generated hostile arguments (NULL, PROT_NONE, read-only
# and page-edge buffers, bad descriptors, unknown flags, huge and zero
# sizes), each case in a child of its own, results compared. Three ways:
#   - the shim loaded, no table: everything passes through, all agree;
#   - a set of every CPU this process may use: numbered as the machine
#     where those are 0..n-1 (all agree, contents included), else errors;
#   - a set of one CPU: errors agree (same failure, same errno), successes
#     agree, and nothing crashes where libc does not.
# A name no driver covers fails. DIFFLIBC_NAME=NAME runs one name;
# DIFFLIBC_BUDGET=N (300, 0 for every case) and DIFFLIBC_SEED=S (1) choose
# how many of a name's generated cases run, a sample drawn from the seed
# (the seed is printed; a long run by hand: DIFFLIBC_BUDGET=0
# DIFFLIBC_SECONDS=0). DIFFLIBC_SECONDS=S (150) bounds each way's time:
# a loaded machine runs fewer cases of every name, never fewer names.
. "$(dirname "$0")/common.sh"
need taskset util-linux
note "cases per name: ${DIFFLIBC_BUDGET:-300} (0: all), seed ${DIFFLIBC_SEED:-1}, ${DIFFLIBC_SECONDS:-150} s per way at most (0: no bound)"
PROG="$B/tests/difflibc"
MAP="$SRC/preload/libcpusetshim.map"
[ -x "$PROG" ] || die "no $PROG (make check builds it)"

# relay MODE FILE: one check per exported name
relay() {
	_m=$1
	_seen=0
	while IFS= read -r _l; do
		set -- $_l
		case $1 in
		PASS) pass "$_m: $2 behaves as libc's ($3 cases; $4 an unreadable argument, doc/limits.md)"; _seen=$((_seen + 1)) ;;
		FAIL) _n=$2; shift 2; fail "$_m: $_n differs from libc's" "$*"; _seen=$((_seen + 1)) ;;
		MISSING) fail "$_m: $2 is exported but no driver of tests/difflibc.c calls it"; _seen=$((_seen + 1)) ;;
		*) note "  | $_l" ;;
		esac
	done <"$2"
	# every name of the map once (cpusetshim_copy is the shim's own)
	_want=$(sed -n '/global:/,/local:/p' "$MAP" | sed 's,/\*.*\*/,,; s/global://; s/local://' |
		tr ' \t;' '\n\n\n' | grep -c '^[A-Za-z_][A-Za-z_0-9]*$')
	_want=$((_want - 1))
	[ -n "$DIFFLIBC_NAME" ] && _want=1
	expect_eq "$_m: every exported name was tried" "$_seen" "$_want"
}

cd "$T" || die "no $T"
# the shim loaded, no table at all
env CPUSETSHIM_TABLE="cpusetshim-difflibc-none.$$" $(san_env) \
	LD_PRELOAD="$SHIM_PRELOAD" timeout 280 "$PROG" "$MAP" same $DIFFLIBC_NAME >"$T/none.out" 2>"$T/none.err"
expect_eq "no table: exit status" "$?" 0
relay "no table" "$T/none.out"
# with no table the shim makes nothing: no table, no kept views' folder
expect_eq "no table: nothing of the table's name made in /dev/shm" \
	"$(ls -d "/dev/shm/cpusetshim-difflibc-none.$$" "/dev/shm/cpusetshim-difflibc-none.$$."* 2>/dev/null)" ""
rm -rf "/dev/shm/cpusetshim-difflibc-none.$$" "/dev/shm/cpusetshim-difflibc-none.$$."*

expect_status "cpuset init" 0 "$CPUSET" init
mine=$(real_cpus $$)
all=$("$CPUSET" create --cpus "$mine") || die "cpuset create --cpus $mine failed"
n=$(outside nproc)
mode=errors
[ "$mine" = "$(seq_join 0 $((n - 1)) ,)" ] || [ "$mine" = "0-$((n - 1))" ] || [ "$n" = 1 -a "$mine" = 0 ] && mode=same
# CPUSETSHIM_WRAP=0: a virtual CPU past the set's is refused, as libc
# refuses a CPU past the machine's (with wrapping, the shim's documented
# default, it names a CPU of the set)
export CPUSETSHIM_WRAP=0
with_san timeout 280 "$CPUSET_RUN" --set "$all" "$PROG" "$MAP" "$mode" $DIFFLIBC_NAME >"$T/all.out" 2>"$T/all.err"
expect_eq "set {$mine} ($mode): exit status" "$?" 0
relay "set {$mine} ($mode)" "$T/all.out"

last=${mine##*[,-]}
one=$("$CPUSET" create --cpus "$last") || die "cpuset create --cpus $last failed"
with_san timeout 280 "$CPUSET_RUN" --set "$one" "$PROG" "$MAP" errors $DIFFLIBC_NAME >"$T/one.out" 2>"$T/one.err"
expect_eq "set {$last} (errors): exit status" "$?" 0
relay "set {$last} (errors)" "$T/one.out"
finish
