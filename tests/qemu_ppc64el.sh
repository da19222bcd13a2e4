#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# POWER (ppc64el) under QEMU's user mode (qemu-ppc64le-static) on the
# host's own kernel: the ppc64el cross build of a copy of this tree
# (tests/crossbuild.sh, against Check for ppc64el) runs
# - every unit suite, Check's timeouts raised (CK_TIMEOUT_MULTIPLIER,
#   QEMU_CK_MULT: 10); each suite a check here, its failed checks shown;
# - the shim, preloaded into a ppc64el program (prog_supervised, built
#   for ppc64el) in sets drawn from this process's CPUs: the last of
#   them, and all of them. The ppc64el tools make the table under QEMU
#   (a table belongs to one architecture: the host's x86-64 tools refuse
#   it, which is checked, and the ppc64el ones refuse theirs); the
#   program runs under taskset of the set's CPUs with CPUSETSHIM_SET
#   naming it, and its counts (sysconf's, get_nprocs, its affinity), its
#   /proc/cpuinfo and /proc/stat CPUs, its status's Cpus_allowed_list and
#   the online list must be the host's online CPUs of the set, numbered
#   0..n-1. Without taskset, CPUSETSHIM_SET alone confines it: its kernel
#   mask, read outside, is the set's CPUs. Without the shim it must see
#   the machine (a harness that lost the shim cannot pass).
# What QEMU's user mode cannot stand in for, said as such: it passes
# no memory-policy call on (get_mempolicy, mbind, migrate_pages: ENOSYS,
# as on a kernel without NUMA), so the check of check_sets that moves
# pages must fail with ENOSYS there, and nothing else; it cannot exec a
# ppc64el program from a ppc64el one without binfmt_misc, so cpuset-run
# and the supervisor do not run here. /proc/cpuinfo under it is the
# host's (x86-64's lines): POWER's own cpuinfo and SMT numbering are
# tested on the captured POWER machines (tests/topo/machines.sh).
#
# Time: the build and each suite push the deadline on (progress);
# QEMU_SUITES: the suites to run (paths in the build, space-separated)
# instead of all. Slow: one of SLOW_TESTS.
. "$(dirname "$0")/common.sh"

TR=powerpc64le-linux-gnu
QEMU=qemu-ppc64le-static
need "$TR-gcc" gcc-powerpc64le-linux-gnu
need $QEMU qemu-user-static
need git git
need taskset util-linux
[ -f "/usr/lib/$TR/pkgconfig/check.pc" ] ||
	skip_all "needs Check for ppc64el (Debian package check:ppc64el; sh scripts/deps.sh installs it)"
. "$SRC/tests/crossbuild.sh"

bd=$T/build
cross_build $TR "$bd" tests/fixtures/unpacked.stamp
"$TR-gcc" -O2 -pthread -o "$T/prog" "$SRC/tests/integration/prog_supervised.c" 2>"$T/cc.err" ||
	die "$TR-gcc prog_supervised.c: $(head -3 "$T/cc.err")"
# the cross C library first (-L, and LD_LIBRARY_PATH: see tests/cross.sh),
# then multiarch's (Check, subunit), then the build's
q() {
	$QEMU -L "/usr/$TR" -E LD_LIBRARY_PATH="/usr/$TR/lib:/usr/lib/$TR:$bd/.libs" "$@"
}

# ---- the unit suites ----
mult=${QEMU_CK_MULT:-10}
# TEST:CALL: a check that needs a system call QEMU's user mode lacks
lacks="mems_resize_moves_pages:migrate_pages"
for s in ${QEMU_SUITES:-$suites}; do
	f=$bd/$s
	[ -f "$bd/$(dirname "$s")/.libs/$(basename "$s")" ] && f=$bd/$(dirname "$s")/.libs/$(basename "$s")
	t0=$(date +%s)
	CK_TAP_LOG_FILE_NAME=- CK_TIMEOUT_MULTIPLIER=$mult CPS_FIXTURES=$bd/tests/fixtures/unpacked \
		CPS_BUILDDIR=$bd CPS_SRCDIR=$T/src q "$f" >"$T/suite.tap" 2>"$T/suite.err"
	st=$?
	progress
	n=$(grep -Ec '^(not )?ok ' "$T/suite.tap")
	plan=$(sed -n 's/^1\.\.//p' "$T/suite.tap")
	: >"$T/bad"
	grep '^not ok ' "$T/suite.tap" >"$T/nok"
	while IFS= read -r l; do
		name=$(echo "$l" | cut -d: -f3)
		call=$(echo " $lacks " | sed -n "s/.* $name:\([a-z_]*\) .*/\1/p")
		if [ -n "$call" ] && echo "$l" | grep -q -- '== -38,'; then
			# (a check, not a skip: CI fails on any skip, and this
			# failure is the one QEMU must give)
			pass "ppc64el: $(basename "$s") $name fails only for want of $call (ENOSYS under QEMU's user mode)"
		else
			echo "$l" >>"$T/bad"
		fi
	done <"$T/nok"
	note "$(basename "$s"): $n checks, $(($(date +%s) - t0)) s"
	expect_eq "ppc64el: $(basename "$s") under $QEMU, every check but those it cannot stand in for" \
		"$(cat "$T/bad")" "" || show "$T/suite.err"
	expect_eq "ppc64el: $(basename "$s") ran every check (its plan; exit status $st)" "$n" "${plan:-none}" ||
		show "$T/suite.err"
