#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# io_uring's polling thread (IORING_SETUP_SQPOLL with IORING_SETUP_SQ_AFF):
# its CPU is a virtual one, through the shim (syscall(2), a dynamic
# program) and through the supervisor (a static one). In set {1}, CPU 0
# puts the kernel's iou-sqp-PID thread on physical CPU 1 (its mask and
# the CPU it last ran on, read outside); a CPU past the set is EINVAL, the
# kernel's answer for a CPU outside the caller's cpuset; in {0,1} the
# numbers are the machine's. Natively the same call puts it on CPU 0.
. "$(dirname "$0")/../common.sh"

need gcc gcc
need taskset util-linux
P=$T/prog
PS=$T/prog-static
gcc -O2 -pthread -o "$P" "$SRC/tests/integration/prog_supervised.c" 2>"$T/cc.err" ||
	die "gcc cannot build prog_supervised.c: $(head -3 "$T/cc.err")"
gcc -O2 -static -pthread -o "$PS" "$SRC/tests/integration/prog_supervised.c" 2>"$T/cc.err" ||
	skip_all "gcc -static cannot link here (libc6-dev's static libc): $(head -1 "$T/cc.err")"
# the kernel's own refusals: io_uring switched off, or not for us
native=$(printf '\n' | outside "$P" uring 0)
case $native in
ok*) ;;
*)
	skip_all "this kernel refuses io_uring_setup here ($native; kernel.io_uring_disabled=$(cat /proc/sys/kernel/io_uring_disabled 2>/dev/null || echo absent))"
	;;
esac
two_sets

# sqp_cpus OUT: the iou-sqp thread of the process named in OUT's "ok PID"
# line, waited for (120 s at most: a loaded machine starts it late): its
# allowed CPUs and the CPU it last ran on
sqp_cpus() {
	_pid=$(awk '$1 == "ok" { print $2 }' "$1")
	for _i in $(seq 1 2400); do
		for _t in /proc/"$_pid"/task/*; do
			if [ "$(cat "$_t/comm" 2>/dev/null)" = "iou-sqp-$_pid" ]; then
				echo "$(real_cpus "$_pid/task/${_t##*/}") $(sed 's/.*) //' "$_t/stat" | cut -d' ' -f37)"
				return 0
			fi
		done
		sleep 0.05
	done
	echo "no iou-sqp-$_pid thread"
}

# ring HOW V: the program (HOW: shim, supervised, native) asks for
# virtual CPU V; the answer in $T/ring, the thread's CPUs in $sqp
ring() {
	_how=$1 _v=$2
	FIFO=$T/fifo.$_how.$_v
	rm -f "$FIFO"
	mkfifo "$FIFO"
	case $_how in
	shim) with_san timeout 120 "$CPUSET_RUN" --set "$s" "$P" uring "$_v" <"$FIFO" >"$T/ring" 2>&1 & ;;
	supervised) timeout 120 "$CPUSET_RUN" --set "$s" "$PS" uring "$_v" <"$FIFO" >"$T/ring" 2>&1 & ;;
	native) outside timeout 120 taskset -c "$list" "$P" uring "$_v" <"$FIFO" >"$T/ring" 2>&1 & ;;
	esac
	_bg=$!
	exec 9>"$FIFO"
	wait_until [ -s "$T/ring" ]
	sqp=
	# a program that failed reads no line: the fifo only closes
	grep -q '^ok' "$T/ring" && sqp=$(sqp_cpus "$T/ring") && echo >&9
	exec 9>&-
	wait $_bg
}

per_set() {
	last=$((n - 1))
	for how in shim supervised; do
		for v in $(seq 0 $last); do
			p=$(echo "$phys" | cut -d' ' -f$((v + 1)))
			ring $how "$v"
			expect_match "$t, $how: a polling thread on virtual CPU $v" "$(cat "$T/ring")" "^ok "
			expect_eq "$t, $how: the kernel has it on physical $p only, and it ran there" "$sqp" "$p $p"
		done
		ring $how $n
		expect_eq "$t, $how: virtual CPU $n, past the set: EINVAL" "$(cat "$T/ring")" "Invalid argument"
	done
	ring shim 0
	expect_eq "$t, shim: the params say the CPU asked for after the call" \
		"$(awk '{ print $3 }' "$T/ring")" 0
}
each_set per_set

# bad params: NULL, unreadable, read-only (the kernel faults writing them
# back): the kernel's answers, through the shim and the supervisor
want=$(outside taskset -c 1 "$P" uringbad | tr '\n' ' ')
expect_eq "NULL, unreadable and read-only params, shim: the kernel's answers" \
	"$(with_san "$CPUSET_RUN" --set "$S1" "$P" uringbad | tr '\n' ' ')" "$want"
expect_eq "NULL, unreadable and read-only params, supervised: the kernel's answers" \
	"$("$CPUSET_RUN" --set "$S1" "$PS" uringbad | tr '\n' ' ')" "$want"
note "natively: $want"

# what the translation changes: natively, confined to {1} by taskset
# alone, CPU 0 is the machine's CPU 0, outside the mask
s= list=1
ring native 0
expect_eq "natively under taskset -c 1: CPU 0 is physical 0 (what the set changes)" "$sqp" "0 0"
finish
