#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# OpenMP runtimes under the shim, in {1} and {0,1}: the same program
# built with gcc (libgomp) and with clang (LLVM libomp, which asks the
# kernel through syscall(SYS_sched_getaffinity) rather than libc's
# wrappers), unbound and with OMP_PLACES=threads OMP_PROC_BIND=close: as
# many threads as the set has CPUs, each on a CPU of the set, and bound,
# each virtual CPU on the set's CPU of that rank.
. "$(dirname "$0")/../common.sh"
need timeout coreutils
need clang clang
need_pkg libomp-dev
need ldd libc-bin
PROG_OMP="$B/tests/integration/prog_omp"
[ -x "$PROG_OMP" ] || die "no $PROG_OMP (make check builds it)"
two_sets

# The same OpenMP program on LLVM's runtime, which asks the kernel through
# syscall(SYS_sched_getaffinity) rather than through libc's wrappers.
PROG_OMP_CLANG="$T/prog_omp_clang"
if outside clang -fopenmp -O2 -o "$PROG_OMP_CLANG" "$SRC/tests/integration/prog_omp.c" \
	>"$T/clang.log" 2>&1; then
	pass "clang -fopenmp builds prog_omp"
	expect_match "the clang build runs on LLVM libomp" \
		"$(outside ldd "$PROG_OMP_CLANG")" 'libomp\.so'
else
	show "$T/clang.log"
	fail "clang -fopenmp cannot build prog_omp (libomp-dev installed?)"
	PROG_OMP_CLANG=
fi

# omp_check DESC SET N "PHYS..." BOUND PROG: BOUND=1 runs with
# OMP_PLACES=threads OMP_PROC_BIND=close, where each thread has one CPU
# of its own, so its physical CPU must be the vcpu-th of the set.
omp_check()
{
	_d=$1 _s=$2 _n=$3 _phys=$4 _bound=$5 _prog=$6
	if [ "$_bound" = 1 ]; then
		_d="$_d, OMP_PLACES=threads OMP_PROC_BIND=close"
		with_san env OMP_PLACES=threads OMP_PROC_BIND=close \
			timeout 120 "$CPUSET_RUN" --set "$_s" "$_prog" >"$T/omp.out" 2>&1
	else
		with_san env -u OMP_PLACES -u OMP_PROC_BIND -u OMP_NUM_THREADS \
			timeout 120 "$CPUSET_RUN" --set "$_s" "$_prog" >"$T/omp.out" 2>&1
	fi
	expect_eq "$_d: exit status" "$?" 0
	show "$T/omp.out"
	expect_eq "$_d: procs" "$(awk '$1 == "procs" { print $2 }' "$T/omp.out")" "$_n"
	expect_eq "$_d: max_threads" "$(awk '$1 == "max_threads" { print $2 }' "$T/omp.out")" "$_n"
	expect_eq "$_d: nthreads" "$(awk '$1 == "nthreads" { print $2 }' "$T/omp.out")" "$_n"
	expect_eq "$_d: thread lines" "$(grep -c '^thread ' "$T/omp.out")" "$_n"
	_bad=$(awk -v n="$_n" -v phys="$_phys" -v bound="$_bound" '
		BEGIN { k = split(phys, p, " "); for (i = 1; i <= k; i++) inset[p[i]] = 1 }
		$1 == "thread" {
			v = $4; c = $6
			if (v < 0 || v >= n) print "thread " $2 ": vcpu " v " not below " n
			if (!(c in inset)) print "thread " $2 ": pcpu " c " not in {" phys "}"
			if (bound && c != p[v + 1])
				print "thread " $2 ": vcpu " v " but pcpu " c " (want " p[v + 1] ")"
			if (bound && (v in seen)) print "thread " $2 ": vcpu " v " shared"
			seen[v] = 1
		}' "$T/omp.out")
	expect_eq "$_d: every thread's vcpu below $_n and pcpu in {$_phys}" "$_bad" ""
}

openmp() {
	# OpenMP runtimes
	omp_check "$t: gcc OpenMP (libgomp)" "$s" "$n" "$phys" 0 "$PROG_OMP"
	omp_check "$t: gcc OpenMP (libgomp)" "$s" "$n" "$phys" 1 "$PROG_OMP"
	if [ -n "$PROG_OMP_CLANG" ]; then
		omp_check "$t: clang OpenMP (libomp)" "$s" "$n" "$phys" 0 "$PROG_OMP_CLANG"
		omp_check "$t: clang OpenMP (libomp)" "$s" "$n" "$phys" 1 "$PROG_OMP_CLANG"
	else
		fail "$t: clang OpenMP (libomp): no clang build"
	fi
}
each_set openmp
finish