done

# ---- the shim in sets, on the host's kernel ----
SB=$bd/.libs
"$CPUSET" init >/dev/null 2>&1 # (an x86-64 table under another name)
PT=$CPUSETSHIM_TABLE.ppc
at_exit "rm -f /dev/shm/$PT; rm -rf /dev/shm/$PT.views.*"
# pq CMD...: a ppc64el program of the build under QEMU on table $PT
pq() { q -E CPUSETSHIM_TABLE="$PT" "$@"; }
check "ppc64el: cpuset init under $QEMU" pq "$bd/cpuset" init
expect_status "ppc64el: the host's x86-64 cpuset-inspect refuses the ppc64el table (exit 3)" 3 \
	env CPUSETSHIM_TABLE="$PT" "$CPUSET_INSPECT" --tree
expect_stderr "ppc64el: the refusal names the table's architecture" "ppc64le"
expect_status "ppc64el: the ppc64el cpuset-inspect refuses the x86-64 table (exit 3)" 3 \
	q "$bd/cpuset-inspect" --tree
expect_stderr "ppc64el: the refusal names the table's architecture" "x86_64"

# virt N: the kernel list of virtual CPUs 0..N-1; commas N: print_list's
virt() { [ "$1" -eq 1 ] && echo 0 || echo "0-$(($1 - 1))"; }
commas() { seq -s, 0 $(($1 - 1)); }
online=$(cat /sys/devices/system/cpu/online)
mine=$(real_cpus $$)
last=$(echo "$mine" | tr ',' '\n' | sed 's/.*-//' | tail -n 1)
sets=$last
[ "$mine" != "$last" ] && sets="$sets $mine"
i=0
for S in $sets; do
	i=$((i + 1))
	check "ppc64el: cpuset create --cpus $S under $QEMU" pq "$bd/cpuset" create --cpus "$S" --name "s$i"
	# the host's online CPUs of the set, and of the machine
	set -- $($PYTHON3 -c "
import sys; sys.path.insert(0, '$SRC/tests/topo'); import compare
on = set(compare.cpulist('$online'))
print(len(set(compare.cpulist('$S')) & on), len(on))")
	n=$1 nall=$2
	shim="-E LD_PRELOAD=$SB/libcpusetshim.so -E CPUSETSHIM_SET=s$i"
	expect_eq "ppc64el {$S}: the shim's counts (ONLN CONF nprocs affinity)" \
		"$(taskset -c "$S" $QEMU -L /usr/$TR -E LD_LIBRARY_PATH=/usr/$TR/lib:$SB -E CPUSETSHIM_TABLE=$PT $shim "$T/prog" counts 2>&1)" \
		"$n $n $n $(commas $n)"
	expect_eq "ppc64el {$S}: the shim's cpuinfo, stat, Cpus_allowed_list and online" \
		"$(taskset -c "$S" $QEMU -L /usr/$TR -E LD_LIBRARY_PATH=/usr/$TR/lib:$SB -E CPUSETSHIM_TABLE=$PT $shim "$T/prog" files 2>&1 | tr '\n' ' ')" \
		"$n $n $(virt $n) $(virt $n) "
	# no taskset: CPUSETSHIM_SET confines it; its kernel mask read outside
	rm -f "$T/held" "$T/go"
	$QEMU -L /usr/$TR -E LD_LIBRARY_PATH=/usr/$TR/lib:$SB -E CPUSETSHIM_TABLE=$PT $shim \
		"$T/prog" held "$T/go" >"$T/held" 2>&1 &
	hp=$!
	wait_until test -s "$T/held"
	pid=$(sed -n 's/^pid \([0-9]*\) .*/\1/p' "$T/held")
	expect_eq "ppc64el {$S}: CPUSETSHIM_SET alone confines it (its kernel mask, outside)" \
		"$([ -n "$pid" ] && real_cpus "$pid")" "$S"
	touch "$T/go"
	wait $hp
	expect_eq "ppc64el {$S}: what it saw, confined so (counts, files)" "$(sed 's/^pid [0-9]* //' "$T/held")" \
		"counts $n $n $n $(commas $n) files $n $n $(virt $n) $(virt $n)"
	# without the shim: the machine, in its numbers (told apart from the
	# set's view unless the set is the whole machine)
	nos=$(taskset -c "$S" $QEMU -L /usr/$TR -E LD_LIBRARY_PATH=/usr/$TR/lib "$T/prog" counts 2>&1)
	[ "$S" = "$(virt $n)" ] && [ "$n" = "$nall" ] ||
		expect_ne "ppc64el {$S}: without the shim the counts are not the set's" "$nos" "$n $n $n $(commas $n)"
done
finish
