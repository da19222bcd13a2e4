#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# How the shim is loaded: a library whose constructor asks before the
# shim's constructor ran (both preload orders), nested cpuset-run keeping
# LD_PRELOAD's entries once and the shim first, and the shim with no table
# (the real machine, silent unless CPUSETSHIM_DEBUG=1).
. "$(dirname "$0")/../common.sh"
need timeout coreutils
need nproc coreutils
need "$PYTHON3" python3
CTOR_LIB="$B/tests/integration/.libs/libctor.so"
[ -f "$CTOR_LIB" ] || die "no $CTOR_LIB (make check builds it)"
REAL_NPROC=$(outside nproc)
two_sets

ctor() {
	# A constructor that asks before the shim's constructor ran. ld.so
	# calls the initialisers of preloaded objects last-listed first, so
	# "shim lib" makes lib's run first (checked with LD_DEBUG); the
	# "lib:shim" order is run too, as users write it.
	rm -f "$T/ctor.out"
	with_san env CTOR_OUT="$T/ctor.out" LD_DEBUG=files LD_DEBUG_OUTPUT="$T/lddebug" \
		timeout 120 "$CPUSET_RUN" --set "$s" env \
		LD_PRELOAD="$SHIM_PRELOAD $CTOR_LIB" true
	_first=$(cat "$T"/lddebug.* 2>/dev/null |
		grep -E 'calling init: .*(libctor|libcpusetshim)\.so' | tail -n 2 | head -n 1)
	rm -f "$T"/lddebug.*
	expect_match "$t: libctor's constructor is called before the shim's" "$_first" 'libctor\.so'
	expect_eq "$t: libctor constructor (called first)" "$(cat "$T/ctor.out" 2>/dev/null)" \
		"ctor sysconf $n mask $vmask"
	rm -f "$T/ctor.out"
	with_san env CTOR_OUT="$T/ctor.out" timeout 120 "$CPUSET_RUN" --set "$s" env \
		LD_PRELOAD="${SAN_PRELOAD:+$SAN_PRELOAD }$CTOR_LIB:$SHIM" true
	expect_eq "$t: libctor constructor (preloaded libctor.so:libcpusetshim.so)" \
		"$(cat "$T/ctor.out" 2>/dev/null)" "ctor sysconf $n mask $vmask"
}
each_set ctor

# The shim once, first (after a sanitizer runtime), and an entry that was
# there kept; the inner cpuset-run itself runs under the shim.
pre=$(with_san env LD_PRELOAD="${SAN_PRELOAD:+$SAN_PRELOAD }$CTOR_LIB" \
	timeout 120 "$CPUSET_RUN" --set "$S1" "$CPUSET_RUN" --set "$S1" \
	sh -c 'echo "$LD_PRELOAD"')
note "  | LD_PRELOAD=$pre"
entries=$(printf '%s\n' "$pre" | tr ': ' '\n\n' | grep -v '^$')
expect_eq "nested cpuset-run: the shim in LD_PRELOAD once" \
	"$(printf '%s\n' "$entries" | grep -c 'libcpusetshim\.so$')" 1
expect_eq "nested cpuset-run: the existing entry kept once" \
	"$(printf '%s\n' "$entries" | grep -c 'libctor\.so$')" 1
expect_eq "nested cpuset-run: the shim before the existing entry" \
	"$(printf '%s\n' "$entries" | grep -E 'lib(cpusetshim|ctor)\.so$' | head -n 1)" "$SHIM"
if [ -n "$SAN_PRELOAD" ]; then
	expect_match "nested cpuset-run: libasan still first" \
		"$(printf '%s\n' "$entries" | head -n 1)" 'libasan\.so'
fi

# ---- no table ----

note "---- the shim with no table ----"
none="cpusetshim-itest-none.$$"
rm -f "/dev/shm/$none"
got=$(with_san env CPUSETSHIM_TABLE="$none" LD_PRELOAD="$SHIM_PRELOAD" nproc 2>"$T/err")
expect_eq "no table: nproc sees the real machine" "$got" "$REAL_NPROC"
expect_eq "no table: nothing on stderr" "$(cat "$T/err")" ""
got=$(with_san env CPUSETSHIM_TABLE="$none" LD_PRELOAD="$SHIM_PRELOAD" \
	"$PYTHON3" -c 'import os; print(os.cpu_count(), sorted(os.sched_getaffinity(0)))' 2>"$T/err")
expect_eq "no table: python3 sees the real machine" "$got" \
	"$(outside "$PYTHON3" -c 'import os; print(os.cpu_count(), sorted(os.sched_getaffinity(0)))')"
expect_eq "no table: python3, nothing on stderr" "$(cat "$T/err")" ""
got=$(with_san env CPUSETSHIM_TABLE="$none" CPUSETSHIM_DEBUG=1 LD_PRELOAD="$SHIM_PRELOAD" \
	nproc 2>"$T/err")
show "$T/err"
expect_eq "no table, CPUSETSHIM_DEBUG=1: nproc still right" "$got" "$REAL_NPROC"
expect_match "no table, CPUSETSHIM_DEBUG=1: says why, naming the table" "$(cat "$T/err")" \
	"cpusetshim.*$none"
expect_eq "no table, CPUSETSHIM_DEBUG=1: says it once" "$(wc -l <"$T/err")" 1
expect_eq "no table: the shim made none" "$(ls "/dev/shm/$none" 2>/dev/null)" ""
rm -f "/dev/shm/$none"

finish
