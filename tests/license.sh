#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# The licence: LICENSE is BSD-3-Clause, debian/copyright says so for the
# project's files, and every source file (C, headers, version scripts, Go,
# shell, Python, automake, m4, configure.ac, debian/rules, .ci/run, the
# pkg-config template, the man pages but their one-line .so aliases)
# carries "SPDX-License-Identifier: BSD-3-Clause" in its first three lines.
# The captured machines and the fuzz corpora keep their own notices.
. "$(dirname "$0")/common.sh"

tag='SPDX-License-Identifier: BSD-3-Clause'
check "LICENSE is the BSD 3-Clause License" grep -q '^BSD 3-Clause License$' "$SRC/LICENSE"
check "LICENSE keeps the third clause (no endorsement)" grep -q 'may be used to endorse or promote' "$SRC/LICENSE"
expect_match "debian/copyright: the project's files are BSD-3-Clause" \
	"$(sed -n '/^Files: \*$/,/^$/p' "$SRC/debian/copyright" | grep '^License:')" '^License: BSD-3-Clause$'
expect_nomatch "debian/copyright names no unchosen licence" "$(cat "$SRC/debian/copyright")" 'not-yet-chosen'

# the source files: git's list when the tree is a clone, else every file
# of the source folders (a tarball's tree, where build products are
# left out by name)
if command -v git >/dev/null 2>&1 && [ "$(git -C "$SRC" rev-parse --show-toplevel 2>/dev/null)" = "$(cd "$SRC" && pwd -P)" ]; then
	git -C "$SRC" ls-files >"$T/files"
else
	(cd "$SRC" && find base include shm src preload supervise tools slurm tests scripts man m4 debian .ci \
		-type f ! -name '*.o' ! -name '*.lo' ! -name 'Makefile.in' ! -name '*.log' ! -name '*.trs' \
		! -name 'libtool.m4' ! -name 'lt*.m4' \
		2>/dev/null | sed 's|^\./||'; echo configure.ac; echo Makefile.am; echo cpusetctl.pc.in) >"$T/files"
fi
: >"$T/missing"
n=0
while IFS= read -r f; do
	case $f in
	*/fixtures/* | */corpus/*) continue ;;
	*.c | *.h | *.map | *.go | *.sh | *.py | *.am | *.m4 | configure.ac | debian/rules | .ci/run | cpusetctl.pc.in) ;;
	man/*.[1-8])
		head -n 1 "$SRC/$f" | grep -q '^\.so ' && continue ;;
	*) continue ;;
	esac
	[ -f "$SRC/$f" ] || continue
	n=$((n + 1))
	head -n 3 "$SRC/$f" | grep -qF "$tag" || echo "$f" >>"$T/missing"
done <"$T/files"
note "$n source files looked at"
expect_ne "there are source files to look at" "$n" 0
verdict_missing=$(cat "$T/missing")
if [ -z "$verdict_missing" ]; then
	pass "every source file carries the SPDX line in its first three lines"
else
	fail "every source file carries the SPDX line in its first three lines" \
		"missing in: $(tr '\n' ' ' <"$T/missing")"
fi
finish
