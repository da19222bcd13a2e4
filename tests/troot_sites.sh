#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# The test root (CPUSETSHIM_TEST_ROOT) lives in preload/troot.c: the
# prefix (shim_rooted, put once per look-up into struct shim_vpath), its
# removal (shim_unrooted), the captured machine's cpuinfo, cgroup files
# and mask size. Production code asks about it in a handful of places
# only: at most MAX lines of preload/*.c outside troot.c name the test
# root's functions or state (shim_test_root*, shim_troot_*), and the
# headers other than troot's part of preload/view.h read its state in
# one place (preload/shim.h's cheap path test). A new check of the test
# root in a fast path fails here: the place to add one is troot.c, or the
# prefix, or vp->rl.
. "$(dirname "$0")/common.sh"

MAX=5
PAT='shim_test_root\|shim_troot_'
(cd "$SRC" && grep -n "$PAT" preload/*.c | grep -v '^preload/troot\.c:') >"$T/c" || :
n=$(wc -l <"$T/c")
if [ "$n" -le "$MAX" ]; then
	pass "$n call sites of the test root outside preload/troot.c (at most $MAX)"
else
	fail "$n call sites of the test root outside preload/troot.c, more than $MAX" "$(cat "$T/c")"
fi
# the headers: the state read by the one cheap test of shim.h only
(cd "$SRC" && grep -n 'shim_troot_state' preload/*.h | grep -v '^preload/view\.h:' |
	grep -v 'extern int shim_troot_state;') >"$T/h" || :
expect_eq "the headers read the test root's state in one place (preload/shim.h)" \
	"$(cut -d: -f1 "$T/h" | sort | uniq -c | awk '{print $2 ":" $1}')" "preload/shim.h:1"
finish
