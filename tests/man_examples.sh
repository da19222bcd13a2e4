#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# The cpusetctl(3) pages: every function of <cpusetctl.h> has a page (or a
# symbolic link to one) installed by man/Makemodule.am, and each page's example
# compiles against the build tree's header and library and runs, in the
# test's own table, exiting 0. Every page of the tree (aliases included)
# renders with man -l from another directory, without a warning.
. "$(dirname "$0")/common.sh"
need cc gcc
need man man-db
CC=${CC:-cc}
LIB=$B/.libs
[ -f "$LIB/libcpusetctl.so" ] || die "no $LIB/libcpusetctl.so (make builds it)"

note "---- a page for every function ----"
fns=$(sed -n 's/^[a-z].*[ *]\(cpusetctl_[a-z_]*\)(.*/\1/p' "$SRC/include/cpusetctl.h" | sort -u)
[ -n "$fns" ] || die "no function found in cpusetctl.h"
for f in $fns; do
	page=$SRC/man/$f.3
	if [ ! -f "$page" ]; then
		fail "$f has a page" "no $page"
		continue
	fi
	[ -L "$page" ] && page=$SRC/man/$(readlink "$page")
	expect_match "$f: its page has a synopsis line for it" "$(cat "$page")" "cpusetctl_.*\"?$f\\(|$f\\("
	case " $(tr '\\\n\t' '   ' <"$SRC/man/Makemodule.am") " in
	*" man/$f.3 "*) pass "$f.3 is installed (man/Makemodule.am)" ;;
	*) fail "$f.3 is installed (man/Makemodule.am)" ;;
	esac
done

note "---- every page renders from the tree: man -l, from elsewhere ----"
for page in "$SRC"/man/*.[1-8]; do
	name=$(basename "$page")
	# groff's warnings all on; a .so or a link that fails is one
	(cd "$T" && LC_ALL=C.UTF-8 MANWIDTH=80 man --warnings=all -l "$page" >"$T/page.txt" 2>"$T/page.err")
	expect_eq "$name renders without a warning (man -l, from another directory)" \
		"$(cat "$T/page.err")" ""
	expect_match "$name: its NAME section renders" "$(cat "$T/page.txt")" "^NAME"
done

note "---- every page's example compiles and runs ----"
n=0
for page in "$SRC"/man/cpusetctl*.3; do
	name=$(basename "$page" .3)
	[ -L "$page" ] && continue # an alias: its page's example is its own
	# the EXAMPLES section's .EX ... .EE, roff escapes undone
	awk '/^\.SH EXAMPLES/ { ex = 1; next } /^\.SH / { ex = 0 }
		ex && /^\.EE/ { on = 0 } ex && on { print } ex && /^\.EX/ { on = 1 }' "$page" |
		sed -e 's/\\-/-/g' -e 's/\\e/\\/g' >"$T/$name.c"
	if [ ! -s "$T/$name.c" ]; then
		fail "$name(3) has an example"
		continue
	fi
	n=$((n + 1))
	expect_status "$name(3): the example compiles (-Wall -Werror)" 0 \
		$CC -std=c11 -Wall -Wextra -Werror -I"$SRC/include" -o "$T/$name" "$T/$name.c" \
		-L"$LIB" -lcpusetctl || { show "$T/$name.c"; continue; }
	expect_status "$name(3): the example runs and exits 0" 0 \
		with_san env LD_LIBRARY_PATH="$LIB" timeout 60 "$T/$name"
	note "$name: $(cat "$T/out" "$T/err")"
done
expect_ne "examples found" "$n" 0
expect_status "the table passes --check after the examples" 0 "$CPUSET_INSPECT" --check
finish
